"""``cksolve_add_conv_instances`` in a real CMake + Ninja build.

There is no HIP compiler here: ``cksolve-standin-cxx`` (:mod:`cksolve.emit.standin`,
shipped for users who want the same) stands in for hipcc / amdclang++. It
hands CMake's own compiler checks to the machine's C++ compiler and, for each
kernel compilation (``--offload-arch=``), records the source, arch and
include directories and writes the object and dependency files a real
compiler would. What is checked is the build graph: which files are
compiled, for which arch, and when.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CK, require_ck
from doc_examples import read_doc

from cksolve.emit.cmake import CMAKE_DIR

BIN = Path(sys.executable).parent
CMAKE = shutil.which("cmake", path=str(BIN)) or shutil.which("cmake")
NINJA = shutil.which("ninja", path=str(BIN)) or shutil.which("ninja")
CXX = shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")
STANDIN = shutil.which("cksolve-standin-cxx", path=str(BIN)) or shutil.which("cksolve-standin-cxx")
#: the package's configure-time probe of the compiler (compiled once per arch; not a kernel)
PROBE = "cksolve_offload_arch_probe.cpp"
ARCHS = ["gfx942", "gfx950"]


def _installed_cmake_dir() -> Path | None:
    """``$(cksolve cmake-dir)`` of the environment's ``cksolve``, as a user passes it to CMake.

    Not the in-process ``CMAKE_DIR``: under CI the tests import the checkout while
    ``cksolve`` runs the installed copy, and the package accepts only the
    executable that names its own directory.
    """
    exe = shutil.which("cksolve", path=str(BIN)) or shutil.which("cksolve")
    if exe is None:
        return None
    proc = subprocess.run([exe, "cmake-dir"], capture_output=True, text=True)
    assert proc.returncode == 0, f"{exe} cmake-dir: {proc.stderr}"
    return Path(proc.stdout.strip())


PACKAGE_DIR = _installed_cmake_dir()

pytestmark = pytest.mark.skipif(not (CMAKE and NINJA and CXX and PACKAGE_DIR and STANDIN),
                                reason=f"needs cmake, ninja, a C++ compiler and the cksolve commands (cmake={CMAKE}, "
                                       f"ninja={NINJA}, cxx={CXX}, cksolve cmake-dir={PACKAGE_DIR}, "
                                       f"cksolve-standin-cxx={STANDIN})")

LISTS = """cmake_minimum_required(VERSION 3.20)
project(sample LANGUAGES CXX)
find_package(cksolve CONFIG REQUIRED)
cksolve_add_conv_instances(conv RULE_SET kernels.toml ARCHS {archs} DTYPES fp16)
get_target_property(srcs conv SOURCES)
set(lines "")
foreach(s IN LISTS srcs)
  get_source_file_property(opt "${{s}}" COMPILE_OPTIONS)
  string(APPEND lines "${{opt}} ${{s}}\\n")
endforeach()
file(WRITE "${{CMAKE_BINARY_DIR}}/sources.txt" "${{lines}}")
string(REPLACE ";" "\\n" kernels "${{conv_KERNELS}}")
file(WRITE "${{CMAKE_BINARY_DIR}}/kernels.txt" "${{kernels}}\\n")
"""


def _rule_set(pipelines: list[str]) -> str:
    return f'description = "cmake test"\nbase = "tiny"\n[pin]\npipeline = {json.dumps(pipelines)}\n'


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(LISTS.format(archs=" ".join(ARCHS)))
    (src / "kernels.toml").write_text(_rule_set(["compv3"]))
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               CKSOLVE_STANDIN_CXX=CXX, CKSOLVE_STANDIN_LOG=str(tmp_path / "compiled.jsonl"))
    return tmp_path, env


def _run(env, *argv, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(argv), capture_output=True, text=True, env=env)
    if check:
        assert proc.returncode == 0, f"{argv}: {proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc


def _configure(root: Path, env, *extra, check=True, compiler=None):
    return _run(env, CMAKE, "-S", str(root / "src"), "-B", str(root / "build"), "-G", "Ninja",
                f"-DCMAKE_MAKE_PROGRAM={NINJA}", f"-DCMAKE_CXX_COMPILER={compiler or STANDIN}", *extra, check=check)


def _enumerate(root: Path, env, arch: str) -> set[str]:
    out = _run(env, sys.executable, "-m", "cksolve", "enumerate", "-r", str(root / "src" / "kernels.toml"),
               "--arch", arch, "--dtype", "fp16").stdout
    return set(out.split())


def _compiled(root: Path) -> list[dict]:
    log = root / "compiled.jsonl"
    if not log.exists():
        return []
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    log.unlink()
    return [r for r in rows if Path(r["source"]).name != PROBE]


def _mtimes(root: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_sources_equal_enumerate_and_reconfigure_changes_nothing(project):
    root, env = project
    _configure(root, env, f"-Dcksolve_DIR={PACKAGE_DIR}")
    out = root / "build" / "conv"
    want = {(f"--offload-arch={a}", str(out / a / f"{n}.cpp")) for a in ARCHS for n in _enumerate(root, env, a)}
    got = {tuple(line.split(" ", 1)) for line in (root / "build" / "sources.txt").read_text().splitlines()}
    assert got == want, f"only in the target: {sorted(got - want)[:3]}, only in enumerate: {sorted(want - got)[:3]}"
    kernels = set((root / "build" / "kernels.txt").read_text().split())
    assert kernels == {f"{a}:{n}" for a in ARCHS for n in _enumerate(root, env, a)}

    _run(env, NINJA, "-C", str(root / "build"))
    compiled = _compiled(root)
    assert sorted(r["source"] for r in compiled) == sorted(s for _, s in want)
    for r in compiled:
        arch = Path(r["source"]).parent.name
        assert r["arch"] == [arch] and str(out / arch) in r["includes"], r

    before = _mtimes(out)
    _configure(root, env)
    assert _mtimes(out) == before, "a second configure rewrote files"
    plan = _run(env, NINJA, "-C", str(root / "build"), "-n").stdout
    assert "no work to do" in plan, plan


@pytest.mark.slow
def test_changing_the_rule_set_recompiles_only_the_changed_kernels(project):
    root, env = project
    _configure(root, env, f"-Dcksolve_DIR={PACKAGE_DIR}")
    _run(env, NINJA, "-C", str(root / "build"))
    _compiled(root)
    old = {a: _enumerate(root, env, a) for a in ARCHS}
    out = root / "build" / "conv"
    before = _mtimes(out)

    (root / "src" / "kernels.toml").write_text(_rule_set(["compv3", "compv4"]))
    new = {a: _enumerate(root, env, a) for a in ARCHS}
    added = {str(out / a / f"{n}.cpp") for a in ARCHS for n in new[a] - old[a]}
    assert added, "the change must add kernels for the test to mean anything"
    _run(env, NINJA, "-C", str(root / "build"))  # re-runs the configure: the rule-set file is a configure input
    assert sorted(r["source"] for r in _compiled(root)) == sorted(added)
    after = _mtimes(out)
    kept = [f for f in before if Path(f).name.split(".")[0] in {n for a in ARCHS for n in old[a] & new[a]}]
    assert kept and all(after[f] == before[f] for f in kept), "an unchanged kernel's file was rewritten"

    (root / "src" / "kernels.toml").write_text(_rule_set(["compv4"]))
    _run(env, NINJA, "-C", str(root / "build"))
    assert _compiled(root) == []  # only removals: nothing to compile
    on_disk = {p.stem for a in ARCHS for p in (out / a).glob("*.cpp")}
    assert on_disk == {n for a in ARCHS for n in _enumerate(root, env, a)}


@pytest.mark.slow
def test_failed_generation_stops_configure_with_cksolves_line(project):
    root, env = project
    (root / "src" / "kernels.toml").write_text('base = "nosuch"\n')
    proc = _configure(root, env, f"-DCMAKE_PREFIX_PATH={PACKAGE_DIR}", check=False)
    assert proc.returncode != 0
    assert "cksolve: error:" in proc.stderr and "nosuch" in proc.stderr, proc.stderr


def test_cmake_dir_holds_the_package_and_is_shipped():
    assert (CMAKE_DIR / "cksolveConfig.cmake").is_file() and (CMAKE_DIR / "cksolveConfigVersion.cmake").is_file()
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["cksolve.emit"]
    assert all(p.match(g) for p in (CMAKE_DIR / "cksolveConfig.cmake", CMAKE_DIR / "cksolveConfigVersion.cmake")
               for g in globs if g.startswith("cmake/")) and "cmake/*.cmake" in globs
    proc = subprocess.run([sys.executable, "-m", "cksolve", "cmake-dir"], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1])))
    assert proc.returncode == 0 and Path(proc.stdout.strip()) == CMAKE_DIR


# ------------------------------------------------------------------ docs/cmake.md
DOC = Path(__file__).resolve().parents[1] / "docs" / "cmake.md"


def _blocks(lang: str) -> list[str]:
    return [b.body for b in read_doc(DOC).blocks if b.lang == lang]


@pytest.mark.slow
def test_doc_sample_project_builds(tmp_path):
    files = read_doc(DOC).files
    toml, lists = files["kernels.toml"], files["CMakeLists.txt"]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernels.toml").write_text(toml)
    (tmp_path / "src" / "CMakeLists.txt").write_text(lists)
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               CKSOLVE_STANDIN_CXX=CXX, CKSOLVE_STANDIN_LOG=str(tmp_path / "compiled.jsonl"))
    proc = _configure(tmp_path, env, f"-Dcksolve_DIR={PACKAGE_DIR}")
    n = sum(len(_enumerate(tmp_path, env, a)) for a in ARCHS)
    assert f"conv_kernels: {n} kernels" in proc.stdout, proc.stdout
    _run(env, NINJA, "-C", str(tmp_path / "build"))
    assert len(_compiled(tmp_path)) == n


BUILDER_CONFIGS = CK / "builder-configs"
#: GPU_TARGETS per rule set: full over one arch only, to keep the test short (the recipe does not depend on it)
_RECIPE_TARGETS = {"default": "gfx942 gfx950", "tests": "gfx942 gfx950", "tiny": "gfx942 gfx950", "full": "gfx950"}
_RECIPE_VARIANTS = {"fwd": "forward,forward_depthwise", "bwd_weight": "bwd_weight", "bwd_data": "bwd_data"}


@pytest.mark.slow
@pytest.mark.parametrize("rule_set", list(_RECIPE_TARGETS))
def test_doc_ck_recipe_configures_for_every_rule_set(tmp_path, rule_set):
    """The drop-in for CK's dispatcher CMake, as the doc shows it: every variant for every GPU target, empty
    selections (no bwd_data kernel in tests, tiny, full) included; each tree holds what enumerate lists."""
    if rule_set == "tests":
        require_ck()  # CK Builder's .conf files
    (recipe,) = [b for b in _blocks("cmake") if "function(ck_add_dispatcher_conv_instances" in b]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.20)\nproject(ck LANGUAGES CXX)\n"
        f"set(GPU_TARGETS \"{_RECIPE_TARGETS[rule_set]}\")\n" + recipe
        + "".join(f"ck_add_dispatcher_conv_instances({v})\n" for v in _RECIPE_VARIANTS))
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               CKSOLVE_STANDIN_CXX=CXX, CKSOLVE_STANDIN_LOG=str(tmp_path / "compiled.jsonl"))
    extra = [f"-DDISPATCHER_BUILDER_CONFIGS={BUILDER_CONFIGS}"] if rule_set == "tests" else []
    proc = _configure(tmp_path, env, f"-Dcksolve_DIR={PACKAGE_DIR}", f"-DDISPATCHER_RULE_SET={rule_set}", *extra)
    bc = ["--builder-configs", str(BUILDER_CONFIGS)] if rule_set == "tests" else []
    empty = 0
    for variant, variants in _RECIPE_VARIANTS.items():
        for arch in _RECIPE_TARGETS[rule_set].split():
            want = int(_run(env, sys.executable, "-m", "cksolve", "count", "-r", rule_set, "--arch", arch,
                            "--variant", variants, *bc).stdout)
            tree = tmp_path / "build" / f"dispatcher_{variant}_kernels" / arch
            got = len(list(tree.glob("*.cpp")))
            assert got == want, f"{rule_set} {variant} {arch}: {got} kernels in the tree, count says {want}"
        if not any((tmp_path / "build" / f"dispatcher_{variant}_kernels").glob("*/*.cpp")):
            empty += 1
            assert f"ck_dispatcher_grouped_conv_{variant} is empty (ALLOW_EMPTY)" in proc.stdout, proc.stdout
    assert empty == (0 if rule_set == "default" else 1), f"{rule_set}: {empty} empty variants"


# ------------------------------------------------------------------ ALLOW_EMPTY, compiler check, target IDs
def _project(tmp_path, body: str):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES CXX)\nfind_package(cksolve CONFIG REQUIRED)\n"
        + body)
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                CKSOLVE_STANDIN_CXX=CXX, CKSOLVE_STANDIN_LOG=str(tmp_path / "compiled.jsonl"))


def test_an_empty_selection_is_an_error_unless_allow_empty(tmp_path):
    env = _project(tmp_path, "cksolve_add_conv_instances(none RULE_SET tiny ARCHS gfx942 VARIANTS bwd_data)\n")
    proc = _configure(tmp_path, env, f"-Dcksolve_DIR={PACKAGE_DIR}", check=False)
    assert proc.returncode != 0 and "no kernel for gfx942" in proc.stderr and "ALLOW_EMPTY" in proc.stderr, proc.stderr

    (tmp_path / "src" / "CMakeLists.txt").write_text((tmp_path / "src" / "CMakeLists.txt").read_text().replace(
        "VARIANTS bwd_data)", "VARIANTS bwd_data ALLOW_EMPTY)\nlist(LENGTH none_KERNELS n)\nmessage(STATUS \"n=${n}\")"))
    proc = _configure(tmp_path, env)
    assert "none is empty (ALLOW_EMPTY)" in proc.stdout and "n=0" in proc.stdout, proc.stdout
    _run(env, NINJA, "-C", str(tmp_path / "build"))
    assert _compiled(tmp_path) == []  # the placeholder source is not a kernel: no --offload-arch
    assert "no work to do" in _run(env, NINJA, "-C", str(tmp_path / "build"), "-n").stdout


def test_a_compiler_without_offload_arch_stops_the_configure_unless_skipped(tmp_path):
    env = _project(tmp_path, "cksolve_add_conv_instances(conv RULE_SET tiny ARCHS gfx942 DTYPES fp16 NDIMS 1)\n")
    proc = _configure(tmp_path, env, f"-Dcksolve_DIR={PACKAGE_DIR}", compiler=CXX, check=False)
    assert proc.returncode != 0, proc.stdout
    assert f"the C++ compiler {Path(CXX).resolve()}" in " ".join(proc.stderr.split()) or CXX in proc.stderr, proc.stderr
    assert "does not accept --offload-arch=gfx942" in " ".join(proc.stderr.split()), proc.stderr
    assert not (tmp_path / "build" / "conv").exists(), "nothing is emitted when the compiler cannot build it"
    _configure(tmp_path, env, "-DCKSOLVE_SKIP_COMPILER_CHECK=ON", compiler=CXX)
    assert any((tmp_path / "build" / "conv" / "gfx942").glob("*.cpp"))


def test_rocm_target_ids_pass_through_to_offload_arch_and_the_tree(tmp_path):
    targets = ["gfx942:sramecc+:xnack-", "gfx90a:xnack+"]
    env = _project(tmp_path, f"cksolve_add_conv_instances(conv RULE_SET tiny ARCHS {' '.join(targets)} "
                             "DTYPES fp16 VARIANTS forward)\n"
                             "string(REPLACE \";\" \"\\n\" k \"${conv_KERNELS}\")\n"
                             "file(WRITE \"${CMAKE_BINARY_DIR}/kernels.txt\" \"${k}\\n\")\n")
    _configure(tmp_path, env, f"-Dcksolve_DIR={PACKAGE_DIR}")
    _run(env, NINJA, "-C", str(tmp_path / "build"))
    out = tmp_path / "build" / "conv"
    want = set()
    for t in targets:
        base = t.split(":")[0]
        names = set(_run(env, sys.executable, "-m", "cksolve", "enumerate", "-r", "tiny", "--arch", base,
                         "--dtype", "fp16", "--variant", "forward").stdout.split())
        assert names and {p.stem for p in (out / t).glob("*.cpp")} == names, t
        want |= {(t, str(out / t / f"{n}.cpp")) for n in names}
    got = {(r["arch"][0], r["source"]) for r in _compiled(tmp_path)}
    assert got == want, f"only compiled: {sorted(got - want)[:2]}, never compiled: {sorted(want - got)[:2]}"
    kernels = set((tmp_path / "build" / "kernels.txt").read_text().split())
    assert kernels == {f"{t}:{Path(s).stem}" for t, s in want}
    assert "no work to do" in _run(env, NINJA, "-C", str(tmp_path / "build"), "-n").stdout


# ------------------------------------------------------------------ UNITY_BATCH
def test_unity_batches_compile_few_units_and_recompile_only_the_touched_ones(project):
    from cksolve.emit.unity import batches

    root, env = project
    lists = root / "src" / "CMakeLists.txt"
    lists.write_text(lists.read_text().replace("DTYPES fp16)", "DTYPES fp16 UNITY_BATCH 8)"))
    (root / "src" / "kernels.toml").write_text(_rule_set(["compv3", "compv4"]))
    _configure(root, env, f"-Dcksolve_DIR={PACKAGE_DIR}")
    out = root / "build" / "conv"
    names = {a: _enumerate(root, env, a) for a in ARCHS}
    units = {a: {f: m for f, m in batches(names[a], 8)} for a in ARCHS}
    _run(env, NINJA, "-C", str(root / "build"))
    compiled = sorted(r["source"] for r in _compiled(root))
    assert compiled == sorted(str(out / a / "unity" / f) for a in ARCHS for f in units[a])
    n_kernels, n_units = sum(map(len, names.values())), len(compiled)
    assert n_units * 2 <= n_kernels, f"{n_units} units for {n_kernels} kernels"
    assert all(len(m) <= 8 for a in ARCHS for m in units[a].values())

    before = _mtimes(out)
    _configure(root, env)
    assert _mtimes(out) == before, "a reconfigure rewrote files"
    assert "no work to do" in _run(env, NINJA, "-C", str(root / "build"), "-n").stdout

    # one pipeline fewer: only the units whose members changed are compiled again
    (root / "src" / "kernels.toml").write_text(_rule_set(["compv3"]))
    _run(env, NINJA, "-C", str(root / "build"))
    new_names = {a: _enumerate(root, env, a) for a in ARCHS}
    new_units = {a: {f: m for f, m in batches(new_names[a], 8)} for a in ARCHS}
    touched = sorted(str(out / a / "unity" / f) for a in ARCHS for f, m in new_units[a].items()
                     if units[a].get(f) != m)
    assert sorted(r["source"] for r in _compiled(root)) == touched
    on_disk = sorted(str(p) for a in ARCHS for p in (out / a / "unity").glob("*.cpp"))
    assert on_disk == sorted(str(out / a / "unity" / f) for a in ARCHS for f in new_units[a])


def test_adding_one_kernel_rewrites_one_unity_batch(tmp_path):
    names = _run(os.environ, sys.executable, "-m", "cksolve", "enumerate", "-r", "tiny", "--arch", "gfx942",
                 "--variant", "forward,bwd_weight").stdout.split()
    left_out = names[len(names) // 2]
    env = _project(tmp_path, "cksolve_add_conv_instances(conv NAMES_FILE names.txt ARCHS gfx942 UNITY_BATCH 6)\n")
    (tmp_path / "src" / "names.txt").write_text("\n".join(n for n in names if n != left_out) + "\n")
    _configure(tmp_path, env, f"-Dcksolve_DIR={PACKAGE_DIR}")
    _run(env, NINJA, "-C", str(tmp_path / "build"))
    first = _compiled(tmp_path)
    assert first and all("/unity/unity_" in r["source"] for r in first)

    (tmp_path / "src" / "names.txt").write_text("\n".join(names) + "\n")
    _run(env, NINJA, "-C", str(tmp_path / "build"))
    again = _compiled(tmp_path)
    assert 1 <= len(again) <= 2, f"adding one kernel recompiled {len(again)} of {len(first)} units"
    assert any(f"{left_out}.cpp" in Path(r["source"]).read_text() for r in again)
