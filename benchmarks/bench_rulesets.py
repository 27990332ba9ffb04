"""Speed of the rule sets: enumerate all combinations, count them, CLI start-up.

Prints numbers and their ratio to the targets (issue 2 and 3):
  enumerate all 288 combinations (to configs, arch-checked) <= 0.2 s
  count                                                      <= 50 ms
  CLI start-up (`cksolve --help`)                            <= 0.3 s
Each timing is the best of several runs in a fresh process, so that caches
from a previous run never flatter the number.

    python benchmarks/bench_rulesets.py [rule-set ...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILDER = ROOT.parent / "shared" / "ck" / "builder-configs"
TARGETS = {"enumerate": 0.2, "count": 0.05, "startup": 0.3}

_PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
from cksolve import query
from cksolve.rulesets import get_rule_set
rs = get_rule_set(sys.argv[1], builder_configs=sys.argv[3] or None)
sel = query.select()
t1 = time.perf_counter()
if sys.argv[2] == "enumerate":
    n = sum(1 for _ in query.enumerate_records(rs, sel))
elif sys.argv[2] == "configs":
    from cksolve.solver import solve_combo
    n = sum(len(solve_combo(rs, c).configs()) for c in sel.combos())
else:
    n = sum(query.count_records(rs, sel).values())
t2 = time.perf_counter()
print(json.dumps({"n": n, "load": t1 - t0, "work": t2 - t1}))
"""


def best_of(script: str, args: list[str], repeat: int, key: str) -> dict:
    """Run ``script`` in ``repeat`` fresh processes; the JSON it prints with the smallest ``key``."""
    runs = []
    for _ in range(repeat):
        run = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=ROOT)
        if run.returncode:
            sys.exit(f"probe {args} failed: {run.stderr.strip().splitlines()[-1]}")
        runs.append(json.loads(run.stdout))
    return min(runs, key=lambda r: r[key])


def probe(rule_set: str, what: str, repeat: int = 5) -> dict:
    return best_of(_PROBE, [rule_set, what, str(BUILDER) if BUILDER.exists() else ""], repeat, "work")


def startup(repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cksolve", "--help"], capture_output=True, cwd=ROOT, check=True)
        best = min(best, time.perf_counter() - t)
    return best


def main(argv: list[str]) -> None:
    from cksolve.rulesets import RULE_SETS

    names = argv or [n for n in RULE_SETS if n not in ("tests", "profiler") or BUILDER.exists()]
    print(f"{'rule set':<11} {'configs':>8} {'configs s':>10} {'names s':>9} {'ratio':>6} {'count s':>8} {'ratio':>6}")
    for name in names:
        cfg = probe(name, "configs")
        enum = probe(name, "enumerate")
        cnt = probe(name, "count")
        print(f"{name:<11} {cfg['n']:>8} {cfg['work']:>10.3f} {enum['work']:>9.3f} "
              f"{cfg['work'] / TARGETS['enumerate']:>6.2f} {cnt['work']:>8.3f} {cnt['work'] / TARGETS['count']:>6.2f}")
    s = startup()
    print(f"CLI start-up (cksolve --help): {s:.3f} s, ratio to 0.3 s target {s / TARGETS['startup']:.2f}")
    print("configs s = all 288 combinations solved to configs (arch-checked); names s = the same plus kernel "
          "names in canonical order; ratio = measured / target (<= 1 meets it).")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main(sys.argv[1:])
