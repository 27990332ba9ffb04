"""``ml.leafsum``: LightGBM's predictions bit for bit, from its leaves summed in its order.

The models here are trained on MADE-UP data (random numbers) only to have trees
with every kind of split: numerical, categorical, NaN-as-missing and
zero-as-missing, and rows that hit each (NaN, zeros, values at thresholds).
"""

from __future__ import annotations

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")

from cksolve.ml import leafsum  # noqa: E402
from cksolve.ml.leafsum import leaf_sum  # noqa: E402


def _data(seed: int, rows: int = 3000, nan: bool = True):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 6))
    x[:, 2] = rng.integers(0, 7, rows)  # categorical
    x[:, 3] = np.where(rng.random(rows) < 0.3, 0.0, x[:, 3])  # zeros (zero_as_missing)
    if nan:
        x[rng.random(rows) < 0.1, 4] = np.nan
    y = x[:, 0] * 2 + np.sin(x[:, 1]) + (x[:, 2] % 3) + np.nan_to_num(x[:, 4]) + rng.normal(0, 0.1, rows)
    return x, y


def _booster(params: dict, seed: int = 1, trees: int = 120, label=None):
    x, y = _data(seed)
    params = {"verbose": -1, "num_leaves": 31, "learning_rate": 0.1, "deterministic": True, "seed": 3, **params}
    ds = lgb.Dataset(x, label=y if label is None else label(y), categorical_feature=[2], free_raw_data=False)
    return lgb.train(params, ds, num_boost_round=trees)


def _rows(seed: int):
    x, _ = _data(seed, 2000)
    x[:50, 3] = 0.0
    x[50:60, 3] = 1e-40  # below LightGBM's zero threshold
    x[60:80] = np.nan
    x[80:90, 2] = -1.0  # a negative category
    x[90:100, 2] = 40.0  # a category never seen
    return x


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


@pytest.mark.parametrize("params", [{"objective": "regression"}, {"objective": "regression", "zero_as_missing": True},
                                    {"objective": "huber"}, {"objective": "regression", "num_leaves": 255,
                                                                  "min_data_in_leaf": 2}])
def test_equal_to_booster_predict_bit_for_bit(params, monkeypatch):
    booster = _booster(params)
    text = booster.model_to_string()
    loaded = lgb.Booster(model_str=text)
    fast = leaf_sum(loaded, text)
    assert fast is not None
    x = _rows(5)
    assert _same(fast.predict(x[:0], 2), loaded.predict(x[:0])) and fast.checked is None  # no rows: no check
    monkeypatch.setattr(leafsum, "BLOCK", 7)  # blocks that do not divide the trees
    monkeypatch.setattr(leafsum, "ROWS", 300)  # and several passes over the rows
    for threads in (1, 2):
        want = loaded.predict(x, num_threads=threads)
        got = fast.predict(x, threads)
        assert fast.checked
        bad = np.flatnonzero(got.view(np.int64) != want.view(np.int64))
        assert not len(bad), f"{params}: rows {bad[:5].tolist()} differ: {got[bad[:3]]} vs {want[bad[:3]]}"
    assert _same(fast.predict(x[:0], 2), loaded.predict(x[:0]))


@pytest.mark.parametrize("params", [{"objective": "poisson"}, {"objective": "regression", "reg_sqrt": True},
                                    {"objective": "multiclass", "num_class": 3}, {"objective": "regression",
                                                                                  "linear_tree": True},
                                    {"objective": "regression", "boosting": "rf", "bagging_freq": 1,
                                     "bagging_fraction": 0.5}])
def test_models_whose_output_is_not_the_sum_are_left_to_lightgbm(params):
    label = (lambda y: np.abs(y)) if params["objective"] == "poisson" else (
        (lambda y: np.digitize(y, [0.0, 2.0])) if params["objective"] == "multiclass" else None)
    booster = _booster(params, trees=10, label=label)
    text = booster.model_to_string()
    assert leaf_sum(lgb.Booster(model_str=text), text) is None, params


def test_a_disagreeing_model_falls_back_to_lightgbm():
    """The guard: leaf values that do not give LightGBM's answer (here: tampered) are noticed on the first call,
    and LightGBM predicts from then on."""
    booster = _booster({"objective": "regression"}, trees=20)
    text = booster.model_to_string()
    fast = leaf_sum(booster, text)
    fast.values = fast.values + 1e-9
    x = _rows(6)
    assert _same(fast.predict(x, 2), booster.predict(x, num_threads=2)) and fast.checked is False
