"""Replay benchmark plans against a fully measured file: is a planned subset worth more than a random one?

    python benchmarks/bench_plan.py [--file FILE]
        [--budgets 5,10,20,30,50,100] [--trees 300] [--folds 5] [--seeds 3] [--plot plan.png]

For each fold of a problem-grouped cross-validation (CK's group key, ``ml.training.GROUP_KEY``;
GroupKFold), the training-fold problems are the workload: at each budget (a percentage of the
training fold's measured rows) a selector is trained on

* ``plan``: the rows ``cksolve.plan.make_plan`` chooses (``--seeds`` seeds), from the training problems only,
  their candidates being the labels the file measured for them (estimated by the analytic model
  through the kernel each label stands for: ``plan.named_candidates``);
* ``random``: that many random rows of the training fold (``--seeds`` seeds);
* ``problems``: every label of random training problems, as many rows (``--seeds`` seeds);

and scored on the held-out problems: mean efficiency (the measured TFLOPS of the label the model
ranks first over the problem's best), averaged over every held-out problem of every fold. The
trainer is ``train``'s (CK's parameters, deterministic), with ``--trees`` trees instead of CK's 2000
for speed and no early stopping. Every number comes from the measurement file given.
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
from cksolve.ml.lgbm import group_kfold, lightgbm
from cksolve.ml.measurements import Measurements
from cksolve.ml.training import GROUP_KEY, lgb_params, train_data
from cksolve.plan import make_plan
from cksolve.plan.candidates import named_candidates

#: the shared measurement file, where the tests find it (``CKSOLVE_SHARED``, else ``shared/`` beside the checkout)
FILE = str(Path(os.environ.get("CKSOLVE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
           / "ck" / "measurements" / "training_data_forward_bf16_20.csv")


def subset(m: Measurements, rows) -> Measurements:
    """The measurements of the (problem, label) pairs ``rows``."""
    out = Measurements(kernels=m.kernels)
    for p, label in rows:
        out.by_problem.setdefault(p, {})[label] = m.by_problem[p][label]
    out.rows = len(rows)
    return out


def score(lgb, m: Measurements, train_rows, test_problems, trees: int) -> float:
    tr = train_data(subset(m, train_rows), "gfx950", "bf16", "ck-names")
    booster = fit(lgb, lgb_params(42, trees), tr.x, np.log1p(tr.y))
    te = train_data(subset(m, [(p, lb) for p in test_problems for lb in m.by_problem[p]]), "gfx950", "bf16",
                    "ck-names")
    pred = booster.predict(te.x, num_threads=1)
    _ids, effs, _r, _rows = picks(te.problems, te.y, pred, te.name_rank)
    return effs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=FILE)
    ap.add_argument("--budgets", default="5,10,20,30,50,100")
    ap.add_argument("--trees", type=int, default=300)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--plot", default=None, help="write the curves to this PNG")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    lgb = lightgbm()
    m = read_measurements([a.file], "forward", "bf16")
    problems = list(m.by_problem)
    cands = named_candidates(problems, [sorted(m.by_problem[p]) for p in problems], "gfx950", "bf16")
    groups = np.array([hash(tuple(getattr(p, f) for f in GROUP_KEY)) % (1 << 61) for p in problems])
    _, groups = np.unique(groups, return_inverse=True)
    splits = list(group_kfold()(n_splits=a.folds).split(np.zeros(len(problems)), groups=groups))
    budgets = [int(b) for b in a.budgets.split(",")]
    effs: dict = {}  # (method, budget) -> list of per-problem efficiencies over folds (and seeds)
    for fold, (tr_idx, te_idx) in enumerate(splits):
        train_p = [problems[i] for i in tr_idx]
        test_p = [problems[i] for i in te_idx]
        all_rows = [(p, lb) for p in train_p for lb in sorted(m.by_problem[p])]
        for pct in budgets:
            n = max(1, round(len(all_rows) * pct / 100))
            if pct == 100:
                e = score(lgb, m, all_rows, test_p, a.trees)
                for method in ("plan", "random", "problems"):
                    effs.setdefault((method, pct), []).extend(e)
                continue
            for s in range(a.seeds):
                plan = make_plan(train_p, [cands[i] for i in tr_idx], n, seed=s)
                rows = [(train_p[pk.problem], pk.label) for pk in plan.picks]
                effs.setdefault(("plan", pct), []).extend(score(lgb, m, rows, test_p, a.trees))
                rng = np.random.default_rng(1000 + s)
                pick = rng.choice(len(all_rows), n, replace=False)
                effs.setdefault(("random", pct), []).extend(
                    score(lgb, m, [all_rows[i] for i in sorted(pick)], test_p, a.trees))
                order = rng.permutation(len(train_p))
                rows = []
                for i in order:
                    if len(rows) >= n:
                        break
                    rows += [(train_p[i], lb) for lb in sorted(m.by_problem[train_p[i]])][:n - len(rows)]
                effs.setdefault(("problems", pct), []).extend(score(lgb, m, rows, test_p, a.trees))
        print(f"fold {fold + 1}/{len(splits)} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    seeds = f"({a.seeds} seeds)"
    print(f"| budget | plan {seeds} | random rows {seeds} | all labels of random problems {seeds} |")
    print("|---|---|---|---|")
    table = {}
    for pct in budgets:
        row = [100 * float(np.mean(effs[(meth, pct)])) for meth in ("plan", "random", "problems")]
        table[pct] = row
        print(f"| {pct}% | {row[0]:.1f}% | {row[1]:.1f}% | {row[2]:.1f}% |")
    print(f"({len(problems)} problems, {a.folds} folds, {a.trees} trees, {time.perf_counter() - t0:.0f} s)")
    if a.plot:
        plot(a.plot, budgets, table)
    return 0


def plot(path: str, budgets, table) -> None:
    """The three curves as a PNG: matplotlib when installed, else pillow."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    names = ("plan", "random rows", "all labels of random problems")
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
    for k, (name, colour) in enumerate(zip(names, ("blue", "red", "green"))):
        pts = [(xs(b), ys(table[b][k])) for b in budgets]
        d.line(pts, fill=colour, width=2)
        d.text((pad + 10, pad + 14 * k), name, fill=colour)
    d.text((pad, h - pad + 10), f"budget % ({budgets[0]}..{budgets[-1]}); efficiency {lo:.0f}..{hi:.0f}%",
           fill="black")
    img.save(path)


if __name__ == "__main__":
    sys.exit(main())
