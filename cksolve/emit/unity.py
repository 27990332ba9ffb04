"""Unity batches: translation units that each include up to N kernel sources (``emit --unity-batch N``).

Parsing CK Tile's headers costs seconds per translation unit, so compiling
kernels N to a unit saves most of a build. The batches must be stable: a
reconfigure must compile nothing, and adding or removing one kernel must
touch one batch, not renumber all of them. So batches are cut by content,
not by position: over the sorted kernel names, a batch ends after a name whose
hash (sha256, the same on every run and machine) falls in a 1-in-N bucket; a
batch that would still hold more than N names is cut again the same way with
another hash (and, after three tries, a shorter period, down to one name per
unit: there is no positional cap to shift). Adding or removing a name changes the batch it falls
in (now and then splitting or merging it with a neighbour); every other batch
keeps its members, its file name (the hash of its first member) and its bytes,
so its mtime too. Units hold about 0.4 N names on average (at most N).

The units live in ``<tree>/unity/`` and include the kernels' own ``.cpp``
files, which stay the unit of emission and ownership; only the files this
module names (``unity_*.cpp``) are written or removed there.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Sequence

from . import files
from ..errors import CksolveError

__all__ = ["UNITY_DIR", "batches", "check_batch", "write_units", "is_unit"]

UNITY_DIR = "unity"
_PREFIX, _SUFFIX = "unity_", ".cpp"


def check_batch(size) -> None:
    """CksolveError unless ``size`` is a batch size (an int of at least 1; None means one unit per kernel).

    Called by the CLI before the selection is solved, and by the writer for
    library callers, so a bad size fails before any work.
    """
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise CksolveError(f"{{opt:unity_batch}} {size} must be at least 1 (leave it out for one unit per kernel)")


def is_unit(name: str) -> bool:
    """Whether a file name in UNITY_DIR is a unit emit writes (and so may remove)."""
    return name.startswith(_PREFIX) and name.endswith(_SUFFIX)


def _h(name: str, level: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{level}:{name}".encode()).digest()[:8], "big")


def _cut(names: list[str], size: int, period: int, level: int) -> list[list[str]]:
    """``names`` cut after each name whose level-hash falls in a 1-in-``period`` bucket; a piece still
    longer than ``size`` is cut again with the next level's hash (the same period for three levels, then
    half of it each level: at period 1 every name is cut, so a piece always ends up within ``size``)."""
    out: list[list[str]] = []
    current: list[str] = []
    for name in names:
        current.append(name)
        if period == 1 or _h(name, level) % period == 0:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return [b for piece in out
            for b in (_cut(piece, size, period if level < 3 else max(1, period // 2), level + 1)
                      if len(piece) > size else [piece])]


def batches(names: Sequence[str], size: int) -> list[tuple[str, list[str]]]:
    """(file name, kernel names) per unit, for the distinct ``names`` (any order) and at most ``size`` each."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"unity batch size {size!r} must be at least 1")
    out = _cut(sorted(set(names)), size, size, 0)
    return [(f"{_PREFIX}{hashlib.sha256(b[0].encode()).hexdigest()[:16]}{_SUFFIX}", b) for b in out]


def _text(names: list[str], size: int) -> str:
    lines = [f"// cksolve: unity translation unit of {len(names)} kernels (emit --unity-batch {size}). Do not edit.\n"]
    lines += [f'#include "../{n}.cpp"\n' for n in names]
    return "".join(lines)


def write_units(root: Path, names: Sequence[str], size: int | None) -> tuple[list[str], int, int, int, int]:
    """Write the units of ``names`` under ``root/unity`` (none when ``size`` is None) and remove the others.

    Returns (unit paths relative to ``root``, written, unchanged, removed, bytes). A
    unit whose text is unchanged is not touched.
    """
    d = Path(root) / UNITY_DIR
    units = batches(names, size) if size is not None else []
    if os.path.islink(d):  # inside the tree: replaced, never followed
        os.unlink(d)
    if units and not d.is_dir():
        os.mkdir(d)
    written = unchanged = nbytes = 0
    for fname, members in units:
        data = _text(members, size).encode()
        nbytes += len(data)
        if files.same_on_disk(str(d / fname), data) is not None:
            unchanged += 1
            continue
        files.write_text_atomic(d / fname, data.decode())
        written += 1
    keep = {f for f, _ in units}
    try:
        present = os.listdir(d)
    except OSError:
        present = []
    stale = [str(d / n) for n in present if is_unit(n) and n not in keep]
    removed = files.remove(stale)
    if not units and present and not os.listdir(d):
        os.rmdir(d)
    return [f"{UNITY_DIR}/{f}" for f, _ in units], written, unchanged, removed, nbytes
