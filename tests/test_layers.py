"""Imports run one way, bottom to top, with no cycle (``tools/import_graph.py`` draws the graph)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "import_graph.py"


def _tool():
    spec = importlib.util.spec_from_file_location("import_graph", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_upward_import_and_no_cycle():
    g = _tool()
    edges = g.module_imports(g.modules())
    assert g.upward(edges) == [] and g.cycles(edges) == []


def test_every_deferred_import_says_why_on_its_line():
    """A function-level import is there to defer a heavy load: its line says so (``deferred: ...``)."""
    g = _tool()
    assert g.deferred(g.modules()) == []


def test_the_check_counts_function_level_imports_and_skips_type_checking_ones(tmp_path):
    g = _tool()
    (tmp_path / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n"
                                   "def f():\n    from . import c\n    return c\n")
    for name in ("b", "c"):
        (tmp_path / f"{name}.py").write_text("")
    mods = {f"pkg.{n}": tmp_path / f"{n}.py" for n in "abc"}
    assert g.module_imports(mods)["pkg.a"] == {"pkg.c"}
    g.ROOT = tmp_path / "pkg"  # paths are shown relative to the package's parent
    assert g.deferred(mods) == ["a.py:5"]


def test_a_registry_entry_is_an_import_edge(tmp_path):
    """A lazy registry's ``"package.module:attribute"`` entry is an import made when it is asked for: the check
    counts it (an entry pointing up a layer is an upward import; one pointing back closes a cycle)."""
    g = _tool()
    (tmp_path / "a.py").write_text('"""Docs naming pkg.c:C are no edge."""\nfrom cksolve.registry import LazyRegistry\n'
                                   'R = LazyRegistry("thing", {"c": "pkg.c:C", "x": "not.a.module:X"})\n'
                                   'R.register("b", "pkg.b:B")\n')
    for name in ("b", "c"):
        (tmp_path / f"{name}.py").write_text("")
    mods = {f"pkg.{n}": tmp_path / f"{n}.py" for n in "abc"}
    assert g.module_imports(mods)["pkg.a"] == {"pkg.b", "pkg.c"}


def test_the_registries_entries_are_in_the_graph_and_the_allowed_upward_ones_are_all_used():
    g = _tool()
    edges = g.module_imports(g.modules())
    assert {"cksolve.solver.cpsat", "cksolve.solver.direct_backend"} <= edges["cksolve.solver.backends"]
    assert "cksolve.scoring.model_scorer" in edges["cksolve.scoring.protocol"]
    assert "cksolve.cli.listing" in edges["cksolve.cli.commands"] and "cksolve.space.naming" in edges["cksolve"]
    assert g.allowed(edges) == sorted(g.ALLOWED)  # no stale entry in the allow-list


def test_every_top_level_part_has_a_layer():
    g = _tool()
    parts = {g.layer_of(m) for m in g.modules()} - {"__init__"}
    assert parts <= set(g.LAYERS), sorted(parts - set(g.LAYERS))


def test_the_check_catches_an_upward_import_and_a_cycle():
    g = _tool()
    edges = {"cksolve.space.axes": {"cksolve.solver.model"}, "cksolve.solver.model": {"cksolve.space.axes"}}
    assert g.upward(edges) == ["cksolve.space.axes -> cksolve.solver.model"]
    assert g.cycles(edges) == [["cksolve.solver.model", "cksolve.space.axes"]]


def test_every_room_of_the_solver_has_a_height_and_imports_run_down_between_rooms():
    """The import check ranks the solver's rooms (the engine below listing and sampling, the questions above the
    listing, the backends on top): every room has a height, and an import up a room is upward."""
    g = _tool()
    rooms = {m.split(".")[2] for m in g.modules() if m.startswith("cksolve.solver.")}
    assert rooms == set(g.ROOMS["solver"]), sorted(rooms ^ set(g.ROOMS["solver"]))
    edges = {"cksolve.solver.engine.direct": {"cksolve.solver.listing.stream", "cksolve.solver.model"},
             "cksolve.solver.listing.stream": {"cksolve.solver.engine.direct"},
             "cksolve.solver.sampling.uniform": {"cksolve.solver.backends"}}
    assert g.upward(edges) == ["cksolve.solver.engine.direct -> cksolve.solver.listing.stream",
                               "cksolve.solver.sampling.uniform -> cksolve.solver.backends"]


@pytest.mark.slow
def test_the_cli_reaches_the_library_only_through_its_faces():
    g = _tool()
    edges = g.module_imports(g.modules())
    faces = {"cksolve.query", "cksolve.workload", "cksolve.features", "cksolve.audit", "cksolve.explore", "cksolve.emit",
             "cksolve.report", "cksolve.space", "cksolve.ml", "cksolve.scoring", "cksolve.formats", "cksolve.outputs",
             "cksolve.progress", "cksolve.errors", "cksolve.registry", "cksolve.plan",
             "cksolve"}  # cksolve: __version__; cksolve.registry: the command table's
    fronts = [m for m in edges if m == "cksolve.cli" or m.startswith("cksolve.cli.")]
    assert len(fronts) > 5
    for front in fronts:
        outside = {d for d in edges[front] if not d.startswith("cksolve.cli")}
        assert outside <= faces, (front, sorted(outside - faces))


@pytest.mark.slow
def test_commands_that_do_not_emit_do_not_load_emit():
    """Output writing lives in ``cksolve.outputs``: a listing with ``--output`` never imports ``cksolve.emit``."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        code = ("import sys\nfrom cksolve.cli import main\n"
                "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
                "print(sorted(m for m in sys.modules if m.startswith('cksolve.emit')))")
        for argv in (["enumerate", "-r", "tiny", "-a", "gfx942", "-o", f"{tmp}/names.txt"],
                     ["count", "-r", "default"], ["archs"]):
            proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
            assert proc.stdout.splitlines()[-1] == "[]", (argv, proc.stdout[-300:])


def test_listing_commands_load_no_solver_library_they_do_not_use():
    """Start-up is most of a listing's time: ``enumerate``/``count`` of ``default`` must not import OR-Tools
    (0.5 s, through the cpsat backend), numpy or the workload layer (through the whole-space face's search),
    nor pydantic (90 ms: typer 0.29 coerces every option through it; pyproject.toml keeps typer below)."""
    import subprocess
    import sys

    code = ("import sys\nfrom cksolve.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ortools', 'numpy', 'pandas', 'pydantic')\n"
            "             or m.startswith('cksolve.workload')))")
    for argv in (["enumerate", "-r", "default", "-a", "gfx942"], ["count", "-r", "default"]):
        proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[-1] == "[]", (argv, proc.stdout.splitlines()[-1][:300])


def test_no_module_over_450_lines():
    """The house rule: small modules named after what they hold (split along meaning past 450 lines)."""
    package = TOOL.parents[1] / "cksolve"
    long = {f.relative_to(package).as_posix(): n for f in sorted(package.rglob("*.py"))
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > 450}
    assert not long, long


def test_a_module_basename_is_said_once_except_a_command_over_the_one_library_module_it_fronts():
    """A module's name says what it holds, so one name means one module: two ``report.py`` would make a reader (and a
    traceback) guess. The one exception is the thin CLI: ``cli/NAME.py`` may share its name with the ONE library module
    it fronts, that is the module it imports (or whose package it imports)."""
    g = _tool()
    everything = g.modules()
    edges = g.module_imports(everything)
    mods = {m: p for m, p in everything.items() if p.name != "__init__.py"}
    by_name: dict[str, list[str]] = {}
    for m in sorted(mods):
        by_name.setdefault(m.rsplit(".", 1)[1], []).append(m)
    repeats = {}
    for name, owners in by_name.items():
        library = [m for m in owners if not m.startswith("cksolve.cli.")]
        command = [m for m in owners if m.startswith("cksolve.cli.")]
        package = library[0].rsplit(".", 1)[0] if len(library) == 1 else ""
        fronts = {library[0], package} - {"cksolve"} if package else set()  # the top level is no package to front
        fronted = len(library) == 1 and all(fronts & edges[c] for c in command)
        if len(owners) > 1 and not fronted:
            repeats[name] = owners
    assert not repeats, repeats
