"""A plan on disk: ``pairs.csv``, ``plan.json`` and one self-contained folder per shard, written whole.

    DIR/plan.json                     what was planned, how, and each shard's estimated GPU time
    DIR/pairs.csv                     one row per pair (PAIRS_COLUMNS)
    DIR/shard_000/pairs.csv           the shard's pairs (same columns): what ``plan merge`` checks against
    DIR/shard_000/shard.json          its number, pairs and estimated GPU time, the arch and dtype
    DIR/shard_000/run.sh              runs CK's tile engine on each run (``tile_engine.run_script``)
    DIR/shard_000/runs/run_000/problems/forward_2d.py   a run's problem list (``tile_engine``)
    DIR/shard_000/runs/run_000/configs/forward_2d.json  its sweep config: one trait combination

The directory is built beside DIR under a temporary name and renamed into place, so DIR is the whole
plan or nothing; an existing DIR must be empty.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Sequence

from ..errors import CksolveError
from ..formats import csv_writer
from ..workload import FIELDS
from .choose import Plan
from .shards import balance, imbalance
from .tile_engine import problems_module, run_script, set_name, sweep_config, trait_of

__all__ = ["PAIRS_COLUMNS", "write_plan", "check_out_dir", "pairs_text", "SHARD_FORMAT"]

#: the columns of pairs.csv: the problem's --problems row, its fields, the pair, why, the estimate
PAIRS_COLUMNS = ("problem", *FIELDS, "kernel", "label", "why", "est_ms")
#: what a shard folder's ``shard.json`` says it is
SHARD_FORMAT = "cksolve plan shard 1"


def check_out_dir(out: Path) -> None:
    """Refuse an output directory that exists and is not empty, or whose parent is missing."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CksolveError(f"{out}: exists and is not an empty directory (a plan is written into a new one)")
    if not out.parent.is_dir():
        raise CksolveError(f"{out}: its directory {out.parent} does not exist")


def pairs_text(rows: Sequence[tuple]) -> str:
    """pairs.csv of (problem row, Problem, Pick) tuples."""
    buf = io.StringIO()
    w = csv_writer(buf)
    w.writerow(PAIRS_COLUMNS)
    for row, problem, pick in rows:
        w.writerow([row, *(getattr(problem, f) for f in FIELDS), pick.kernel, pick.label, pick.why,
                    f"{pick.est_ms:.6g}"])
    return buf.getvalue()


def write_plan(plan: Plan, problems: Sequence, rows: Sequence[int], out: Path, arch: str, dtype: str,
               shards: int = 1, repeats: int = 1, meta: dict | None = None) -> dict:
    """Write ``plan`` (its picks index ``problems``; ``rows[i]``: problem i's --problems row) into ``out``;
    returns plan.json's content."""
    out = Path(out)
    check_out_dir(out)
    if repeats < 1:
        raise CksolveError(f"{{opt:repeats}} {repeats} must be at least 1")
    picked = [(rows[p.problem], problems[p.problem], p) for p in plan.picks]
    units: dict = {}  # (problem, trait) -> pair indices, plan order
    for k, (_, _, pick) in enumerate(picked):
        units.setdefault((pick.problem, trait_of(pick.label)), []).append(k)
    keys = list(units)
    weights = [sum(picked[k][2].est_ms for k in units[u]) * repeats for u in keys]
    shard_of = balance(weights, shards) if keys else []
    loads = [0.0] * shards
    for w, s in zip(weights, shard_of):
        loads[s] += w
    info = {"format": "cksolve plan 1", "arch": arch, "dtype": dtype, **(meta or {}), "budget": plan.budget,
            "seed": plan.seed, "repeats": repeats, "pairs": len(picked), "summary": plan.summary(),
            "shards": [{"folder": f"shard_{s:03d}", "pairs": sum(len(units[u]) for u, k in zip(keys, shard_of)
                                                                   if k == s),
                        "est_gpu_ms": round(loads[s], 6)} for s in range(shards)],
            "imbalance": round(imbalance(weights, shard_of, shards), 6) if keys else 1.0}
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        (tmp / "pairs.csv").write_text(pairs_text(picked), encoding="utf-8")
        (tmp / "plan.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        for s in range(shards):
            mine = sorted(k for u, sh in zip(keys, shard_of) if sh == s for k in units[u])
            _write_shard(tmp / f"shard_{s:03d}", s, [picked[k] for k in mine], arch, dtype, repeats, loads[s])
        if out.exists():
            out.rmdir()  # empty (checked): replaced by the whole plan
        os.rename(tmp, out)
    except OSError as exc:
        raise CksolveError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return info


def _write_shard(d: Path, number: int, picked: list, arch: str, dtype: str, repeats: int, load: float) -> None:
    d.mkdir()
    (d / "pairs.csv").write_text(pairs_text(picked), encoding="utf-8")
    (d / "shard.json").write_text(json.dumps({"format": SHARD_FORMAT, "shard": number, "arch": arch,
                                              "dtype": dtype, "repeats": repeats, "pairs": len(picked),
                                              "est_gpu_ms": round(load, 6)}, indent=2) + "\n", encoding="utf-8")
    runs: dict = {}  # trait -> {problem row: Problem}
    for row, problem, pick in picked:
        runs.setdefault(trait_of(pick.label), {}).setdefault(row, problem)
    named = []
    for k, trait in enumerate(sorted(runs, key=repr)):
        run = f"run_{k:03d}"
        name = set_name(trait)
        (d / "runs" / run / "problems").mkdir(parents=True)
        (d / "runs" / run / "configs").mkdir()
        problems = [runs[trait][r] for r in sorted(runs[trait])]
        note = f"cksolve plan, shard {number}, {run}: {len(problems)} problems of one trait combination."
        (d / "runs" / run / "problems" / f"{name}.py").write_text(problems_module(trait, problems, note),
                                                                  encoding="utf-8")
        (d / "runs" / run / "configs" / f"{name}.json").write_text(sweep_config(trait), encoding="utf-8")
        named.append((run, trait))
    script = d / "run.sh"
    script.write_text(run_script(arch, named), encoding="utf-8")
    script.chmod(0o755)
