"""The constraint reference is generated from the constraint data and must match it."""

from pathlib import Path

from cksolve.docs import constraints_page

DOC = Path(__file__).resolve().parents[1] / "docs" / "constraints.md"


def test_constraint_reference_is_up_to_date():
    from cksolve.arch import versions

    with versions.using(versions.newest()):  # the page documents the default CK version
        page = constraints_page()
    assert DOC.read_text(encoding="utf-8") == page, (
        "docs/constraints.md is stale: run `python -m cksolve.docs > docs/constraints.md`"
    )


def test_every_arch_constraint_is_documented():
    from cksolve.arch.constraints import gemm_constraints

    text = DOC.read_text(encoding="utf-8")
    missing = [c.name for c in gemm_constraints("gfx1201") if f"`{c.name}`" not in text]
    assert not missing, missing


def test_value_lists_in_the_cli_doc_are_the_facts():
    """docs/cli.md's lists of archs, variants, dtypes and rule sets are the data's (constraints.md is generated)."""
    import re

    from cksolve.arch.facts import ARCHS
    from cksolve.rulesets import RULE_SETS

    cli = (DOC.parent / "cli.md").read_text(encoding="utf-8")
    row = re.search(r"^\| `--arch`, `-a` \| ([^|]+) \|", cli, re.M)
    assert row and row[1].strip() == ", ".join(ARCHS), (row and row[1], ARCHS)
    text = DOC.read_text(encoding="utf-8")
    assert f"Architectures: {', '.join(ARCHS)}." in text
    assert all(f"### `{name}`" in text for name in RULE_SETS), list(RULE_SETS)
