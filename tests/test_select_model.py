"""select with a model: its rows are the feature engine's, its predictions LightGBM's bit for bit, and no
problem or feature row is scored twice.

The model here is trained on MADE-UP measurements (``cksolve.ml.madeup``); nothing is claimed about a GPU.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("lightgbm")

from cksolve.features import FEATURE_NAMES, features  # noqa: E402
from cksolve.ml import read_model_dir  # noqa: E402
from cksolve.ml.training_data import CK_COLUMNS  # noqa: E402
from cksolve.ml.madeup import made_up_rows  # noqa: E402
from cksolve.features import RowMaker  # noqa: E402
from cksolve.ml.training import train  # noqa: E402
from cksolve.rulesets import Combo, get_rule_set  # noqa: E402
from cksolve.space.naming import parse_name  # noqa: E402
from cksolve.workload import applicable, parse_problem  # noqa: E402

SPECS = ("N=8,C=256,K=256,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1", "N=1,C=64,K=64,Hi=7,Wi=7",
         "N=2,C=128,K=256,Hi=14,Wi=14,Y=3,X=3,pad_h=1,pad_w=1,stride_h=2,stride_w=2")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("selmodel")
    with open(d / "m.csv", "w") as f:
        f.write(",".join(CK_COLUMNS) + "\n")
        for row in made_up_rows(40, 3, 30):
            f.write(",".join(map(str, row)) + "\n")
    train([d / "m.csv"], "gfx950", "bf16", "forward", d / "model", seed=7, folds=0, trees=60, like_ck=True)
    return d / "model"


def _kernels(p, rs="full"):
    return [parse_name(n) for n in applicable(p, get_rule_set(rs), "gfx950", "bf16") if n.startswith("grouped_conv_fwd_")]


def test_exact_rows_are_the_feature_engines_at_develop():
    """At develop (gfx950's LDS is 160 KB there, 64 KB in CK's engine profile) rows of an exact-semantics model
    equal ``features --semantics exact`` column for column, the hardware block included."""
    from cksolve.arch import versions

    p = parse_problem("N=2,C=64,K=128,Hi=14,Wi=14,Y=3,X=3,pad_h=1,pad_w=1")
    with versions.using(versions.resolve("develop")):
        t = features(get_rule_set("tiny"), [Combo("gfx950", "forward", "bf16", 2)], [p], "exact")
        assert t.rows
        maker = RowMaker("gfx950", "bf16", "exact")
        for row in t.rows:
            got = maker.row(p, parse_name(row[-1]))
            diff = [(FEATURE_NAMES[i], g, w) for i, (g, w) in enumerate(zip(got, row[:97])) if g != w]
            assert not diff, (row[-1], diff[:5])


@pytest.mark.parametrize("semantics", ["ck", "ck-names", "exact"])
def test_rows_block_is_row_by_row(semantics):
    """``RowMaker.block`` (the scorer's) gives the doubles ``row`` gives, kernel by kernel."""
    maker = RowMaker("gfx950", "bf16", semantics)
    for spec in SPECS:
        p = parse_problem(spec)
        ks = _kernels(p)[:300]
        got, want = maker.block(p, ks), np.array([maker.row(p, k) for k in ks], dtype=np.float64)
        assert got.shape == want.shape == (len(ks), 97)
        bad = np.argwhere(got.view(np.int64) != want.view(np.int64))
        assert not len(bad), (semantics, spec, [(FEATURE_NAMES[j], got[i, j], want[i, j]) for i, j in bad[:3]])
    assert maker.block(parse_problem(SPECS[0]), []).shape[0] == 0


def test_a_model_dir_predicts_what_lightgbm_predicts_bit_for_bit(model):
    """The leaf-sum path (``ml.leafsum``) on a model ``train`` wrote (categorical pipeline, log targets): the
    same doubles as LightGBM's own predict, then expm1 (CK's Predictor)."""
    m = read_model_dir(model)
    assert m.fast is not None and m.log_target
    maker = RowMaker("gfx950", "bf16", m.semantics)
    x = maker.blocks([(parse_problem(s), _kernels(parse_problem(s))) for s in SPECS])
    got, want = m.predict(x), np.expm1(m.booster.predict(x))
    assert m.fast.checked and np.array_equal(got.view(np.int64), want.view(np.int64))


def test_a_problem_met_again_is_not_scored_again(model, monkeypatch):
    """A file repeating problems (in one chunk or far apart) scores each distinct problem's rows once, and the
    copies get the same records."""
    import importlib

    from cksolve.scoring import get_scorer

    selection = importlib.import_module("cksolve.scoring.ranking")  # the module (the package exports the function)

    ps = [parse_problem(s) for s in SPECS]
    once = get_scorer("model", path=model)
    base = list(selection.select(ps, get_rule_set("full"), "gfx950", "bf16", once, top=4))
    for chunk in (1, 2, 64):
        monkeypatch.setattr(selection, "CHUNK", chunk)
        scorer = get_scorer("model", path=model)
        again = list(selection.select([ps[0], ps[1], ps[0], ps[2], ps[1], ps[0]], get_rule_set("full"), "gfx950",
                                      "bf16", scorer, top=4))
        assert scorer.predicted == once.predicted, chunk
        by_row = {}
        for r in again:
            by_row.setdefault(r.problem, []).append((r.rank, r.name, r.score, r.spec))
        first = {}
        for r in base:
            first.setdefault(r.problem, []).append((r.rank, r.name, r.score, r.spec))
        assert [by_row[i] for i in range(6)] == [first[j] for j in (0, 1, 0, 2, 1, 0)], chunk
    monkeypatch.setattr(selection, "CHUNK", 1)
    monkeypatch.setattr(selection, "_KEEP", 1)  # forgotten at once: scored again, to the same records
    scorer = get_scorer("model", path=model)
    again = list(selection.select([ps[0], ps[1], ps[0]], get_rule_set("full"), "gfx950", "bf16", scorer, top=4))
    assert [(r.rank, r.name, r.score) for r in again if r.problem == 2] == \
        [(r.rank, r.name, r.score) for r in base if r.problem == 0]


def test_lightgbm_loads_without_scikit_learn_and_both_still_work():
    """``ml.lgbm.lightgbm`` hides scikit-learn from lightgbm's import (its estimator classes are unused); a
    model still loads and predicts, and GroupKFold (train) still comes from scikit-learn."""
    code = ("import sys\nfrom cksolve.ml.lgbm import lightgbm, group_kfold\nlgb = lightgbm()\n"
            "assert 'sklearn' not in sys.modules and lgb.Booster\nassert group_kfold().__name__ == 'GroupKFold'\n"
            "assert lightgbm() is lgb\nprint('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr[-2000:]


def test_blocked_is_coverage_statement():
    """select's blocked_by is coverage's ``blocking`` (one statement), with the count the rule rejects."""
    from cksolve.scoring.ranking import _blocked
    from cksolve.workload.coverage import NO_KERNELS, CoverageRecord

    p = parse_problem(SPECS[1])
    none = CoverageRecord(0, p, "bf16", (), 0, (), blocked=NO_KERNELS)
    assert _blocked(none) == NO_KERNELS
    rule = CoverageRecord(0, p, "bf16", (), 14, (("apply.x", 10), ("apply.y", 4)), blocked="apply.x")
    assert _blocked(rule) == "apply.x (rejects 10 of 14)"
    assert _blocked(CoverageRecord(0, p, "bf16", ("a",), 1)).startswith("only depthwise kernels")
