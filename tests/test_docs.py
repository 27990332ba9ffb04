"""The constraint reference is generated from the constraint data and must match it."""

from pathlib import Path

from cksolve.docs import constraints_page

DOC = Path(__file__).resolve().parents[1] / "docs" / "constraints.md"


def test_constraint_reference_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == constraints_page(), (
        "docs/constraints.md is stale: run `python -m cksolve.docs > docs/constraints.md`"
    )


def test_every_arch_constraint_is_documented():
    from cksolve.arch.constraints import gemm_constraints

    text = DOC.read_text(encoding="utf-8")
    missing = [c.name for c in gemm_constraints("gfx1201") if f"`{c.name}`" not in text]
    assert not missing, missing
