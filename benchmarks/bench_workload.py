"""Speed of workload coverage (issue 13), in-process, each case in a fresh process.

Targets:
  coverage of validation_holdout.csv (300 problems) against `full` for gfx942,
  fp16+bf16+fp32, with kernels listed                                  <= 1 s
  the same for a 2,000-problem workload made from it (seeded)          <= 3 s
The time includes solving `full` for the combinations the problems touch (a
fresh process), not loading Python. Best of N fresh processes.

    python benchmarks/bench_workload.py [--runs N]
"""

from __future__ import annotations

import argparse

from workload_probe import best

TARGETS = {300: 1.0, 2000: 3.0}

_PROBE = r"""
import json, sys, time
from cksolve import query
from cksolve.workload import coverage
from workload_probe import problems
problems = problems(int(sys.argv[1]))
t0 = time.perf_counter()
rs = query.load_rule_set("full")
records = coverage(problems, rs, "gfx942", ["fp16", "bf16", "fp32"])
listed = sum(len(r.kernels) for r in records)
t1 = time.perf_counter()
print(json.dumps({"seconds": t1 - t0, "records": len(records), "covered": sum(r.applicable > 0 for r in records),
                  "kernels_listed": listed}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    for n, target in TARGETS.items():
        r = best(_PROBE, n, args.runs)
        print(f"coverage {n:5d} problems x full gfx942 x 3 dtypes: {r['seconds']:.3f} s "
              f"(target {target} s, ratio {r['seconds'] / target:.2f}); {r['covered']}/{r['records']} covered, "
              f"{r['kernels_listed']} kernels listed; best of {args.runs}")


if __name__ == "__main__":
    main()
