"""The README's test command passes in a checkout without ``../shared``: a test reading CK's reference data
says so (``@pytest.mark.ck_data``, the ``ck`` fixture, ``require_ck()``), so it skips with the reason there."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: names that hold a path into shared/ (conftest's)
DATA_NAMES = {"CK", "SHARED"}
#: calls that skip without the data themselves (a test may also ``pytest.skip`` on its own test of the data)
SKIPPING = {"require_ck", "oracle", "oracle_develop", "ck_available", "skip"}


def _marked(node, module_marks: bool) -> bool:
    for d in node.decorator_list:
        if "ck_data" in ast.unparse(d):
            return True
    return module_marks


def _unmarked_readers(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module_marks = any(isinstance(s, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in s.targets)
                       and "ck_data" in ast.unparse(s.value) for s in tree.body)
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
            continue
        if _marked(node, module_marks) or "ck" in {a.arg for a in node.args.args}:
            continue
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        if names & DATA_NAMES and not names & SKIPPING:
            out.append(f"{path.name}:{node.lineno}: {node.name}")
    return out


def test_every_test_reading_shared_data_is_marked():
    found = [hit for path in sorted(TESTS.glob("test_*.py")) for hit in _unmarked_readers(path)]
    assert not found, "tests reading ../shared without @pytest.mark.ck_data:\n" + "\n".join(found)


def test_the_check_sees_an_unmarked_reader(tmp_path):
    path = tmp_path / "test_x.py"
    path.write_text("import pytest\n\ndef test_a():\n    (CK / 'x').read_text()\n\n"
                    "@pytest.mark.ck_data\ndef test_b():\n    (CK / 'x').read_text()\n\n"
                    "def test_c(ck):\n    (CK / 'x').read_text()\n")
    assert _unmarked_readers(path) == ["test_x.py:3: test_a"]
