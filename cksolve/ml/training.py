"""``cksolve train``: a LightGBM model of TFLOPS from measurements, with CK's defaults, as a CK model directory.

What CK's ``dispatcher/heuristics/train.py`` (@abe93a40fde26aa2d1a5ea851789e59ba01422c6,
read in ``../shared/ck/ml/pipeline.md`` section 2) does, and where this differs:

* target log1p(tflops) (``log_targets: ["tflops"]``), rows with tflops > 0;
* CK's hyper-parameters (``CK_PARAMS``), ``pipeline`` categorical by column index;
* cross-validation: GroupKFold(min(folds, groups)) over problem groups keyed
  ``N_C_K_G_Hi_Wi_Y_X_Di_Z_dilation_h_dilation_w`` (CK's key: stride and pad
  are not in it), skipped under 2 groups; each fold early-stops when its
  held-out rmse or mae (CK's metrics) has not improved for 50 rounds
  (``fits.EARLY_STOPPING``); ``cv_metrics_tflops.json`` holds per fold: fold,
  rmse, r2 (log space), mean_efficiency, p10_efficiency, train_size,
  val_size, val_groups (efficiency per problem, problems keyed by every dimension);
* the final model on all rows with the full number of trees;
* differences: kernels with ``_gm<g>``, ``_2stage`` or ``wavelet`` names are
  read (CK's parser drops them); the feature semantics are recorded
  (``cksolve_feature_semantics``); LightGBM runs with ``deterministic`` and
  one thread per fit (``fits.THREADS``), so the same data and seed give the
  same model bytes; the fits (folds and final model) run side by side on
  ``jobs`` threads (``fits``), which changes no byte; the manifest's
  timestamp is the newest measurement file's modification time (not the clock).
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import CksolveError
from ..features import FEATURE_NAMES
from ..workload.hygiene import HygieneOptions
from .efficiency import picks, summary
from .fits import THREADS, default_jobs, fit, run_fits
from .lgbm import group_kfold, lightgbm
from .measurements import Measurements, read_measurements
from .modeldir import write_model_dir
from .rows import MODEL_SEMANTICS, RowMaker

__all__ = ["CK_PARAMS", "THREADS", "TrainData", "train_data", "train", "GROUP_KEY", "fit_all"]

#: CK's LGBMRegressor arguments (train.py), by its names
CK_PARAMS = {"objective": "regression", "metric": ["rmse", "mae"], "num_leaves": 255, "max_depth": 15,
             "n_estimators": 2000, "learning_rate": 0.02, "min_child_samples": 10, "subsample": 0.85,
             "colsample_bytree": 0.85, "reg_alpha": 0.05, "reg_lambda": 0.5, "seed": 42, "n_jobs": 8}
#: CK's problem-group key for the folds
GROUP_KEY = ("N", "C", "K", "G", "Hi", "Wi", "Y", "X", "Di", "Z", "dilation_h", "dilation_w")


@dataclass
class TrainData:
    x: np.ndarray  # rows x 97
    y: np.ndarray  # measured TFLOPS
    groups: np.ndarray  # CK's group key, as an index
    problems: np.ndarray  # the problem (every dimension), as an index
    name_rank: np.ndarray  # the kernel's position in name order (ties)
    measurements: Measurements


def train_data(m: Measurements, arch: str, dtype: str, semantics: str) -> TrainData:
    rows = RowMaker(arch, dtype, semantics)
    ranks = {n: i for i, n in enumerate(sorted(m.kernels))}
    group_of: dict = {}
    x, y, g, p, r = [], [], [], [], []
    for pid, (problem, measured) in enumerate(m.by_problem.items()):
        key = tuple(getattr(problem, f) for f in GROUP_KEY)
        gid = group_of.setdefault(key, len(group_of))
        for name in sorted(measured):
            x.append(rows.row(problem, m.kernels[name]))
            y.append(measured[name])
            g.append(gid)
            p.append(pid)
            r.append(ranks[name])
    return TrainData(np.array(x, dtype=np.float64), np.array(y), np.array(g), np.array(p), np.array(r), m)


def lgb_params(seed: int, trees: int, threads: int = THREADS) -> dict:
    """CK_PARAMS in LightGBM's own names, made deterministic."""
    c = CK_PARAMS
    return {"objective": c["objective"], "metric": list(c["metric"]), "num_leaves": c["num_leaves"],
            "max_depth": c["max_depth"], "learning_rate": c["learning_rate"],
            "min_data_in_leaf": c["min_child_samples"],
            "bagging_fraction": c["subsample"], "feature_fraction": c["colsample_bytree"], "lambda_l1": c["reg_alpha"],
            "lambda_l2": c["reg_lambda"], "seed": seed, "num_threads": threads, "deterministic": True,
            "force_row_wise": True, "verbosity": -1, "num_iterations": trees}


def fold_splits(d: TrainData, folds: int) -> list:
    """CK's GroupKFold(min(folds, groups)) (train, validation) row indices; none under 2 groups or folds."""
    n_groups = int(d.groups.max()) + 1 if len(d.groups) else 0
    if n_groups < 2 or folds < 2:
        return []
    splitter = group_kfold()(n_splits=min(folds, n_groups))
    return list(splitter.split(d.x, d.y, d.groups))


def fold_metrics(lgb, d: TrainData, target: np.ndarray, fold: int, tr, va, seed: int, trees: int,
                 check=None) -> dict:
    """Fit fold ``fold`` (early stopping on its held-out rows) and its ``cv_metrics_tflops.json`` record."""
    booster, pred = fit(lgb, lgb_params(seed, trees), d.x[tr], target[tr], (d.x[va], target[va]),
                        [check] if check else ())
    resid = target[va] - pred
    rmse = float(np.sqrt(np.mean(resid ** 2)))
    total = float(np.sum((target[va] - target[va].mean()) ** 2))
    r2 = 1.0 - float(np.sum(resid ** 2)) / total if total > 0 else 0.0
    _ids, effs, _ranks, _rows = picks(d.problems[va], d.y[va], pred, d.name_rank[va])
    return {"fold": fold, "rmse": rmse, "r2": r2, "mean_efficiency": float(np.mean(effs)),
            "p10_efficiency": float(np.percentile(effs, 10)), "train_size": int(len(tr)),
            "val_size": int(len(va)), "val_groups": int(len(np.unique(d.groups[va]))),
            "val_problems": int(len(effs)), "best_iteration": int(booster.best_iteration or trees)}


def fit_all(d: TrainData, folds: int, seed: int, trees: int, jobs: int = 1):
    """(the final model on every row, the folds' records): the fits run on ``jobs`` threads (``fits``), the
    final model first as the longest; the result does not depend on ``jobs``."""
    lgb = lightgbm()
    target = np.log1p(d.y)
    tasks = [lambda check: fit(lgb, lgb_params(seed, trees), d.x, target, callbacks=[check])]
    tasks += [functools.partial(fold_metrics, lgb, d, target, i, tr, va, seed, trees)
              for i, (tr, va) in enumerate(fold_splits(d, folds))]
    booster, *cv = run_fits(tasks, jobs)
    return booster, cv


def _timestamp(paths) -> str:
    newest = max(os.stat(p).st_mtime for p in paths)
    return _dt.datetime.fromtimestamp(int(newest), _dt.timezone.utc).isoformat()


def train(paths: list, arch: str, dtype: str, variant: str, out: str | Path, seed: int = 42, folds: int = 5,
          trees: int = 2000, semantics: str = "ck-names", gz: bool = False, jobs: int | None = None,
          hygiene: HygieneOptions | None = None) -> dict:
    """Train on the measurement files and write the model directory ``out``; returns the CV summary.

    ``jobs``: fits run side by side (default: the cores this process may use); the bytes written do not
    depend on it. ``hygiene``: how rows are checked (default: ``HygieneOptions(arch)``, invalid rows dropped);
    the verdict is the result's ``hygiene``."""
    if trees < 1:
        raise CksolveError(f"{{opt:trees}} {trees} must be at least 1")
    if folds < 0 or folds == 1:  # one fold would have nothing to validate on: trained silently without CV
        raise CksolveError(f"{{opt:folds}} {folds}: 0 (no cross-validation) or at least 2")
    if semantics not in MODEL_SEMANTICS:
        raise CksolveError(f"{{opt:semantics}} {semantics!r}: valid: {', '.join(MODEL_SEMANTICS)}")
    if jobs is not None and jobs < 1:
        raise CksolveError(f"{{opt:jobs}} {jobs} must be at least 1")
    lightgbm()  # the missing extra is one line before the files are read
    m = read_measurements(paths, variant, dtype, hygiene=hygiene or HygieneOptions(arch))
    d = train_data(m, arch, dtype, semantics)
    booster, cv = fit_all(d, folds, seed, trees, default_jobs() if jobs is None else jobs)
    params = {**CK_PARAMS, "n_estimators": trees, "seed": seed, "n_jobs": THREADS, "deterministic": True}
    spec = {"op_type": "grouped_conv", "dtype": dtype, "arch": arch, "feature_names": list(FEATURE_NAMES),
            "categorical_features": ["pipeline"], "targets": ["tflops"], "log_targets": ["tflops"],
            "params": params, "variant": variant, "cksolve_feature_semantics": semantics}
    manifest = {"warm_start_from": None, "prev_n_estimators": 0, "new_n_estimators": trees,
                "total_n_estimators": trees, "data_rows": m.rows, "valid_rows": int(len(d.y)),
                "unique_shapes": len({tuple(getattr(p, f) for f in GROUP_KEY[:8]) for p in m.by_problem}),
                "timestamp": _timestamp(paths)}
    text = booster.model_to_string()
    # the gains as the written model holds them (its text rounds them; the training booster's are unrounded):
    # what a Booster loaded from the directory reports
    gains = lightgbm().Booster(model_str=text).feature_importance("gain")
    importances = {n: float(v) for n, v in sorted(zip(FEATURE_NAMES, gains), key=lambda t: (-t[1], t[0]))}
    cv_summary = {}
    if cv:
        cv_summary = {k: float(np.mean([f[k] for f in cv])) for k in ("rmse", "r2", "mean_efficiency",
                                                                        "p10_efficiency")}
    extra = {"cv_metrics_tflops.json": {"folds": cv, "mean": cv_summary},
             "feature_importances_tflops.json": importances}
    write_model_dir(out, text, spec, manifest, extra, gz)
    return {"rows": int(len(d.y)), "problems": len(m.by_problem), "kernels": len(m.kernels),
            "skipped": m.skipped, "folds": cv, "cv": cv_summary, "hygiene": m.hygiene}


def evaluate_rows(model, m: Measurements, arch: str, dtype: str) -> dict:
    """The model's picks among each problem's measured kernels (``efficiency``): summary and per problem."""
    d = train_data(m, arch, dtype, model.semantics)
    pred = model.predict(d.x)
    ids, effs, ranks, rows = picks(d.problems, d.y, pred, d.name_rank)
    return {"summary": summary(effs, ranks), "ids": ids, "effs": effs, "ranks": ranks, "rows": rows, "data": d}
