"""``cksolve train``: the entry (``train``), and CK's trainer (``train --like-ck``): a LightGBM model of TFLOPS
with CK's defaults, as a CK model directory. The default trainer is ``selector``'s.

What CK's ``dispatcher/heuristics/train.py`` (@abe93a40fde26aa2d1a5ea851789e59ba01422c6,
read in ``../shared/ck/ml/pipeline.md`` section 2) does, and where this differs:

* target log1p(tflops) (``log_targets: ["tflops"]``), rows with tflops > 0;
* CK's hyper-parameters (``CK_PARAMS``), ``pipeline`` categorical by column index;
* cross-validation: CK's folds exactly (``folds``: GroupKFold(min(folds, groups))
  over CK's key strings ``N_C_K_G_Hi_Wi_Y_X_Di_Z_dilation_h_dilation_w``, with
  CK's rows per group), skipped under 2 groups; each fold early-stops when its
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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CksolveError
from ..features import FEATURE_NAMES, MODEL_SEMANTICS, KernelName, RowMaker
from ..workload.hygiene import HygieneOptions
from ..workload.labels import LabelResolver
from .efficiency import picks, summary
from .fits import THREADS, default_jobs, fit, run_fits
from .folds import GROUP_KEY, ck_folds, ck_group_key
from .lgbm import lightgbm
from .training_data import Measurements, read_measurements
from .modeldir import write_model_dir
from .selector import (OBJECTIVES, PARAMS, SCORES, TREES, choose, ck_predictor_note, cross_validate, fit_objective,
                       kernel_data)

__all__ = ["CK_PARAMS", "THREADS", "TrainData", "train_data", "train", "GROUP_KEY", "fit_all", "resolved_kernels"]

#: CK's LGBMRegressor arguments (train.py), by its names
CK_PARAMS = {"objective": "regression", "metric": ["rmse", "mae"], "num_leaves": 255, "max_depth": 15,
             "n_estimators": 2000, "learning_rate": 0.02, "min_child_samples": 10, "subsample": 0.85,
             "colsample_bytree": 0.85, "reg_alpha": 0.05, "reg_lambda": 0.5, "seed": 42, "n_jobs": 8}


@dataclass
class TrainData:
    x: np.ndarray  # rows x 97
    y: np.ndarray  # measured TFLOPS
    groups: np.ndarray  # CK's group key string of each row's problem
    problems: np.ndarray  # the problem (every dimension), as an index
    name_rank: np.ndarray  # the kernel's position in name order (ties)
    measurements: Measurements
    keys: list = field(default_factory=list)  # CK's key of each problem, in problem order
    counts: list = field(default_factory=list)  # rows CK reads of each problem (its fold sizes)


def resolved_kernels(m: Measurements, arch: str, kernel_map: dict | None = None) -> dict:
    """{label: KernelName with its config}: full names as they parse, short labels resolved to the kernel CK's
    runner built for them (``workload.labels``; a label map first); one error naming a label that resolves to
    no kernel."""
    resolver = LabelResolver(arch, kernel_map)
    out = {}
    for name, k in m.kernels.items():
        config = k.config if k.config is not None and not kernel_map else resolver.config(name)
        out[name] = KernelName(name, k.short, config)
    return out


def train_data(m: Measurements, arch: str, dtype: str, semantics: str) -> TrainData:
    """One row per measured (problem, label); exact features of a short label are its resolved kernel's."""
    maker = RowMaker(arch, dtype, semantics)
    kernels = resolved_kernels(m, arch) if semantics == "exact" else m.kernels
    ranks = {n: i for i, n in enumerate(sorted(m.kernels))}
    batch, y, g, p, r = [], [], [], [], []
    keys = []
    for pid, (problem, measured) in enumerate(m.by_problem.items()):
        key = ck_group_key(problem)
        keys.append(key)
        batch.append((problem, [kernels[name] for name in sorted(measured)]))
        for name in sorted(measured):
            y.append(measured[name])
            g.append(key)
            p.append(pid)
            r.append(ranks[name])
    counts = [m.counts.get(problem, len(measured)) for problem, measured in m.by_problem.items()]
    return TrainData(maker.blocks(batch), np.array(y), np.array(g, dtype=object), np.array(p),
                     np.array(r), m, keys, counts)


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
    """CK's folds (``folds.ck_folds``) as (train, validation) row indices; none under 2 groups or folds."""
    return ck_folds(d.keys, d.counts, d.groups, folds)


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
            "val_size": int(len(va)), "val_groups": int(len(set(d.groups[va].tolist()))),
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


def _timestamp(paths) -> str | None:
    """The newest file's modification time; None when every input was stdin (``-``: it has no time of its own)."""
    files = [p for p in paths if str(p) != "-"]
    if not files:
        return None
    newest = max(os.stat(p).st_mtime for p in files)
    return _dt.datetime.fromtimestamp(int(newest), _dt.timezone.utc).isoformat()


#: ``--trees`` and ``--seed`` bounds (docs/cli.md): CK trains 2000 trees; LightGBM's seed is a C int
MAX_TREES, MAX_SEED = 100_000, 2**31 - 1


def train(paths: list, arch: str, dtype: str, variant: str, out: str | Path, seed: int = 42, folds: int = 5,
          trees: int | None = None, semantics: str | None = None, gz: bool = False, jobs: int | None = None,
          hygiene: HygieneOptions | None = None, like_ck: bool = False, objective: str = "auto") -> dict:
    """Train on the measurement files and write the model directory ``out``; returns the CV summary.

    ``like_ck``: CK's trainer (module docstring; ``trees`` default 2000, ``semantics`` ck-names), a directory
    CK's Predictor loads. Otherwise cksolve's (``selector``: kernels, ``semantics`` default exact, ``objective``
    auto: the candidate that wins on CK's folds; ``trees`` default ``selector.TREES``). ``hygiene``: how rows are
    checked (default: ``HygieneOptions(arch)``, invalid rows dropped; its label map says which kernel a label
    measured); the verdict is the result's ``hygiene``. ``jobs``: fits run side by side (default: the cores
    this process may use); the bytes written do not depend on it."""
    if trees is None:
        trees = 2000 if like_ck else TREES
    semantics = semantics or ("ck-names" if like_ck else "exact")
    if not 1 <= trees <= MAX_TREES:  # 2**31 overflowed LightGBM's int; 10**20 trained until killed
        raise CksolveError(f"{{opt:trees}} {trees} is out of range: 1..{MAX_TREES:,}")
    if not 0 <= seed <= MAX_SEED:  # LightGBM's seed is a C int: a larger one wrapped while the spec kept it
        raise CksolveError(f"{{opt:seed}} {seed} is out of range: 0..{MAX_SEED} (LightGBM's seed is a 32-bit int)")
    if folds < 0 or folds == 1:  # one fold would have nothing to validate on: trained silently without CV
        raise CksolveError(f"{{opt:folds}} {folds}: 0 (no cross-validation) or at least 2")
    if semantics not in MODEL_SEMANTICS:
        raise CksolveError(f"{{opt:semantics}} {semantics!r}: valid: {', '.join(MODEL_SEMANTICS)}")
    if jobs is not None and jobs < 1:
        raise CksolveError(f"{{opt:jobs}} {jobs} must be at least 1")
    if objective != "auto" and (like_ck or objective not in OBJECTIVES):
        raise CksolveError(f"{{opt:objective}} {objective!r}: valid: auto, {', '.join(OBJECTIVES)}"
                           + (" (CK's trainer has one: log1p TFLOPS)" if like_ck else ""))
    lightgbm()  # the missing extra is one line before the files are read
    hygiene = hygiene or HygieneOptions(arch)
    m = read_measurements(paths, variant, dtype, hygiene=hygiene)
    jobs = default_jobs() if jobs is None else jobs
    manifest = {"warm_start_from": None, "prev_n_estimators": 0, "new_n_estimators": trees,
                "total_n_estimators": trees, "data_rows": m.rows,
                "unique_shapes": len({tuple(getattr(p, f) for f in GROUP_KEY[:8]) for p in m.by_problem}),
                "timestamp": _timestamp(paths)}
    if m.made_up:  # rows cksolve.ml.madeup wrote: the model says it learnt no GPU (absent for measured data)
        manifest["made_up"] = True
    spec = {"op_type": "grouped_conv", "dtype": dtype, "arch": arch, "feature_names": list(FEATURE_NAMES),
            "categorical_features": ["pipeline"], "targets": ["tflops"]}
    if like_ck:
        return _train_like_ck(m, arch, dtype, variant, out, seed, folds, trees, semantics, gz, jobs, spec, manifest)
    return _train_kernels(m, arch, dtype, variant, out, seed, folds, trees, semantics, gz, jobs, spec, manifest,
                          objective, hygiene.kernel_map)


def _importances(text: str) -> dict:
    # the gains as the written model holds them (its text rounds them; the training booster's are unrounded):
    # what a Booster loaded from the directory reports
    gains = lightgbm().Booster(model_str=text).feature_importance("gain")
    return {n: float(v) for n, v in sorted(zip(FEATURE_NAMES, gains), key=lambda t: (-t[1], t[0]))}


def _train_like_ck(m, arch, dtype, variant, out, seed, folds, trees, semantics, gz, jobs, spec, manifest) -> dict:
    d = train_data(m, arch, dtype, semantics)
    booster, cv = fit_all(d, folds, seed, trees, jobs)
    params = {**CK_PARAMS, "n_estimators": trees, "seed": seed, "n_jobs": THREADS, "deterministic": True}
    spec = {**spec, "log_targets": ["tflops"], "params": params, "variant": variant,
            "cksolve_feature_semantics": semantics}
    manifest = {**manifest, "valid_rows": int(len(d.y))}
    manifest = {k: manifest[k] for k in ("warm_start_from", "prev_n_estimators", "new_n_estimators",
                                         "total_n_estimators", "data_rows", "valid_rows", "unique_shapes",
                                         "timestamp")}
    text = booster.model_to_string()
    cv_summary = {}
    if cv:
        cv_summary = {k: float(np.mean([f[k] for f in cv])) for k in ("rmse", "r2", "mean_efficiency",
                                                                        "p10_efficiency")}
    extra = {"cv_metrics_tflops.json": {"folds": cv, "mean": cv_summary},
             "feature_importances_tflops.json": _importances(text)}
    write_model_dir(out, text, spec, manifest, extra, gz)
    return {"rows": int(len(d.y)), "problems": len(m.by_problem), "kernels": len(m.kernels),
            "skipped": m.skipped, "folds": cv, "cv": cv_summary, "like_ck": True, "hygiene": m.hygiene, "made_up": m.made_up}


def _train_kernels(m, arch, dtype, variant, out, seed, folds, trees, semantics, gz, jobs, spec, manifest,
                   objective, kernel_map) -> dict:
    d = kernel_data(m, resolved_kernels(m, arch, kernel_map), arch, dtype, semantics)
    candidates = OBJECTIVES if objective == "auto" else (objective,)
    chosen = objective if objective != "auto" else None
    booster, records = cross_validate(d, candidates, folds, seed, trees, jobs, final=chosen)
    if records and chosen is None:
        chosen, why = choose(records)
    elif chosen is None:
        chosen, why = OBJECTIVES[0], "no cross-validation (--folds 0): the first candidate"
    else:
        why = "given (--objective)"
    if booster is None:
        booster = fit_objective(lightgbm(), d, chosen, None, seed, trees)
    note = ck_predictor_note(chosen, semantics)
    params = {"objective": "lambdarank" if chosen == "lambdarank" else "regression", **PARAMS, "n_estimators": trees, "seed": seed, "n_jobs": THREADS,
              "deterministic": True}
    spec = {**spec, "log_targets": ["tflops"] if chosen == "log-tflops" else [], "params": params,
            "variant": variant, "cksolve_feature_semantics": semantics, "cksolve_objective": chosen, "cksolve_score": SCORES[chosen],
            "ck_predictor": {"usable": note is None, **({"why_not": note} if note else {})}}
    manifest = {**manifest, "valid_rows": int(m.rows - m.skipped), "trainer": "cksolve",
                "kernel_rows": int(len(d.tflops)), "kernels": len(d.kernels), "labels": d.labels}
    text = booster.model_to_string()
    cv = {"trainer": "cksolve", "chosen": chosen, "why": why,
          "measure": "efficiency of each held-out problem's pick among its measured kernels (labels of one kernel "
                     "merged, mean TFLOPS); CK's folds by problem group",
          "folds": len(next(iter(records.values()))["fold_means"]) if records else 0,
          "candidates": [records[o] for o in candidates if o in records]}
    write_model_dir(out, text, spec, manifest, {"cv_metrics.json": cv, "feature_importances_tflops.json":
                                                _importances(text)}, gz)
    return {"rows": int(len(d.tflops)), "problems": len(m.by_problem), "kernels": len(d.kernels),
            "labels": d.labels, "skipped": m.skipped, "folds": cv["folds"], "cv": records.get(chosen, {}),
            "candidates": cv["candidates"], "objective": chosen, "why": why, "ck_predictor_note": note,
            "like_ck": False, "hygiene": m.hygiene, "made_up": m.made_up}


def evaluate_rows(model, m: Measurements, arch: str, dtype: str) -> dict:
    """The model's picks among each problem's measured kernels (``efficiency``): summary and per problem."""
    d = train_data(m, arch, dtype, model.semantics)
    pred = model.predict(d.x)
    ids, effs, ranks, rows = picks(d.problems, d.y, pred, d.name_rank)
    return {"summary": summary(effs, ranks), "ids": ids, "effs": effs, "ranks": ranks, "rows": rows, "data": d}
