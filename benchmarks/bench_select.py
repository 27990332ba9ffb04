"""Speed of train, select and search by the performance model (issue 29's targets), best of N fresh processes.

Targets (issue 29):
  select, 10^3 problems x full (gfx950, bf16), a 2000-tree model: <= 20 s, <= 1 GB
  train, 10^5 measurement rows, 5 folds, 2000 trees: <= 180 s on 2 cores
  search --top 10 by the analytic performance model over the whole space: <= 5 s

The measurements are MADE UP (``cksolve.ml.madeup``); the model trained on them is the
one select is timed with, so its trees have the size training on that many rows gives.
Each case is one ``cksolve`` process: seconds (wall) and its peak RSS.

    python benchmarks/bench_select.py [--rows 100000] [--trees 2000] [--folds 5] [--problems 1000] [--runs 3]
        [--only train,select,search] [--keep DIR | --model DIR]

On a loaded machine run it smaller (--rows, --trees) and say so beside the numbers.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_RUN = r"""
import resource, sys, time
from cksolve.cli import main
t = time.perf_counter()
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code or 0
else:
    code = 0
u = resource.getrusage(resource.RUSAGE_SELF)
sys.stderr.write(f"BENCH {time.perf_counter() - t:.3f} {u.ru_maxrss / 1024:.0f} {code} {u.ru_utime + u.ru_stime:.3f}\n")
"""

LARGE = "N=32,C=256,K=256,Hi=56,Wi=56,Y=3,X=3,pad_h=1,pad_w=1"
HOLDOUT = Path(__file__).resolve().parents[1] / ".." / "shared" / "ck" / "workloads" / "validation_holdout.csv"


def run(argv: list[str], runs: int) -> tuple[float, float, float]:
    """(best wall seconds, its peak RSS in MiB, its CPU seconds) of ``cksolve ARGV`` over ``runs`` fresh
    processes (the CPU time says what a loaded machine's wall time hides)."""
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _RUN, *argv], capture_output=True, text=True)
        wall = time.perf_counter() - start
        line = [ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")]
        if not line or line[-1].split()[3] != "0":
            raise SystemExit(f"cksolve {' '.join(argv)} failed:\n{proc.stderr[-2000:]}")
        rss, cpu = float(line[-1].split()[2]), float(line[-1].split()[4])
        if best is None or wall < best[0]:
            best = (wall, rss, cpu)
    return best


def made_up(path: Path, rows: int, kernels: int = 40) -> None:
    from cksolve.ml.madeup import write_csv

    write_csv(path, max(1, rows // kernels), 11, kernels)


def problems(path: Path, n: int) -> None:
    """``n`` forward problems: CK's hold-out shapes (2D and 3D) with N varied, else made-up ResNet-like ones."""
    base = []
    if HOLDOUT.exists():
        with open(HOLDOUT) as f:
            base = list(csv.DictReader(f))
    if not base:
        base = [{"N": "8", "C": "256", "K": "256", "G": "1", "Hi": "28", "Wi": "28", "Y": "3", "X": "3",
                 "pad_h": "1", "pad_w": "1"}]
    cols = list(base[0])
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, cols)
        w.writeheader()
        for i in range(n):
            row = dict(base[i % len(base)])
            row["N"] = str(1 + i // len(base))
            w.writerow(row)


def _trees(model: Path) -> str:
    """The tree count a model directory's manifest records (``?`` when it says none)."""
    try:
        manifest = json.loads((model / "train_manifest.json").read_text())
    except (OSError, ValueError):
        return "?"
    return str(manifest.get("total_n_estimators", "?"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--trees", type=int, default=2000)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--problems", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="train,select,search")
    ap.add_argument("--model", type=Path, help="select with this model directory (no training); "
                                               "--keep DIR keeps the trained one")
    ap.add_argument("--keep", type=Path, help="write the trained model here too")
    args = ap.parse_args()
    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        model = args.model or args.keep or d / "model"
        if "train" in only or ("select" in only and args.model is None):
            made_up(d / "bench.csv", args.rows)
            argv = ["train", "--measurements", str(d / "bench.csv"), "--arch", "gfx950", "--dtype", "bf16",
                    "--variant", "forward", "--out", str(model), "--trees", str(args.trees),
                    "--folds", str(args.folds if "train" in only else 0), "--like-ck"]  # CK's trainer: the targets' case
            runs = args.runs if "train" in only else 1
            s, rss, cpu = run(argv, runs)
            if "train" in only:
                print(f"train {args.rows} rows, {args.folds} folds, {args.trees} trees: {s:.1f} s ({cpu:.1f} s CPU), "
                      f"{rss:.0f} MiB (target <= 180 s at 10^5 rows, 5 folds, 2000 trees; ratio {s / 180:.2f})")
        if "select" in only:
            problems(d / "problems.csv", args.problems)
            load = os.getloadavg()[0]
            s, rss, cpu = run(["select", "--problems", str(d / "problems.csv"), "-r", "full", "-a", "gfx950",
                               "--dtype", "bf16", "--model", str(model), "--top", "5", "--format", "jsonl", "-o",
                               str(d / "picks.jsonl")], args.runs)
            trees = args.trees if args.model is None else _trees(model)
            print(f"select {args.problems} problems x full gfx950 bf16, {trees}-tree model: {s:.1f} s "
                  f"({cpu:.1f} s CPU), {rss:.0f} MiB (target <= 20 s, <= 1024 MiB; ratios {s / 20:.2f}, "
                  f"{rss / 1024:.2f}; CPU/target {cpu / 20:.2f}); best of {args.runs}, load average "
                  f"{load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        if "search" in only:
            whole = d / "whole.toml"  # a rule-set file that pins nothing: the whole valid space
            whole.write_text('kind = "gemm"\n')
            s, rss, cpu = run(["search", "-r", str(whole), "-p", LARGE, "-a", "gfx942", "--dtype", "fp16",
                               "--top", "10"], args.runs)  # plain search: the performance model, the arch's device
            print(f"search --top 10 (plain: performance model), whole.toml (gfx942 fp16): {s:.1f} s ({cpu:.1f} s CPU), "
                  f"{rss:.0f} MiB (target <= 5 s; ratio {s / 5:.2f})")


if __name__ == "__main__":
    main()
