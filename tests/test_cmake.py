"""``cksolve_add_conv_instances`` in a real CMake + Ninja build.

There is no HIP compiler here: ``data/cmake_standin_compiler.py`` stands in
for hipcc / amdclang++. It hands CMake's own compiler checks to the machine's
C++ compiler and, for each kernel compilation (``--offload-arch=``), records
the source, arch and include directories and writes the object and dependency
files a real compiler would. What is checked is the build graph: which files
are compiled, for which arch, and when.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cksolve.emit.cmake import CMAKE_DIR

BIN = Path(sys.executable).parent
CMAKE = shutil.which("cmake", path=str(BIN)) or shutil.which("cmake")
NINJA = shutil.which("ninja", path=str(BIN)) or shutil.which("ninja")
CXX = shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")
STANDIN = Path(__file__).with_name("data") / "cmake_standin_compiler.py"
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

pytestmark = pytest.mark.skipif(not (CMAKE and NINJA and CXX and PACKAGE_DIR),
                                reason=f"needs cmake, ninja, a C++ compiler and the cksolve command (cmake={CMAKE}, "
                                       f"ninja={NINJA}, cxx={CXX}, cksolve cmake-dir={PACKAGE_DIR})")

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


def _configure(root: Path, env, *extra, check=True):
    return _run(env, CMAKE, "-S", str(root / "src"), "-B", str(root / "build"), "-G", "Ninja",
                f"-DCMAKE_MAKE_PROGRAM={NINJA}", f"-DCMAKE_CXX_COMPILER={STANDIN}", *extra, check=check)


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
    return rows


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
    text = DOC.read_text(encoding="utf-8")
    return [b.split("```", 1)[0] for b in text.split(f"```{lang}\n")[1:]]


@pytest.mark.slow
def test_doc_sample_project_builds(tmp_path):
    (toml,) = [b for b in _blocks("toml") if b.startswith("# kernels.toml")]
    (lists,) = [b for b in _blocks("cmake") if b.startswith("# CMakeLists.txt")]
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


@pytest.mark.slow
def test_doc_ck_recipe_configures(tmp_path):
    (recipe,) = [b for b in _blocks("cmake") if "function(ck_add_dispatcher_conv_instances" in b]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(ck LANGUAGES CXX)\nset(GPU_TARGETS \"gfx942 gfx950\")\n"
        + recipe + "ck_add_dispatcher_conv_instances(fwd)\nck_add_dispatcher_conv_instances(bwd_weight)\n")
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               CKSOLVE_STANDIN_CXX=CXX, CKSOLVE_STANDIN_LOG=str(tmp_path / "compiled.jsonl"))
    _configure(tmp_path, env, f"-Dcksolve_DIR={PACKAGE_DIR}", "-DDISPATCHER_RULE_SET=tiny")
    for variant in ("fwd", "bwd_weight"):
        for arch in ("gfx942", "gfx950"):
            tree = tmp_path / "build" / f"dispatcher_{variant}_kernels" / arch
            assert any(tree.glob("*.cpp")), tree


@pytest.mark.slow
def test_doc_command_examples_run(tmp_path):
    lines = [line[len("$ cksolve "):] for line in DOC.read_text(encoding="utf-8").splitlines()
             if line.startswith("$ cksolve ")]
    assert lines
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    for line in lines:
        proc = subprocess.run([sys.executable, "-m", "cksolve", *line.split()], capture_output=True, text=True,
                              env=env, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stdout and not proc.stderr, (line, proc.stderr)
