"""Replay benchmark plans against a fully measured file: is a planned subset worth more than a random one?

    python benchmarks/bench_plan.py [--file FILE] [--like-ck]
        [--budgets 5,10,20,30,50,100] [--trees N] [--folds 5] [--seeds 3] [--plot plan.png]
        [--per-problem K[,K...]] [--pattern WWC] [--methods plan,random,problems]

For each fold of a problem-grouped cross-validation (CK's group key, ``ml.folds.ck_group_key``;
GroupKFold), the training-fold problems are the workload: at each budget (a percentage of the
training fold's measured rows, the labels a GPU ran) a selector is trained on

* ``plan``: the pairs ``cksolve.plan.make_plan`` chooses (``--seeds`` seeds), from the training problems
  only, their candidates being the *kernels* the file measured for them, one canonical label each
  (``plan.named_candidates``: labels that resolve to one kernel are one measurement), estimated by the
  analytic model; ``--per-problem K`` gives each planned problem K kernels in the first pass (a list
  measures each);
* ``random``: that many random rows (labels) of the training fold (``--seeds`` seeds);
* ``problems``: every label of random training problems, as many rows (``--seeds`` seeds);

and scored on the held-out problems: mean efficiency of the model's pick among the problem's measured
kernels (labels of one kernel merged, their mean TFLOPS) over the best of them, averaged over every
held-out problem of every fold. The trainer is the one ``train`` runs by default (``ml.selector``: rows
are kernels, exact features, the ``efficiency`` objective, ``selector.TREES`` trees), or with
``--like-ck`` CK's (``ml.training``: a row per label, log TFLOPS, CK's names; ``--trees`` default 300 for
speed), each deterministic on one thread. Every number comes from the measurement file given.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from cksolve.ml import read_measurements
from cksolve.ml.efficiency import picks
from cksolve.ml.fits import fit
from cksolve.ml.folds import ck_group_key
from cksolve.ml.lgbm import group_kfold, lightgbm
from cksolve.ml.training_data import Measurements
from cksolve.ml.selector import TREES, fit_objective, kernel_data
from cksolve.ml.training import lgb_params, resolved_kernels, train_data
from cksolve.plan import make_plan
from cksolve.plan.choose import FIRST, PATTERN
from cksolve.plan.candidates import named_candidates

#: the shared measurement file, where the tests find it (``CKSOLVE_SHARED``, else ``shared/`` beside the checkout)
FILE = str(Path(os.environ.get("CKSOLVE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
           / "ck" / "measurements" / "training_data_forward_bf16_20.csv")
ARCH, DTYPE = "gfx950", "bf16"


def subset(m: Measurements, rows) -> Measurements:
    """The measurements of the (problem, label) pairs ``rows``."""
    out = Measurements(kernels=m.kernels)
    for p, label in rows:
        out.by_problem.setdefault(p, {})[label] = m.by_problem[p][label]
    out.rows = len(rows)
    return out


class Trainer:
    """Fit on some rows, score the picks on held-out problems: ``train``'s default trainer or CK's."""

    def __init__(self, m: Measurements, like_ck: bool, trees: int | None):
        self.m, self.like_ck = m, like_ck
        self.trees = trees or (300 if like_ck else TREES)
        self.lgb = lightgbm()
        self.kernels = resolved_kernels(m, ARCH)

    def held_out(self, problems):
        rows = subset(self.m, [(p, lb) for p in problems for lb in self.m.by_problem[p]])
        return kernel_data(rows, self.kernels, ARCH, DTYPE, "exact"), rows

    def score(self, train_rows, test) -> np.ndarray:
        """Per held-out problem, the efficiency of the pick among its measured kernels."""
        d, rows = test
        sub = subset(self.m, train_rows)
        if self.like_ck:
            tr = train_data(sub, ARCH, DTYPE, "ck-names")
            booster = fit(self.lgb, lgb_params(42, self.trees), tr.x, np.log1p(tr.y))
            te = train_data(rows, ARCH, DTYPE, "ck-names")
            label_pred = booster.predict(te.x, num_threads=1)
            pred = _kernel_means(rows, label_pred, d, self.kernels)
        else:
            tr = kernel_data(sub, self.kernels, ARCH, DTYPE, "exact")
            booster = fit_objective(self.lgb, tr, "efficiency", None, 42, self.trees)
            pred = booster.predict(d.x, num_threads=1)
        _ids, effs, _r, _rows = picks(d.problems, d.tflops, pred, d.name_rank)
        return effs


def _kernel_means(rows: Measurements, label_pred, d, kernels) -> np.ndarray:
    """CK's per-label predictions (``train_data``'s order: problems in order, labels by name) averaged per
    (problem, kernel), in ``d``'s row order."""
    got: dict = {}
    it = iter(label_pred)
    for pid, measured in enumerate(rows.by_problem.values()):
        for label in sorted(measured):
            got.setdefault((pid, kernels[label].config.name()), []).append(float(next(it)))
    return np.array([np.mean(got[(int(p), d.kernels[r])]) for p, r in zip(d.problems, d.name_rank)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=FILE)
    ap.add_argument("--budgets", default="5,10,20,30,50,100")
    ap.add_argument("--trees", type=int, default=None, help="trees of each fit (default: the trainer's)")
    ap.add_argument("--like-ck", action="store_true", help="CK's trainer (train --like-ck) instead of train's")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--per-problem", default=str(FIRST), help="kernels per planned problem (a list: each)")
    ap.add_argument("--pattern", default=PATTERN, help="slot kinds of a problem (W winner, C coverage)")
    ap.add_argument("--methods", default="plan,random,problems")
    ap.add_argument("--plot", default=None, help="write the curves to this PNG")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    m = read_measurements([a.file], "forward", DTYPE)
    trainer = Trainer(m, a.like_ck, a.trees)
    problems = list(m.by_problem)
    cands = named_candidates(problems, [sorted(m.by_problem[p]) for p in problems], ARCH, DTYPE)
    _, groups = np.unique([ck_group_key(p) for p in problems], return_inverse=True)
    splits = list(group_kfold()(n_splits=a.folds).split(np.zeros(len(problems)), groups=groups))
    budgets = [int(b) for b in a.budgets.split(",")]
    ks = [int(k) for k in a.per_problem.split(",")]
    methods = a.methods.split(",")
    plans = [f"plan k={k}" for k in ks] if len(ks) > 1 else ["plan"]
    cols = [c for c in plans + ["random", "problems"] if c.split(" ")[0] in methods]
    effs: dict = {}  # (method, budget) -> per-problem efficiencies over folds (and seeds)
    for fold, (tr_idx, te_idx) in enumerate(splits):
        train_p = [problems[i] for i in tr_idx]
        test = trainer.held_out([problems[i] for i in te_idx])
        all_rows = [(p, lb) for p in train_p for lb in sorted(m.by_problem[p])]
        for pct in budgets:
            n = max(1, round(len(all_rows) * pct / 100))
            if pct == 100:
                e = trainer.score(all_rows, test)
                for c in cols:
                    effs.setdefault((c, pct), []).extend(e)
                continue
            for s in range(a.seeds):
                for k, c in zip(ks, plans):
                    if "plan" not in methods:
                        break
                    plan = make_plan(train_p, [cands[i] for i in tr_idx], n, seed=s, first=k, pattern=a.pattern)
                    rows = [(train_p[pk.problem], pk.label) for pk in plan.picks]
                    effs.setdefault((c, pct), []).extend(trainer.score(rows, test))
                rng = np.random.default_rng(1000 + s)
                pick = rng.choice(len(all_rows), n, replace=False)
                if "random" in methods:
                    effs.setdefault(("random", pct), []).extend(
                        trainer.score([all_rows[i] for i in sorted(pick)], test))
                order = rng.permutation(len(train_p))
                rows = []
                for i in order:
                    if len(rows) >= n:
                        break
                    rows += [(train_p[i], lb) for lb in sorted(m.by_problem[train_p[i]])][:n - len(rows)]
                if "problems" in methods:
                    effs.setdefault(("problems", pct), []).extend(trainer.score(rows, test))
        print(f"fold {fold + 1}/{len(splits)} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    seeds = f"({a.seeds} seeds)"
    names = {"random": "random rows", "problems": "all labels of random problems"}
    print("| budget | " + " | ".join(f"{names.get(c, c)} {seeds}" for c in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    table = {}
    for pct in budgets:
        row = [100 * float(np.mean(effs[(c, pct)])) for c in cols]
        table[pct] = row
        print(f"| {pct}% | " + " | ".join(f"{v:.1f}%" for v in row) + " |")
    trained = "CK's trainer" if a.like_ck else "train's trainer"
    print(f"({len(problems)} problems, {a.folds} folds, {trained}, {trainer.trees} trees, "
          f"{time.perf_counter() - t0:.0f} s)")
    if a.plot:
        plot(a.plot, budgets, table, [names.get(c, c) for c in cols])
    return 0


def plot(path: str, budgets, table, names) -> None:
    """The three curves as a PNG: matplotlib when installed, else pillow."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    if plt is not None:
        fig, ax = plt.subplots(figsize=(6, 4))
        for k, name in enumerate(names):
            ax.plot(budgets, [table[b][k] for b in budgets], marker="o", label=name)
        ax.set_xlabel("budget (% of the training fold's rows)")
        ax.set_ylabel("mean efficiency on held-out problems (%)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        return
    from PIL import Image, ImageDraw
    w, h, pad = 640, 400, 50
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    lo = min(min(v) for v in table.values()) - 1
    hi = max(max(v) for v in table.values()) + 1
    xs = lambda b: pad + (w - 2 * pad) * (b - budgets[0]) / max(1, budgets[-1] - budgets[0])  # noqa: E731
    ys = lambda v: h - pad - (h - 2 * pad) * (v - lo) / (hi - lo)  # noqa: E731
    d.line([(pad, h - pad), (w - pad, h - pad)], fill="black")
    d.line([(pad, pad), (pad, h - pad)], fill="black")
    for k, (name, colour) in enumerate(zip(names, ("blue", "red", "green", "orange", "purple", "brown", "grey"))):
        pts = [(xs(b), ys(table[b][k])) for b in budgets]
        d.line(pts, fill=colour, width=2)
        d.text((pad + 10, pad + 14 * k), name, fill=colour)
    d.text((pad, h - pad + 10), f"budget % ({budgets[0]}..{budgets[-1]}); efficiency {lo:.0f}..{hi:.0f}%",
           fill="black")
    img.save(path)


if __name__ == "__main__":
    sys.exit(main())
