"""Speed of `features` (issue 17), in-process, each run in a fresh process.

Target: features of validation_holdout.csv (300 problems) x `full`, gfx950,
forward, bf16, every applicable (problem, kernel) pair, <= 5 s in-process. The
time includes solving `full` for the two combinations and deciding
applicability (a fresh process), not loading Python or writing the rows out;
CSV rendering is timed apart. Best of N fresh processes, both semantics.

    python benchmarks/bench_features.py [--runs N]
"""

from __future__ import annotations

import argparse

from workload_probe import best

TARGET = 5.0

_PROBE = r"""
import json, sys, time
from cksolve.features import features
from cksolve.features.table_writers import render
from cksolve.rulesets import Combo, get_rule_set
from workload_probe import problems
problems = problems(300)
t0 = time.perf_counter()
table = features(get_rule_set("full"), [Combo("gfx950", "forward", "bf16", n) for n in (2, 3)], problems, sys.argv[1])
t1 = time.perf_counter()
text = render(table.columns, table.rows, "csv")
t2 = time.perf_counter()
print(json.dumps({"seconds": t1 - t0, "csv_seconds": t2 - t1, "rows": len(table.rows), "bytes": len(text)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    for semantics in ("ck", "exact"):
        r = best(_PROBE, semantics, args.runs)
        print(f"features holdout x full gfx950 forward bf16 ({semantics}): {r['seconds']:.3f} s for {r['rows']} pairs "
              f"(target {TARGET} s, ratio {r['seconds'] / TARGET:.2f}); csv {r['csv_seconds']:.3f} s, "
              f"{r['bytes'] / 1e6:.1f} MB; best of {args.runs}")


if __name__ == "__main__":
    main()
