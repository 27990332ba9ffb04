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
    from cksolve.arch.arch_constraints import gemm_constraints

    text = DOC.read_text(encoding="utf-8")
    missing = [c.name for c in gemm_constraints("gfx1201") if f"`{c.name}`" not in text]
    assert not missing, missing


def test_value_lists_in_the_cli_doc_are_the_facts():
    """docs/cli.md's lists of archs, variants, dtypes and rule sets are the data's (constraints.md is generated)."""
    import re

    from cksolve.arch.facts import BUNDLED_ARCHS
    from cksolve.rulesets import RULE_SETS

    cli = (DOC.parent / "cli.md").read_text(encoding="utf-8")
    row = re.search(r"^\| `--arch`, `-a` \| ([^|]+) \|", cli, re.M)
    assert row and row[1].strip() == ", ".join(BUNDLED_ARCHS), (row and row[1], BUNDLED_ARCHS)
    text = DOC.read_text(encoding="utf-8")
    assert f"Architectures: {', '.join(BUNDLED_ARCHS)}." in text
    assert all(f"### `{name}`" in text for name in RULE_SETS), list(RULE_SETS)


def test_user_docs_cite_no_internal_issue():
    """User docs speak to users: no internal issue numbers ("issue 31") or "the issue's targets" (a CK pull
    request cited as its repository's #N is a public source, not an internal issue)."""
    import re

    root = DOC.parents[1]
    found = []
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bissues? ?#?\d+|\bthe issue'?s?\b", line, re.I):
                found.append(f"{path.name}:{i}: {line.strip()[:100]}")
    assert not found, "\n".join(found)
