"""Speed of ``minimize`` (issue 14): the whole request in-process, best of N fresh processes.

Targets:
  validation_holdout.csv (300 problems) x full, gfx942, fp16, keep 0.9: OPTIMAL in <= 10 s
  a 2,000-problem workload made from it (seeded): status and time reported

    python benchmarks/bench_minimize.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = ROOT.parent / "shared" / "ck" / "workloads" / "validation_holdout.csv"
TARGET = 10.0

_PROBE = r"""
import json, random, sys, time
from cksolve import query
from cksolve.workload import read_problems
from cksolve.workload.minimize import Request
from cksolve.workload.plan import plan
problems = read_problems(sys.argv[1])
n = int(sys.argv[2])
if n != len(problems):
    rng = random.Random(2000)
    base, problems = problems, []
    while len(problems) < n:
        p = rng.choice(base)
        scale = rng.choice((1, 2, 4))
        try:
            problems.append(p.replace(N=rng.choice((1, 2, 4, 8, 16, 32)), Hi=max(p.Y, p.Hi * scale // 2),
                                      Wi=max(p.X, p.Wi * scale // 2)))
        except Exception:
            continue
t0 = time.perf_counter()
result = plan(problems, query.load_rule_set("full"), "gfx942", ["fp16"], Request(keep=0.9))
t1 = time.perf_counter()
print(json.dumps({"seconds": t1 - t0, "solver": result.result.seconds, "status": result.result.status,
                  "kept": len(result.kept), "candidates": result.candidates}))
"""


def best(n: int, runs: int) -> dict:
    results = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _PROBE, str(HOLDOUT), str(n)], capture_output=True, text=True,
                             cwd=ROOT)
        if out.returncode:
            raise SystemExit(f"probe failed: {out.stderr.strip().splitlines()[-1]}")
        results.append(json.loads(out.stdout))
    return min(results, key=lambda r: r["seconds"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    for n in (300, 2000):
        r = best(n, args.runs)
        ratio = f", ratio {r['seconds'] / TARGET:.2f} to the {TARGET:g} s target" if n == 300 else ""
        print(f"minimize {n:5d} problems x full gfx942 fp16 keep 0.9: {r['status']} in {r['seconds']:.2f} s "
              f"(solver {r['solver']:.2f} s){ratio}; {r['candidates']} -> {r['kept']} kernels; best of {args.runs}")


if __name__ == "__main__":
    main()
