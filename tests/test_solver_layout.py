"""The solver's rooms: the model and the backends at its top, one sub-package per concern below them, and the
optimisation models beside their one user (the minimum cover beside the derived rule sets, the search's
CP-SAT model beside the search)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "cksolve"

#: sub-package -> its modules (without __init__)
CONCERNS = {
    "engine": {"direct", "conditioning", "counting", "solve_plan", "relations", "solutions", "verdicts"},
    "listing": {"combos", "name_texts", "spelled", "stream"},
    "sampling": {"uniform", "draws", "batch_decode"},
    "questions": {"evaluate", "explain", "neighborhood"},
}


def _modules(folder: Path) -> set[str]:
    return {f.stem for f in folder.glob("*.py")} - {"__init__"}


def test_the_solver_top_holds_the_model_and_the_backends_only():
    solver = PACKAGE / "solver"
    assert _modules(solver) == {"model", "backend_protocol", "backends", "direct_backend", "cpsat", "pyconstraint"}
    assert {p.name for p in solver.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(CONCERNS)


def test_each_concern_lives_in_its_sub_package_with_a_face():
    for room, modules in CONCERNS.items():
        folder = PACKAGE / "solver" / room
        assert _modules(folder) == modules, room
        init = (folder / "__init__.py").read_text(encoding="utf-8")
        assert init.startswith('"""') and "__all__" in init, room


def test_the_optimisation_models_sit_beside_their_users():
    assert (PACKAGE / "derived" / "cover.py").is_file() and (PACKAGE / "derived" / "subsets.py").is_file()
    assert (PACKAGE / "explore" / "score_model.py").is_file() and (PACKAGE / "explore" / "search.py").is_file()
    assert not list(PACKAGE.glob("solver/**/cover.py")) and not list(PACKAGE.glob("solver/**/score_model.py"))
