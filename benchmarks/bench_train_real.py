"""Which trainer selects best, on the REAL measurements: a cross-validation table on CK's folds.

The data is real: CK's tile-engine sweep of forward grouped-convolution kernels on a gfx950 GPU
(``shared/ck/measurements/training_data_forward_bf16_20.csv``: 185 problems x 20 labels, which are
13 kernels). Every row of the table is trained and scored on the same folds, CK's
(``cksolve.ml.folds``: GroupKFold(5) over CK's problem-group keys), and measured the same way: for
each held-out problem, the kernel the model scores highest among the 13 (labels of one kernel merged:
their mean TFLOPS), its TFLOPS over the problem's best; mean, P10 (numpy's linear percentile) and
top-1 (the pick is the fastest) over the 185 held-out problems.

Rows:

* ``analytic``: cksolve's performance model (its public scorer, so a shipped calibration is what
  is measured), no training;
* ``CK-like``: ``train --like-ck``: labels as rows, CK's reading of names, log1p TFLOPS, CK's
  parameters and 2000 trees; ``(CK's CV)`` early-stops each fold on its own held-out rows as CK's
  ``train.py`` does (what ``cv_metrics_tflops.json`` reports; the held-out rows choose the trees);
  ``(2000 trees)`` does not;
* the candidates of ``train``'s default (``cksolve.ml.selector``) and the variants they were chosen
  over: labels or kernels as rows, CK's reading of names (``ck-names``) or exact features, the
  analytic estimate as two more features (log TFLOPS, share of the problem's best estimate) or as a
  prior (LightGBM's initial score: the log of that share; the trees learn the log of the measured
  share on top), objectives (``log-tflops``, ``efficiency``: the share of the problem's best,
  ``lambdarank``), CK's parameters or the selector's (``small``: 15 leaves, 500 trees at 0.05);
* ``default``: what ``train`` does with no options (its own cross-validation, the winning objective).

    python benchmarks/bench_train_real.py [--csv FILE] [--only NAME,...] [--split ck|N|C|K|Hi]

About 7 minutes (one LightGBM thread; measured at load 7 on the shared two-core machine), most of it the
four rows with CK's 2000 trees of 255 leaves; it prints each row's seconds. ``--only`` runs some rows.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from cksolve.features import FEATURE_NAMES
from cksolve.ml.efficiency import picks, summary
from cksolve.ml.fits import fit
from cksolve.ml.folds import ck_folds
from cksolve.ml.lgbm import lightgbm
from cksolve.ml.training_data import read_measurements
from cksolve.ml.selector import PARAMS, TREES, OBJECTIVES, choose, cross_validate, kernel_data, relevance
from cksolve.ml.training import lgb_params, resolved_kernels, train_data
from cksolve.scoring import get_scorer

HERE = Path(__file__).resolve().parent
DEFAULT_CSV = Path(os.environ.get("CKSOLVE_SHARED", HERE.parent.parent / "shared")) / "ck" / "measurements" / \
    "training_data_forward_bf16_20.csv"
ARCH, DTYPE = "gfx950", "bf16"
CK = {"num_leaves": 255, "max_depth": 15, "learning_rate": 0.02, "min_data_in_leaf": 10, "bagging_fraction": 0.85,
      "feature_fraction": 0.85, "lambda_l1": 0.05, "lambda_l2": 0.5}


class Data:
    """The file's kernel rows (exact and ck-names features), label rows, the analytic estimates and CK's folds."""

    def __init__(self, csv: Path, split: str = "ck"):
        self.m = read_measurements([csv], "forward", DTYPE)
        self.kernels = resolved_kernels(self.m, ARCH)
        self.k = {s: kernel_data(self.m, self.kernels, ARCH, DTYPE, s) for s in ("exact", "ck-names")}
        d = self.k["exact"]
        configs = {k.config.name(): k.config for k in self.kernels.values()}
        problems = list(self.m.by_problem)
        scorer = get_scorer("analytic")
        est = np.array(scorer.score([(problems[p], configs[d.kernels[r]]) for p, r in zip(d.problems, d.name_rank)],
                                    ARCH, DTYPE))
        best = np.zeros(d.problems.max() + 1)
        np.maximum.at(best, d.problems, est)
        self.analytic = np.c_[np.log(est), est / best[d.problems]]
        self.labels = train_data(self.m, ARCH, DTYPE, "ck-names")
        self.labels_exact = train_data(self.m, ARCH, DTYPE, "exact")
        self.row_keys = np.array([d.keys[p] for p in d.problems], dtype=object)
        self.folds = ck_folds(d.keys, d.counts, self.row_keys, 5)
        self.label_folds = ck_folds(self.labels.keys, self.labels.counts, self.labels.groups, 5)
        if split != "ck":  # a harsher check: no value of one dimension is in both training and held-out problems
            value = [str(getattr(p, split)) for p in problems]
            self.folds = _value_folds(d.problems, value)
            self.label_folds = _value_folds(self.labels.problems, value)
        # each label row's kernel row (the same problem, the label's kernel)
        at = {(int(p), d.kernels[r]): i for i, (p, r) in enumerate(zip(d.problems, d.name_rank))}
        names = sorted(self.m.kernels)
        self.label_kernel_row = np.array([at[(int(p), self.kernels[names[r]].config.name())]
                                          for p, r in zip(self.labels.problems, self.labels.name_rank)])


def _value_folds(problem_of_row: np.ndarray, value: list) -> list:
    """GroupKFold(5) over the rows, grouped by their problem's value of one dimension."""
    from cksolve.ml.lgbm import group_kfold

    groups = np.array([value[p] for p in problem_of_row])
    return list(group_kfold()(n_splits=5).split(np.zeros(len(groups)), groups=groups))


def kernel_picks(data: Data, rows: np.ndarray, pred: np.ndarray) -> tuple:
    """(efficiency, rank) of each held-out problem's pick among its kernels, ``pred`` a score per kernel row."""
    d = data.k["exact"]
    _ids, effs, ranks, _r = picks(d.problems[rows], d.tflops[rows], pred, d.name_rank[rows])
    return effs, ranks


def figures(effs, ranks) -> dict:
    return summary(np.concatenate(effs), np.concatenate(ranks))


def analytic(data: Data) -> dict:
    rows = np.arange(len(data.k["exact"].tflops))
    return figures(*zip(kernel_picks(data, rows, data.analytic[:, 0])))


def ck_like(data: Data, early: bool, exact_share: bool = False) -> dict:
    """train --like-ck on CK's folds; a problem's pick is its best-scored label, measured as that label's kernel.
    ``exact_share``: the same label rows with exact features and the efficiency target, the selector's
    parameters (labels not merged)."""
    lgb, d, k = lightgbm(), data.labels_exact if exact_share else data.labels, data.k["exact"]
    target = np.log1p(d.y)
    if exact_share:
        best = np.zeros(d.problems.max() + 1)
        np.maximum.at(best, d.problems, d.y)
        target = d.y / best[d.problems]
        params = {**lgb_params(42, TREES), **PARAMS}
        for key in ("max_depth", "bagging_fraction", "lambda_l1"):
            params.pop(key, None)
    effs, ranks = [], []
    for tr, va in data.label_folds:
        if exact_share:
            pred = fit(lgb, params, d.x[tr], target[tr]).predict(d.x[va], num_threads=1)
        elif early:
            _b, pred = fit(lgb, lgb_params(42, 2000), d.x[tr], target[tr], (d.x[va], target[va]))
        else:
            pred = fit(lgb, lgb_params(42, 2000), d.x[tr], target[tr]).predict(d.x[va], num_threads=1)
        _ids, _e, _r, chosen = picks(d.problems[va], d.y[va], pred, d.name_rank[va])
        krow = data.label_kernel_row[va[chosen]]
        for row in krow:  # the picked kernel's measured share and rank among the problem's kernels
            mine = k.tflops[k.problems == k.problems[row]]
            effs.append([k.tflops[row] / mine.max()])
            ranks.append([1 + int(np.count_nonzero(mine > k.tflops[row]))])
    return figures(effs, ranks)


def variant(data: Data, semantics: str, objective: str, params: dict, trees: int, extra: str = "") -> dict:
    """One candidate on kernel rows: ``extra`` '' / 'feature' (analytic estimate as two more features) /
    'prior' (the log of the analytic share as LightGBM's initial score; target: log of the measured share)."""
    lgb, d = lightgbm(), data.k[semantics]
    x = np.c_[d.x, data.analytic] if extra == "feature" else d.x
    init = np.log(data.analytic[:, 1]) if extra == "prior" else None
    y = {"efficiency": d.share, "lambdarank": relevance(d.share), "log-tflops": np.log1p(d.tflops),
         "log-share": np.log(d.share)}[objective]
    p = {"objective": "lambdarank" if objective == "lambdarank" else "regression", **params, "seed": 42,
         "num_threads": 1, "deterministic": True, "force_row_wise": True, "verbosity": -1, "num_iterations": trees}
    effs, ranks = [], []
    for tr, va in data.folds:
        group = np.bincount(d.problems[tr])[np.unique(d.problems[tr])] if objective == "lambdarank" else None
        ds = lgb.Dataset(x[tr], label=y[tr], group=group, init_score=None if init is None else init[tr],
                         categorical_feature=[FEATURE_NAMES.index("pipeline")], params={"verbosity": -1})
        pred = lgb.train(p, ds).predict(x[va], num_threads=1) + (0 if init is None else init[va])
        e, r = kernel_picks(data, va, pred)
        effs.append(e)
        ranks.append(r)
    return figures(effs, ranks)


def default(data: Data) -> dict:
    _b, records = cross_validate(data.k["exact"], OBJECTIVES, 5, 42, TREES, 1)
    chosen, _why = choose(records)
    return {**records[chosen], "label": f"default (train with no options: chose {chosen})"}


SMALL = dict(PARAMS)
ROWS = [
    ("analytic", "analytic model (no training)", analytic),
    ("ck-cv", "CK-like (CK's CV: folds early-stopped on held-out rows)", lambda d: ck_like(d, True)),
    ("ck", "CK-like (2000 trees)", lambda d: ck_like(d, False)),
    ("l-exact-eff", "labels (not merged), exact, efficiency, small", lambda d: ck_like(d, False, True)),
    ("k-names-log-ck", "kernels, ck-names, log-tflops, CK params 2000", lambda d: variant(d, "ck-names", "log-tflops", CK, 2000)),
    ("k-exact-log-ck", "kernels, exact, log-tflops, CK params 2000", lambda d: variant(d, "exact", "log-tflops", CK, 2000)),
    ("k-exact-eff-ck", "kernels, exact, efficiency, CK params 2000", lambda d: variant(d, "exact", "efficiency", CK, 2000)),
    ("k-names-eff", "kernels, ck-names, efficiency, small", lambda d: variant(d, "ck-names", "efficiency", SMALL, TREES)),
    ("k-exact-log", "kernels, exact, log-tflops, small", lambda d: variant(d, "exact", "log-tflops", SMALL, TREES)),
    ("k-exact-eff", "kernels, exact, efficiency, small", lambda d: variant(d, "exact", "efficiency", SMALL, TREES)),
    ("k-exact-rank", "kernels, exact, lambdarank, small", lambda d: variant(d, "exact", "lambdarank", SMALL, TREES)),
    ("k-exact-eff-200", "kernels, exact, efficiency, small, 200 trees",
     lambda d: variant(d, "exact", "efficiency", SMALL, 200)),
    ("k-exact-eff-63", "kernels, exact, efficiency, 63 leaves",
     lambda d: variant(d, "exact", "efficiency", {**SMALL, "num_leaves": 63}, TREES)),
    ("k-exact-eff-an", "kernels, exact + analytic features, efficiency, small",
     lambda d: variant(d, "exact", "efficiency", SMALL, TREES, "feature")),
    ("k-exact-rank-an", "kernels, exact + analytic features, lambdarank, small",
     lambda d: variant(d, "exact", "lambdarank", SMALL, TREES, "feature")),
    ("k-exact-prior", "kernels, exact, analytic prior, log share, small",
     lambda d: variant(d, "exact", "log-share", SMALL, TREES, "prior")),
    ("default", None, default),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    ap.add_argument("--only", default="", help="comma-separated row names (default: all)")
    ap.add_argument("--split", default="ck", choices=("ck", "N", "C", "K", "Hi"),
                    help="ck: CK's folds; a dimension: folds that hold out whole values of it (the default row "
                         "is left out: train cross-validates on CK's folds)")
    args = ap.parse_args()
    if not args.csv.exists():
        sys.exit(f"{args.csv}: not found (set CKSOLVE_SHARED or --csv)")
    only = set(filter(None, args.only.split(",")))
    t = time.perf_counter()
    data = Data(args.csv, args.split)
    folds = "CK's 5 folds" if args.split == "ck" else f"5 folds holding out whole values of {args.split}"
    print(f"# REAL measurements: {args.csv.name}: {len(data.m.by_problem)} problems, "
          f"{len(data.m.kernels)} labels = {len(data.k['exact'].kernels)} kernels; {folds}; picks among "
          f"kernels ({time.perf_counter() - t:.1f} s to read)")
    print(f"| {'trainer (problem-grouped CV)':<58} | mean | P10 | top-1 | s |")
    print(f"|{'-' * 60}|------|-----|-------|---|")
    for key, label, run in ROWS:
        if (only and key not in only) or (key == "default" and args.split != "ck"):
            continue
        t = time.perf_counter()
        got = run(data)
        label = got.get("label", label)
        print(f"| {label:<58} | {100 * got['mean']:.1f}% | {100 * got['p10']:.1f}% | {100 * got['top1']:.1f}% "
              f"| {time.perf_counter() - t:.0f} |", flush=True)


if __name__ == "__main__":
    main()
