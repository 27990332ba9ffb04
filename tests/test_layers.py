"""Imports run one way, bottom to top, with no cycle (``tools/import_graph.py`` draws the graph)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

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


def test_every_top_level_part_has_a_layer():
    g = _tool()
    parts = {g.layer_of(m) for m in g.modules()} - {"__init__"}
    assert parts <= set(g.LAYERS), sorted(parts - set(g.LAYERS))


def test_the_check_catches_an_upward_import_and_a_cycle():
    g = _tool()
    edges = {"cksolve.space.axes": {"cksolve.solver.model"}, "cksolve.solver.model": {"cksolve.space.axes"}}
    assert g.upward(edges) == ["cksolve.space.axes -> cksolve.solver.model"]
    assert g.cycles(edges) == [["cksolve.solver.model", "cksolve.space.axes"]]


def test_the_cli_reaches_the_library_only_through_its_faces():
    g = _tool()
    edges = g.module_imports(g.modules())
    faces = {"cksolve.query", "cksolve.workload", "cksolve.features", "cksolve.audit", "cksolve.emit",
             "cksolve.formats", "cksolve.outputs", "cksolve.errors"}
    fronts = [m for m in edges if m == "cksolve.cli" or m.startswith("cksolve.cli.")]
    assert len(fronts) > 5
    for front in fronts:
        outside = {d for d in edges[front] if not d.startswith("cksolve.cli")}
        assert outside <= faces, (front, sorted(outside - faces))
