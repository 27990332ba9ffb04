"""Every 97-column feature row comes from one maker (``features.RowMaker``), and ``ml`` reads ``features``
through its face only.

The four places that used to join the blocks themselves -- ``features``' row tuples, its parquet column
blocks, training rows (``ml``) and the model scorer's -- must all give rows that carry what the maker's
blocks carry: the maker's block functions are replaced by ones that mark a column of each block, and every
row of every site must show the four marks. Measurements here are MADE UP (``cksolve.ml.madeup``).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

import cksolve
import cksolve.features
from cksolve.features import FEATURE_NAMES, RowMaker, features
from cksolve.rulesets import Combo, get_rule_set
from cksolve.workload import parse_problem

PROBLEMS = ("N=2,C=64,K=128,Hi=14,Wi=14,Y=3,X=3,pad_h=1,pad_w=1", "N=1,G=2,C=32,K=64,Hi=9,Wi=9,Y=1,X=1")
COMBO = Combo("gfx950", "forward", "bf16", 2)
MARK = -7.5
#: one column of each block: problem, kernel, interactions, hardware
MARKED = ("is_small_batch_grouped", "is_mem", "problem_smaller_than_tile_k", "hw_num_xcd")


@pytest.fixture
def marked(monkeypatch):
    """The maker's four block functions, each writing MARK into its last column."""
    import cksolve.features.rows as rows

    for name in ("problem_block", "kernel_block", "interactions", "hardware_block"):
        real = getattr(rows, name)
        monkeypatch.setattr(rows, name, lambda *a, _real=real, **k: (*_real(*a, **k)[:-1], MARK))
    return [FEATURE_NAMES.index(c) for c in MARKED]


def _problems():
    return [parse_problem(p) for p in PROBLEMS]


def _check(rows, at, where):
    rows = np.asarray(rows, dtype=np.float64)
    assert len(rows), where
    assert (rows[:, at] == MARK).all(), (where, rows[:, at][:3])


def test_features_rows_and_parquet_blocks_come_from_the_maker(marked):
    from cksolve.features.table import iter_features

    table = features(get_rule_set("tiny"), [COMBO], _problems())
    _check([r[:97] for r in table.rows], marked, "features rows")
    _, rows, _ = iter_features(get_rule_set("tiny"), [COMBO], _problems())
    got = []
    for batch in rows.column_batches(7):  # (distinct values, index per row) per column
        got.extend(zip(*([values[i] for i in index] for values, index in batch[:97])))
    _check(got, marked, "parquet column blocks")
    assert len(got) == len(table.rows)


def test_training_rows_come_from_the_maker(marked, tmp_path):
    pytest.importorskip("lightgbm")
    from cksolve.ml import read_measurements
    from cksolve.ml.madeup import made_up_rows
    from cksolve.ml.training_data import CK_COLUMNS
    from cksolve.ml.selector import kernel_data
    from cksolve.ml.training import resolved_kernels, train_data

    path = tmp_path / "m.csv"
    path.write_text(",".join(CK_COLUMNS) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in made_up_rows(3, 1, 6)))
    m = read_measurements([str(path)])
    _check(train_data(m, "gfx950", "bf16", "ck-names").x, marked, "train --like-ck rows")
    _check(kernel_data(m, resolved_kernels(m, "gfx950"), "gfx950", "bf16", "exact").x, marked, "train rows")


class _Model:
    """A model directory's face as the scorer reads it; keeps the rows it is asked to predict."""

    spec: dict = {}
    semantics = "ck"

    def __init__(self):
        self.seen = []

    def predict(self, rows):
        self.seen.append(rows)
        return np.zeros(len(rows))


def _scorer():
    from cksolve.scoring.model_scorer import ModelScorer

    scorer = ModelScorer.__new__(ModelScorer)
    scorer.path, scorer.model, scorer._rows, scorer.predicted = "m", _Model(), {}, 0
    return scorer


def _pairs():
    table = features(get_rule_set("tiny"), [COMBO], _problems())
    from cksolve.space.naming import parse_name

    problems = _problems()
    return table, [(problems[r[-2]], parse_name(r[-1])) for r in table.rows]


def test_the_model_scorer_rows_come_from_the_maker(marked):
    _, pairs = _pairs()
    scorer = _scorer()
    scorer.score(pairs, "gfx950", "bf16")
    _check(np.concatenate(scorer.model.seen), marked, "model scorer rows")


def test_the_four_sites_give_the_same_rows_on_a_sample():
    """Unmarked: the scorer's rows (each distinct one), the maker's block and the features rows are the same
    doubles for the same pairs."""
    table, pairs = _pairs()
    scorer = _scorer()
    scorer.score(pairs, "gfx950", "bf16")
    want = np.array([r[:97] for r in table.rows], dtype=np.float64)
    seen = np.concatenate(scorer.model.seen)
    assert {r.tobytes() for r in seen} == {r.tobytes() for r in want}
    maker = RowMaker("gfx950", "bf16", "ck")
    by_problem: dict = {}
    for p, c in pairs:
        by_problem.setdefault(p, []).append(c)
    assert maker.blocks(by_problem.items()).tobytes() == want.tobytes()
    assert [maker.row(p, c) for p, c in pairs] == [r[:97] for r in table.rows]  # ints stay ints, as csv prints


def _features_imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of each ``from ... import`` in ``path`` that reaches into ``cksolve.features``."""
    package = "cksolve." + ".".join(path.relative_to(Path(cksolve.__file__).parent).parent.parts)
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            module = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module
            if module == "cksolve.features" or module.startswith("cksolve.features."):
                out.extend((module, a.name) for a in node.names)
    return out


def test_ml_and_the_model_scorer_import_only_the_features_face():
    root = Path(cksolve.__file__).parent
    files = sorted((root / "ml").glob("*.py")) + [root / "scoring" / "model_scorer.py"]
    seen = [(f.name, m, n) for f in files for m, n in _features_imports(f)]
    assert seen  # ml reads features (FEATURE_NAMES, RowMaker, ...)
    private = [s for s in seen if s[1] != "cksolve.features" or s[2] not in cksolve.features.__all__]
    assert not private, private


def test_select_takes_configs_from_the_column_engine(monkeypatch):
    """``select`` ranks the engine's configs: no kernel name is parsed back into a config on the way."""
    import cksolve.space.naming as naming
    from cksolve.scoring import get_scorer
    from cksolve.scoring import select

    def refuse(*a, **k):
        raise AssertionError("select parsed a kernel name")

    monkeypatch.setattr(naming, "parse_name", refuse)
    module = importlib.import_module("cksolve.scoring.ranking")  # the package's ``select`` is the function
    monkeypatch.setattr(module, "parse_name", refuse, raising=False)
    records = list(select(_problems(), get_rule_set("tiny"), "gfx950", "bf16", get_scorer("analytic"), top=2))
    assert [r.rank for r in records] == [1, 2, 1, 2]
