"""Which coverage answers differ between two checkouts, and whether the depthwise tile rule explains each.

    python benchmarks/workload_diff.py --old ../main [--new .] [--problems N] [--rule-set full] [--arch gfx942]

Runs ``coverage --dtype fp16 --with-kernels --format jsonl`` of each checkout on CK's
forward hold-out list and on a generated workload of N problems (seeded, as
``fingerprint.py --workloads`` makes it), then compares record by record. Every
kernel the new checkout drops must be a depthwise kernel whose wave runs
several tiles (TilePerWave != 1) on a problem whose output is larger than its
tile (``apply.forward.depthwise_tile``); nothing may be added. Prints the
counts and exits 1 on any difference the rule does not explain.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))


def _coverage(root: Path, path: Path, rule_set: str, arch: str, out: Path) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
    with open(out, "wb") as f:
        subprocess.run([sys.executable, "-m", "cksolve", "coverage", "--problems", str(path), "-r", rule_set, "-a",
                        arch, "--dtype", "fp16", "--format", "jsonl", "--with-kernels"], check=True, stdout=f, env=env,
                       cwd=root)


def explained(name: str, record: dict) -> bool:
    from cksolve.space.naming import parse_name
    from cksolve.workload import Problem
    from cksolve.workload.checks import depthwise_tile_per_wave

    if "_depthwise_" not in name:
        return False
    c = parse_name(name)
    p = Problem(**{k: v for k, v in record.items() if k not in ("row", "ndim", "dtype", "applicable", "kernels")})
    out = p.spatial()["output"]
    return depthwise_tile_per_wave(c.tile_h, c.tile_w, c.sub_h, c.sub_w) != 1 and (
        out[0] > c.tile_h or out[1] > c.tile_w)


def compare(old: Path, new: Path) -> tuple[int, int, int, list[str]]:
    """(records, records that differ, kernels dropped, unexplained differences)."""
    records = differ = dropped = 0
    bad: list[str] = []
    with open(old) as a, open(new) as b:
        for la, lb in zip(a, b, strict=True):
            records += 1
            if la == lb:
                continue
            ra, rb = json.loads(la), json.loads(lb)
            differ += 1
            gone = set(ra["kernels"]) - set(rb["kernels"])
            added = set(rb["kernels"]) - set(ra["kernels"])
            dropped += len(gone)
            rest_a = {k: v for k, v in ra.items() if k not in ("kernels", "applicable")}
            rest_b = {k: v for k, v in rb.items() if k not in ("kernels", "applicable")}
            if added or rest_a != rest_b or rb["applicable"] != len(rb["kernels"]):
                bad.append(f"row {ra['row']}: added {sorted(added)[:2]}")
            bad.extend(f"row {ra['row']}: {n} dropped, not by the depthwise tile rule" for n in gone
                       if not explained(n, ra))
    return records, differ, dropped, bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=str(ROOT))
    ap.add_argument("--problems", type=int, default=30_000)
    ap.add_argument("--rule-set", default="full")
    ap.add_argument("--arch", default="gfx942")
    args = ap.parse_args()
    from workload_probe import HOLDOUT, problems, write_csv

    failed = False
    with tempfile.TemporaryDirectory(prefix="cksolve-diff-") as tmp:
        gen = Path(tmp) / f"generated-{args.problems}.csv"
        write_csv(problems(args.problems), gen)
        for label, path in (("holdout", HOLDOUT), (f"generated-{args.problems}", gen)):
            a, b = Path(tmp) / "old.jsonl", Path(tmp) / "new.jsonl"
            _coverage(Path(args.old).resolve(), path, args.rule_set, args.arch, a)
            _coverage(Path(args.new).resolve(), path, args.rule_set, args.arch, b)
            records, differ, dropped, bad = compare(a, b)
            print(f"{label} {args.rule_set}/{args.arch}: {records} records, {differ} differ, {dropped} kernels "
                  f"dropped, {len(bad)} not explained by the depthwise tile rule")
            for line in bad[:5]:
                print(f"  {line}")
            failed |= bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
