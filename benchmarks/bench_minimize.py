"""Speed of ``minimize`` (issue 14): the whole request in-process, best of N fresh processes.

Targets:
  validation_holdout.csv (300 problems) x full, gfx942, fp16, keep 0.9: OPTIMAL in <= 10 s
  a 2,000-problem workload made from it (seeded): status and time reported

    python benchmarks/bench_minimize.py [--runs N]
"""

from __future__ import annotations

import argparse

from workload_probe import best

TARGET = 10.0

_PROBE = r"""
import json, sys, time
from cksolve import query
from cksolve.workload.minimize import Request
from cksolve.workload.plan import plan
from workload_probe import problems
problems = problems(int(sys.argv[1]))
t0 = time.perf_counter()
result = plan(problems, query.load_rule_set("full"), "gfx942", ["fp16"], Request(keep=0.9))
t1 = time.perf_counter()
print(json.dumps({"seconds": t1 - t0, "solver": result.result.seconds, "status": result.result.status,
                  "kept": len(result.kept), "candidates": result.candidates}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    for n in (300, 2000):
        r = best(_PROBE, n, args.runs)
        ratio = f", ratio {r['seconds'] / TARGET:.2f} to the {TARGET:g} s target" if n == 300 else ""
        print(f"minimize {n:5d} problems x full gfx942 fp16 keep 0.9: {r['status']} in {r['seconds']:.2f} s "
              f"(solver {r['solver']:.2f} s){ratio}; {r['candidates']} -> {r['kept']} kernels; best of {args.runs}")


if __name__ == "__main__":
    main()
