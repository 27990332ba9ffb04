"""Speed of ``audit --rule-set full`` over all 288 combinations (issue 15), each run in a fresh process.

Target: <= 10 s on this machine. The probe times the library call (load the
rule set, solve and enumerate every combination's proposal, judge it by the
arch rules, explain the empty combinations and dead rows, decide idle
constraints) and, separately, the whole command as a user runs it (Python
start-up and output included). Best of N fresh processes; the two are
interleaved so machine load hits both alike.

    python benchmarks/bench_audit.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 10.0

_PROBE = r"""
import json, time
t0 = time.perf_counter()
from cksolve.audit import audit
from cksolve.query import select
from cksolve.rulesets import get_rule_set
report = audit(get_rule_set("full"), select().combos())
t1 = time.perf_counter()
f = report.findings()
print(json.dumps({"seconds": t1 - t0, "combos": len(report.combos), **f}))
"""


def library_run() -> dict:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"probe failed: {out.stderr.strip().splitlines()[-1]}")
    return json.loads(out.stdout)


def command_run() -> float:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "cksolve", "audit", "--rule-set", "full", "--format", "json"],
                         capture_output=True, cwd=ROOT)
    seconds = time.perf_counter() - t0
    if out.returncode not in (0, 1):
        raise SystemExit(f"command failed: {out.stderr.decode().strip()}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    library, command = [], []
    for _ in range(args.runs):
        library.append(library_run())
        command.append(command_run())
    best = min(library, key=lambda r: r["seconds"])
    lib_all = ", ".join(f"{r['seconds']:.2f}" for r in library)
    cmd_all = ", ".join(f"{s:.2f}" for s in command)
    print(f"audit --rule-set full, {best['combos']} combinations: findings empty {best['empty']}, "
          f"dead {best['dead']}, idle {best['idle']}")
    print(f"  library  {best['seconds']:.2f} s (best of {args.runs}; all: {lib_all})  target {TARGET:.0f} s, "
          f"ratio {best['seconds'] / TARGET:.2f}")
    print(f"  command  {min(command):.2f} s (best of {args.runs}; all: {cmd_all})  target {TARGET:.0f} s, "
          f"ratio {min(command) / TARGET:.2f}")


if __name__ == "__main__":
    main()
