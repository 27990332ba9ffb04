"""Shared by the workload benchmarks: CK's hold-out problems, scaled to any size, and a best-of runner.

Each measurement runs in a fresh process (a probe script given as text), so
nothing is warm that a user's first call would not have warm.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = ROOT.parent / "shared" / "ck" / "workloads" / "validation_holdout.csv"


def problems(n: int) -> list:
    """The hold-out problems, or ``n`` problems made from them by varying batch and spatial sizes (seeded):
    the same rules meet new shapes."""
    from cksolve.workload import ProblemError, read_problems

    base = read_problems(HOLDOUT)
    if n == len(base):
        return base
    rng = random.Random(2000)
    out = []
    while len(out) < n:
        p = rng.choice(base)
        scale = rng.choice((1, 2, 4))
        try:
            out.append(p.replace(N=rng.choice((1, 2, 4, 8, 16, 32)), Hi=max(p.Y, p.Hi * scale // 2),
                                 Wi=max(p.X, p.Wi * scale // 2)))
        except ProblemError:
            continue
    return out


def write_distinct_csv(n: int, path, seed: int = 2020) -> None:
    """``n`` forward problems made from the hold-out rows with perturbed C, K, H, W and N (seeded), written
    straight to CSV (no Problem objects: a million rows are written in seconds); almost all distinct."""
    import csv as _csv

    from cksolve.workload import FIELDS

    with open(HOLDOUT, newline="") as f:
        base = [{k: int(v) for k, v in row.items()} for row in _csv.DictReader(f)]
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        out.write(",".join(FIELDS) + "\n")
        defaults = {"direction": "forward", "split_k": 1}
        for _ in range(n):
            p = dict(rng.choice(base))
            g = p["G"]
            p["C"] = g * rng.randint(1, 512)
            p["K"] = g * rng.randint(1, 512)
            p["N"] = rng.choice((1, 2, 4, 8, 16, 32, 64))
            p["Hi"] = rng.randint(p["Y"], 256)
            p["Wi"] = rng.randint(p["X"], 256)
            out.write(",".join(str(p.get(k, defaults.get(k))) for k in FIELDS) + "\n")


def write_csv(problems, path) -> None:
    """``problems`` as a CSV workload file with CK's header (every field, file order)."""
    from cksolve.workload import FIELDS

    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(FIELDS) + "\n")
        for p in problems:
            f.write(",".join(str(getattr(p, k)) for k in FIELDS) + "\n")


def best(probe: str, arg, runs: int) -> dict:
    """The fastest of ``runs`` fresh processes running ``probe`` with ``arg`` as its ``sys.argv[1]``
    (the probe prints one JSON object with "seconds")."""
    setup = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
    results = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", setup + probe, str(arg)], capture_output=True, text=True, cwd=ROOT)
        if out.returncode:
            raise SystemExit(f"probe failed: {out.stderr.strip().splitlines()[-1]}")
        results.append(json.loads(out.stdout))
    return min(results, key=lambda r: r["seconds"])
