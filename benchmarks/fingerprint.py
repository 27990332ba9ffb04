"""Fingerprint of cksolve's observable output: sha256 of every rule set's names and of emitted trees.

    python benchmarks/fingerprint.py [--builder-configs DIR] [--quick]

A refactoring that must not change behaviour is checked by running this before
and after and comparing the lines. It goes through the ``cksolve`` command, not
the library, so module moves do not change what it measures. ``tests`` and
``profiler`` need CK Builder's .conf files (``../shared/ck/builder-configs`` by
default).
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


def _cksolve(*args: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run([sys.executable, "-m", "cksolve", *args], check=True, capture_output=True, env=env,
                          cwd=ROOT).stdout


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
    args = ap.parse_args(argv)
    for rs in RULE_SETS:  # no --arch etc.: every one of the 288 combinations
        listing = _cksolve("enumerate", "--rule-set", rs, "--builder-configs", args.builder_configs)
        out = names_only(listing)
        lines = out.count(b"\n")
        print(f"names {rs:10s} {lines:6d} {hashlib.sha256(out).hexdigest()}", flush=True)
    if args.quick:
        return 0
    for rs, arch in TREES:
        with tempfile.TemporaryDirectory(prefix="cksolve-fp-") as tmp:
            out = Path(tmp) / "tree"
            _cksolve("emit", "--rule-set", rs, "--arch", arch, "--out", str(out))
            n, digest = tree_digest(out)
        print(f"emit  {rs}/{arch:7s} {n:6d} {digest}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
