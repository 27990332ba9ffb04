"""CK-version facts are read when asked, never frozen at import.

One process may answer under several CK versions (``--ck``, ``--arch-specs``, ``diff`` between versions, a
notebook that switches): so no module above ``cksolve/arch/`` resolves a versioned fact while it is imported,
the run-time rules read the active version's arch facts when they run, and everything that means "the
active archs" asks the active version (``BUNDLED_ARCHS`` is for help texts only).
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cksolve"
ARCH = PACKAGE / "arch"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _import_time_nodes(body):
    """The expressions a module body evaluates while it is imported: every statement but function bodies
    (a def's decorators and defaults run; a class body runs)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from stmt.decorator_list
            yield from (d for d in (*stmt.args.defaults, *stmt.args.kw_defaults) if d is not None)
        elif isinstance(stmt, ast.ClassDef):
            yield from (*stmt.decorator_list, *stmt.bases, *(k.value for k in stmt.keywords))
            yield from _import_time_nodes(stmt.body)
        else:
            yield stmt


def _calls(node):
    """Calls in ``node``, not looking into lambdas (their bodies run later)."""
    if isinstance(node, ast.Lambda):
        return
    if isinstance(node, ast.Call):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _calls(child)


def _arch_callee(func: ast.expr, names: dict) -> str | None:
    """What a call's function resolves to when it is in the arch layer (``cksolve.arch.facts.archs``), else None."""
    chain = []
    while isinstance(func, ast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in names:
        return None
    obj = names[func.id]
    for attr in reversed(chain):
        obj = getattr(obj, attr, None)
    owner = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    if isinstance(obj, type(sys)):
        return None  # a module itself is not a call target
    return f"{owner}.{getattr(obj, '__qualname__', '?')}" if owner.startswith("cksolve.arch") else None


def test_no_module_above_arch_calls_into_the_arch_layer_at_import():
    """Every module outside cksolve/arch/: no call evaluated at import (module level, class bodies, decorators,
    defaults) whose callee is in the arch/version layer -- directly or through a facade that re-exports it
    (``query.archs()``). The callee is resolved by importing what the module imports, so an alias is seen."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ARCH in path.parents:
            continue
        module = _module_name(path)
        tree = ast.parse(path.read_text(), str(path))
        names: dict[str, object] = {}
        for stmt in tree.body:  # module-level imports only: what import-time code can reach by name
            if isinstance(stmt, ast.ImportFrom):
                source = _absolute(module, stmt, path.name == "__init__.py")
                if not source.startswith("cksolve"):
                    continue
                mod = importlib.import_module(source)
                for alias in stmt.names:
                    value = getattr(mod, alias.name, None)
                    if value is None:
                        value = importlib.import_module(f"{source}.{alias.name}")
                    names[alias.asname or alias.name] = value
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.name.startswith("cksolve"):
                        names[alias.asname or alias.name.split(".")[0]] = importlib.import_module(
                            alias.name if alias.asname else alias.name.split(".")[0])
        for node in _import_time_nodes(tree.body):
            for call in _calls(node):
                callee = _arch_callee(call.func, names)
                if callee:
                    found.append(f"{path.relative_to(ROOT)}:{call.lineno}: {callee}")
    assert not found, "module-level calls into the arch layer:\n" + "\n".join(found)


def test_the_ast_check_sees_a_module_level_call(tmp_path):
    """The check above can fail: the same resolution flags a facade's re-export (``query.base_arch``) and an
    aliased import; a wrapper defined above arch/ is the run-time test's to catch (below)."""
    from cksolve import query
    from cksolve.arch import facts

    tree = ast.parse("X = query.base_arch('gfx942')\nY = known()\nZ = len('x')\n")
    names = {"query": query, "known": facts.archs}
    hits = [_arch_callee(c.func, names) for n in _import_time_nodes(tree.body) for c in _calls(n)]
    assert hits == ["cksolve.arch.target_id.base_arch", "cksolve.arch.facts.archs", None], hits


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_importing_everything_never_asks_which_version_is_active():
    """Import every module of cksolve with ``versions.active`` recording its callers: nobody asks at import."""
    out = _run("""
import pkgutil, importlib, traceback
from cksolve.arch import versions
asked = []
real = versions.active
def active():
    asked.append(traceback.format_stack(limit=4)[0].strip())
    return real()
versions.active = active
import cksolve
for m in pkgutil.walk_packages(cksolve.__path__, 'cksolve.'):
    if m.name != 'cksolve.__main__':
        importlib.import_module(m.name)
print(len(asked)); print('\\n'.join(asked[:5]))
""")
    assert out.split("\n")[0] == "0", out


def _gfx942_only(tmp_path) -> Path:
    """An arch_specs.json (CK's format) that knows gfx942 only (facts from facts.toml, made up LDS budget)."""
    path = tmp_path / "arch_specs.json"
    path.write_text(json.dumps({
        "architectures": {"gfx942": {"family": "cdna3", "warp_size": 64, "lds_capacity_kb": 64,
                                     "warp_configs": [[2, 2, 1]],
                                     "warp_tile_combos": {"fp16_fp16_fp32": [[32, 32, 16], [16, 16, 32]]}}},
        "pipeline_lds_budget": {"default": {"basis": "fraction", "value": 1.0}}}))
    return path


APPLICABLE_ASYNC = """
import sys
from cksolve.arch import versions
from cksolve.arch.specs_file import read_arch_specs
if sys.argv[1] != '-':
    versions.activate(read_arch_specs(sys.argv[1]))
from cksolve import workload
from cksolve.rulesets import get_rule_set
versions.activate(None)  # develop answers from here on
p = workload.parse_problem('N=8,G=1,C=64,K=64,Hi=28,Wi=28')
print(' '.join(workload.applicable(p, get_rule_set(sys.argv[2]), 'gfx950', 'fp16')))
"""
ASYNC_KERNEL = "grouped_conv_fwd_fp16_nhwgc_2d_comp_async_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"
PLAIN_KERNEL = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"


def test_import_under_one_version_answer_under_another(tmp_path):
    """``cksolve.workload`` imported while a gfx942-only arch_specs.json was active froze gfx950 out of the
    async-copy archs: ``applicable`` on gfx950 at develop then dropped every comp_async kernel (the issue's
    192 of the whole space; here one kernel of each)."""
    (tmp_path / "kernels.txt").write_text(f"{ASYNC_KERNEL}\n{PLAIN_KERNEL}\n")
    (tmp_path / "two.toml").write_text('extends = "kernels.txt"\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    answers = []
    for first in ("-", str(_gfx942_only(tmp_path))):
        out = subprocess.run([sys.executable, "-c", APPLICABLE_ASYNC, first, str(tmp_path / "two.toml")],
                             capture_output=True, text=True, env=env, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        answers.append(out.stdout.split())
    assert answers[0] == [ASYNC_KERNEL, PLAIN_KERNEL], answers[0]
    assert answers[1] == answers[0], f"imported under the gfx942-only file: {answers[1]}"


def test_rule_messages_name_the_active_versions_archs(tmp_path):
    """The messages' arch lists follow the version: under the gfx942-only file no arch runs Async pipelines."""
    from cksolve.arch import versions
    from cksolve.arch.specs_file import read_arch_specs
    from cksolve.workload import rules

    def async_message():
        return next(r.message for r in rules() if r.check == "async_copy_arch")

    develop = async_message()
    assert "gfx950" in develop, develop
    with versions.using(read_arch_specs(_gfx942_only(tmp_path))):
        assert "gfx950" not in async_message() and "no arch" in async_message(), async_message()
    assert async_message() == develop


def _specs_with_new_arch(tmp_path) -> Path:
    tiles = {"fp16_fp16_fp32": [[32, 32, 16], [16, 16, 32]]}
    path = tmp_path / "arch_specs.json"
    path.write_text(json.dumps({
        "architectures": {a: {"family": "cdna3", "warp_size": 64, "lds_capacity_kb": 64, "warp_configs": [[2, 2, 1]],
                              "warp_tile_combos": tiles} for a in ("gfx942", "gfx9999")},
        "pipeline_lds_budget": {"default": {"basis": "fraction", "value": 1.0}}}))
    return path


def test_emit_names_keeps_an_arch_only_the_facts_file_knows(tmp_path, capsys):
    """``emit --names`` took the file's '# arch:' sections that the bundled archs know: gfx9999's section,
    which only the --arch-specs file knows, was dropped without a word (exit 0, one tree)."""
    from cksolve.cli import main

    specs = str(_specs_with_new_arch(tmp_path))
    names = tmp_path / "names.txt"
    with pytest.raises(SystemExit) as exc:
        main(["enumerate", "-r", "tiny", "--variant", "forward", "--dtype", "fp16", "--ndim", "2", "--arch-specs", specs,
              "-o", str(names)])
    assert exc.value.code in (0, None), capsys.readouterr().err
    sections = [line for line in names.read_text().splitlines() if line.startswith("# arch:")]
    assert sections == ["# arch: gfx942", "# arch: gfx9999"], sections
    with pytest.raises(SystemExit) as exc:
        main(["emit", "--names", str(names), "--arch-specs", specs, "-o", str(tmp_path / "out")])
    assert exc.value.code in (0, None), capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["gfx942", "gfx9999"]
    assert any((tmp_path / "out" / "gfx9999").glob("*.cpp"))


def test_a_delta_may_give_the_extras_of_an_arch_it_introduces():
    """A version delta introducing an arch may carry its hardware profile and run-time flags; an arch that
    facts.toml already knows may not (one place for each fact)."""
    from cksolve.arch.versions import apply_delta, base_facts
    from cksolve.errors import CksolveError

    new = {"family": "cdna9", "warp_size": 64, "warp_configs": [[2, 2, 1]], "warp_tile_combos": {},
           "async_copy": True, "streamk_bwd_weight": True, "hw_profile": {"num_cus": 8}}
    out = apply_delta({}, {"gfx9999": new}, "ck_x.toml")
    assert out["gfx9999"]["async_copy"] and out["gfx9999"]["streamk_bwd_weight"]
    assert out["gfx9999"]["hw_profile"] == {"num_cus": 8}
    known = {"gfx942": {"family": "cdna3", "warp_size": 64, "wave_splits": ((1, 1, 1),), "warp_tiles": {},
                        "lds_capacity": None}}
    assert "gfx942" in base_facts()
    with pytest.raises(CksolveError, match=r"ck_x\.toml: \[architectures\.gfx942\] gives async_copy"):
        apply_delta(known, {"gfx942": {"async_copy": True}}, "ck_x.toml")


def test_ck_help_names_every_bundled_version():
    """``--ck``'s help is made from the bundled versions (it named them by hand)."""
    from typer.testing import CliRunner

    from cksolve.arch.versions import bundled
    from cksolve.cli.app import app

    text = " ".join(CliRunner().invoke(app, ["count", "--help"], terminal_width=1000).output.split())
    for v in bundled():
        assert v.key in text and all(a in text for a in v.aliases), (v.key, text)
