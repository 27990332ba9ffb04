"""Fingerprint of cksolve's observable output: sha256 of every rule set's names and of emitted trees.

    python benchmarks/fingerprint.py [--builder-configs DIR] [--quick] [--workloads] [--root CHECKOUT]

A refactoring that must not change behaviour is checked by running this before
and after and comparing the lines. It goes through the ``cksolve`` command, not
the library, so module moves do not change what it measures. ``tests`` and
``profiler`` need CK Builder's .conf files (``../shared/ck/builder-configs`` by
default).

``--workloads`` fingerprints the workload commands instead: ``coverage`` (jsonl with
kernels, table) of CK's three workload files for several rule sets and archs,
``coverage`` of a generated 30,000-problem workload (seeded, from CK's hold-out
list), and ``applicable`` on a few problems. ``--root`` runs another checkout's
``cksolve`` (e.g. ``--root ../main``) so two versions are compared line by line.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CKSOLVE_SHARED", ROOT.parent / "shared"))
RULE_SETS = ("default", "full", "full-tests", "tiny", "tests", "profiler")
TREES = (("tiny", "gfx942"), ("full", "gfx942"), ("full", "gfx1100"))


def _cksolve(*args: str, root: Path = ROOT) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-m", "cksolve", *args], check=True, capture_output=True, env=env,
                          cwd=root).stdout


WORKLOADS = SHARED / "ck" / "workloads"
WORKLOAD_FILES = ("validation_holdout.csv", "bwd_data_test_validation.csv", "bwd_weight_test_validation.csv")
WORKLOAD_RULE_SETS = ("full", "tiny", "tests", "profiler")
WORKLOAD_ARCHS = ("gfx942", "gfx950", "gfx1100")
GENERATED = 30_000
APPLICABLE = ("N=8,G=1,C=1,K=1,Hi=9,Wi=9,pad_h=1,pad_w=1", "N=8,G=64,C=64,K=64,Hi=56,Wi=56,pad_h=1,pad_w=1",
              "N=4,G=4,C=256,K=256,Hi=28,Wi=28,Y=1,X=1", "N=2,C=64,K=64,Di=8,Hi=8,Wi=8,Z=3,pad_d=1,pad_h=1,pad_w=1")


def _line(what: str, out: bytes) -> None:
    lines = out.count(b"\n")
    print(f"{what:60s} {lines:8d} {hashlib.sha256(out).hexdigest()}", flush=True)


def workloads(builder_configs: str, root: Path) -> None:
    """One line per workload command: what, lines of output, sha256 of the output."""
    bc = ("--builder-configs", builder_configs)
    for name in WORKLOAD_FILES:
        path = str(WORKLOADS / name)
        for rs in WORKLOAD_RULE_SETS:
            for arch in WORKLOAD_ARCHS:
                out = _cksolve("coverage", "--problems", path, "-r", rs, "-a", arch, "--format", "jsonl",
                               "--with-kernels", *bc, root=root)
                _line(f"coverage {name} {rs}/{arch} jsonl+kernels", out)
        out = _cksolve("coverage", "--problems", path, "-r", "full", "-a", "gfx942", *bc, root=root)
        _line(f"coverage {name} full/gfx942 table", out)
    sys.path.insert(0, str(Path(__file__).parent))
    from workload_probe import problems, write_csv

    with tempfile.TemporaryDirectory(prefix="cksolve-fp-") as tmp:
        path = Path(tmp) / f"generated-{GENERATED}.csv"
        write_csv(problems(GENERATED), path)
        for fmt in ("jsonl", "csv", "table"):
            out = _cksolve("coverage", "--problems", str(path), "-r", "full", "-a", "gfx942", "--dtype", "fp16",
                           "--format", fmt, root=root)
            _line(f"coverage generated-{GENERATED} full/gfx942/fp16 {fmt}", out)
    for spec in APPLICABLE:
        for rs in ("full", "tests"):
            out = _cksolve("applicable", "--problem", spec, "-r", rs, "-a", "gfx942", "--format", "jsonl", *bc,
                           root=root)
            _line(f"applicable {rs}/gfx942 {spec}", out)


#: The emitter's own cache of what it wrote (it records a hash of the renderer's source,
#: which a refactoring changes); not part of the emitted kernels.
MANIFEST = ".cksolve-emit.manifest"


def tree_digest(root: Path) -> tuple[int, str]:
    """(files, sha256 over every emitted file's relative path and bytes, in path order)."""
    h = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name != MANIFEST)
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return len(files), h.hexdigest()


def names_only(listing: bytes) -> bytes:
    """The names of ``enumerate``'s output without its ``# arch: A`` section lines: the digest of the names
    stays comparable with listings written before the sections existed (the sections come from the
    selection's archs, not from the rules; tests/test_cli.py holds each section equal to a one-arch listing)."""
    return b"".join(line for line in listing.splitlines(keepends=True) if not line.startswith(b"#"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builder-configs", default=str(SHARED / "ck" / "builder-configs"))
    ap.add_argument("--quick", action="store_true", help="names only, no emitted trees")
    ap.add_argument("--workloads", action="store_true", help="the workload commands only (coverage, applicable)")
    ap.add_argument("--root", default=str(ROOT), help="the checkout whose cksolve runs (default: this one)")
    args = ap.parse_args(argv)
    root = Path(args.root).resolve()
    if args.workloads:
        workloads(args.builder_configs, root)
        return 0
    for rs in RULE_SETS:  # no --arch etc.: every one of the 288 combinations
        listing = _cksolve("enumerate", "--rule-set", rs, "--builder-configs", args.builder_configs, root=root)
        out = names_only(listing)
        lines = out.count(b"\n")
        print(f"names {rs:10s} {lines:6d} {hashlib.sha256(out).hexdigest()}", flush=True)
    if args.quick:
        return 0
    for rs, arch in TREES:
        with tempfile.TemporaryDirectory(prefix="cksolve-fp-") as tmp:
            out = Path(tmp) / "tree"
            _cksolve("emit", "--rule-set", rs, "--arch", arch, "--out", str(out), root=root)
            n, digest = tree_digest(out)
        print(f"emit  {rs}/{arch:7s} {n:6d} {digest}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
