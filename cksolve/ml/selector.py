"""``cksolve train``'s default trainer: a kernel selector, its objective chosen on CK's folds.

What the real measurements asked for (docs/selection.md, "On real measurements"),
and what this trainer does differently from CK's (``training``, ``train --like-ck``):

* **rows are kernels, not labels**: each label resolves to the kernel it
  measured (``workload.labels``: a full name is itself, a dispatcher short name
  the ``default`` kernel CK's runner built for it, a label map first); labels
  that measured one kernel are one row per problem, their mean TFLOPS;
* **exact features** (``features.RowMaker``'s ``exact`` semantics): the resolved kernel's true
  waves, warp tile, double buffering and vectors, not CK's reading of the name;
* **a within-problem objective**: what a selector needs is the order of the
  kernels of one problem, not TFLOPS across problems. Candidates
  (``OBJECTIVES``): ``efficiency``, a regression of each kernel's share of the
  problem's best measured TFLOPS; ``lambdarank``, LightGBM's ranking objective
  with the problem as its query and relevance the share in bins of 5% above
  half (``RELEVANCE``); ``log-tflops``, CK's target (log1p TFLOPS) on the same
  rows and features;
* **smaller trees** (``PARAMS``, ``TREES``): 15 leaves, 500 trees at a rate of
  0.05 (CK: 255 leaves, 2000 trees at 0.02), chosen by CK's folds on the
  shared real file (``benchmarks/bench_train_real.py``).

With ``folds`` >= 2 every candidate is cross-validated on CK's folds (``folds``)
and the one with the highest mean efficiency of its picks over the held-out
problems wins (then the higher P10, then ``OBJECTIVES`` order); with no
folds the first of ``OBJECTIVES`` is trained. A pick is the kernel scored
highest among the problem's measured kernels (ties: the first by name); its
efficiency is its TFLOPS over the problem's best. ``cv_metrics.json`` holds
every candidate's figures, which won and why. The final model is fitted on all
rows. The fits run one LightGBM thread each with ``deterministic``, side by
side on ``jobs`` threads (``fits.run_fits``): the bytes do not depend on ``jobs``.

Such a model is not a TFLOPS model over CK's reading of names, so CK's Predictor
would compute other features and read the scores as TFLOPS: the spec says so
(``ck_predictor``; ``cksolve_score`` is what the scores are), and so does
``train``'s output.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ..errors import CksolveError
from ..features import FEATURE_NAMES, RowMaker
from .efficiency import picks, summary
from .fits import THREADS, run_fits
from .folds import ck_folds, ck_group_key
from .lgbm import lightgbm
from .training_data import Measurements

__all__ = ["OBJECTIVES", "PARAMS", "TREES", "RELEVANCE", "SCORES", "KernelData", "kernel_data", "cross_validate",
           "choose", "fit_objective", "lgb_params", "relevance", "ck_predictor_note"]

#: The candidate objectives, in the order a tie is broken in
OBJECTIVES = ("efficiency", "lambdarank", "log-tflops")
#: What a model's scores are, by objective (``cksolve_score`` in its spec)
SCORES = {"efficiency": "efficiency", "lambdarank": "rank", "log-tflops": "tflops"}
#: LightGBM parameters of every candidate (besides the objective): chosen on CK's folds of the real file
PARAMS = {"num_leaves": 15, "learning_rate": 0.05, "min_data_in_leaf": 10, "feature_fraction": 0.85,
          "lambda_l2": 0.5}
#: Trees of each fit (no early stopping: a fold's held-out rows choose nothing in it)
TREES = 500
#: lambdarank's relevance: the share of the problem's best in bins of ``step`` from ``floor`` (0 below it)
RELEVANCE = {"floor": 0.5, "step": 0.05, "top": 10}


@dataclass
class KernelData:
    """One row per measured (problem, kernel), problems in file order and kernels in name order within each."""

    x: np.ndarray  # rows x 97
    tflops: np.ndarray  # the kernel's TFLOPS on the problem (its labels' mean)
    share: np.ndarray  # tflops / the problem's best
    problems: np.ndarray  # the problem, as an index
    name_rank: np.ndarray  # the kernel's position in name order (ties)
    kernels: list  # full kernel names, in name order
    labels: int  # labels read
    keys: list = field(default_factory=list)  # CK's group key of each problem
    counts: list = field(default_factory=list)  # rows CK reads of each problem


def kernel_data(m: Measurements, kernels: dict, arch: str, dtype: str, semantics: str) -> KernelData:
    """The rows of measurements ``m`` whose labels are resolved in ``kernels`` ({label: KernelName with a
    config}): one per (problem, kernel), its labels' TFLOPS averaged."""
    maker = RowMaker(arch, dtype, semantics)
    config_of = {label: k.config for label, k in kernels.items()}
    names = sorted({c.name() for c in config_of.values()})
    rank = {n: i for i, n in enumerate(names)}
    batch, t, s, p, r, keys, counts = [], [], [], [], [], [], []
    for pid, (problem, measured) in enumerate(m.by_problem.items()):
        got: dict = {}
        for label in sorted(measured):
            c = config_of[label]
            got.setdefault(c.name(), (c, []))[1].append(measured[label])
        best = max(float(np.mean(v)) for _c, v in got.values())
        batch.append((problem, [got[name][0] for name in sorted(got)]))
        for name in sorted(got):
            c, values = got[name]
            tflops = float(np.mean(values))
            t.append(tflops)
            s.append(tflops / best)
            p.append(pid)
            r.append(rank[name])
        keys.append(ck_group_key(problem))
        counts.append(m.counts.get(problem, len(measured)))
    return KernelData(maker.blocks(batch), np.array(t), np.array(s), np.array(p), np.array(r), names,
                      len(config_of), keys, counts)


def relevance(share: np.ndarray) -> np.ndarray:
    """lambdarank's integer relevance of each share of the problem's best (``RELEVANCE``)."""
    rel = np.floor((share - RELEVANCE["floor"]) / RELEVANCE["step"] + 1e-9)
    return np.clip(rel, 0, RELEVANCE["top"]).astype(np.int64)


def lgb_params(objective: str, seed: int, trees: int) -> dict:
    """LightGBM's parameters of one candidate, deterministic on one thread."""
    if objective not in OBJECTIVES:
        raise CksolveError(f"{{opt:objective}} {objective!r}: valid: auto, {', '.join(OBJECTIVES)}")
    lgb_objective = "lambdarank" if objective == "lambdarank" else "regression"
    return {"objective": lgb_objective, **PARAMS, "seed": seed, "num_threads": THREADS, "deterministic": True,
            "force_row_wise": True, "verbosity": -1, "num_iterations": trees}


def _target(d: KernelData, objective: str) -> np.ndarray:
    if objective == "efficiency":
        return d.share
    if objective == "lambdarank":
        return relevance(d.share)
    return np.log1p(d.tflops)


def fit_objective(lgb, d: KernelData, objective: str, rows: np.ndarray | None, seed: int, trees: int, check=None):
    """A booster of ``objective`` on ``rows`` of ``d`` (all when None); rows of a problem stay adjacent, so a
    problem is one lambdarank query."""
    idx = np.arange(len(d.tflops)) if rows is None else rows
    y = _target(d, objective)[idx]
    group = None
    if objective == "lambdarank":
        pid = d.problems[idx]
        starts = np.flatnonzero(np.r_[True, pid[1:] != pid[:-1]])
        group = np.diff(np.r_[starts, len(pid)])
    data = lgb.Dataset(d.x[idx], label=y, group=group, feature_name=list(FEATURE_NAMES),
                       categorical_feature=[FEATURE_NAMES.index("pipeline")], free_raw_data=True,
                       params={"verbosity": -1})
    return lgb.train(lgb_params(objective, seed, trees), data, callbacks=[check] if check else [],
                     keep_training_booster=True)


def _fold(lgb, d: KernelData, objective: str, tr, va, seed: int, trees: int, check) -> tuple:
    booster = fit_objective(lgb, d, objective, tr, seed, trees, check)
    pred = booster.predict(d.x[va], num_threads=THREADS)
    _ids, effs, ranks, _rows = picks(d.problems[va], d.tflops[va], pred, d.name_rank[va])
    return effs, ranks


def cross_validate(d: KernelData, objectives, folds: int, seed: int, trees: int, jobs: int,
                   final: str | None = None) -> tuple:
    """(the final booster of ``final`` on every row or None, {objective: its CV record}) on CK's folds; the
    fits run on ``jobs`` threads, the final one first (the longest)."""
    lgb = lightgbm()
    splits = ck_folds(d.keys, d.counts, np.array([d.keys[i] for i in d.problems], dtype=object), folds)
    tasks = [functools.partial(fit_objective, lgb, d, final, None, seed, trees)] if final else []
    tasks += [functools.partial(_fold, lgb, d, o, tr, va, seed, trees) for o in objectives for tr, va in splits]
    got = run_fits(tasks, jobs)
    booster = got.pop(0) if final else None
    records = {}
    for i, objective in enumerate(objectives):
        per = got[i * len(splits):(i + 1) * len(splits)]
        if not per:
            continue
        effs = np.concatenate([e for e, _r in per])
        ranks = np.concatenate([r for _e, r in per])
        records[objective] = {"objective": objective, **summary(effs, ranks),
                              "fold_means": [float(np.mean(e)) for e, _r in per]}
    return booster, records


def choose(records: dict) -> tuple[str, str]:
    """(the winning objective, why): the highest mean efficiency over the held-out problems, then P10, then
    ``OBJECTIVES`` order."""
    order = sorted(records.values(), key=lambda r: (-r["mean"], -r["p10"], OBJECTIVES.index(r["objective"])))
    win = order[0]
    pct = lambda v: f"{100 * v:.2f}%"  # noqa: E731
    why = (f"highest mean efficiency of its picks over {win['problems']} held-out problems (CK's folds): "
           f"{pct(win['mean'])}, P10 {pct(win['p10'])}, top-1 {pct(win['top1'])}")
    if len(order) > 1:
        why += "; " + ", ".join(f"{r['objective']} {pct(r['mean'])}" for r in order[1:])
    return win["objective"], why


def ck_predictor_note(objective: str, semantics: str) -> str | None:
    """Why CK's Predictor cannot use a model of this objective and semantics (None: it can)."""
    why = []
    if SCORES[objective] != "tflops":
        what = "shares of the problem's best" if objective == "efficiency" else "ranking scores"
        why.append(f"its scores are {what}, not TFLOPS")
    if semantics == "exact":
        why.append("it reads exact kernel features, not CK's reading of names")
    return "; ".join(why) or None
