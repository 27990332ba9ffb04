"""The manifest of an output directory: which kernels emit owns there, and how their files looked.

Layout: one JSON line (format, template digest, globals entry, archs, kernel
count, size of the names block), then the kernel names separated by newlines
(plain file names never contain one), each kernel's arch index as uint16 and
the (size, mtime_ns) pairs of its three files as int64. It is read on every
emit, so it is kept cheap to load (a JSON list of 9k names took 15 ms).

An entry with size -1 is *pending*: saved before files are published, so that
an emit killed mid-way still owns what it may have put there; it never matches
a file on disk, so the kernel is rendered and compared next time.

The file may be damaged or planted: every field is checked (types, counts
against the file's size, names must be plain file names, archs gfx targets)
before a single value is used, and a bad manifest is treated as absent. Whatever
stands at its name -- a directory, a FIFO, a link -- is never read as one: an
empty directory is replaced by the next manifest saved, a non-empty one is left
alone and the tree goes without a manifest (every file checked on each emit).
"""

from __future__ import annotations

import json
import os
import stat
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from . import render
from .files import read_regular, remove, temp_name, write_new

__all__ = ["MANIFEST", "Manifest", "load", "save", "PENDING"]

MANIFEST = ".cksolve-emit.manifest"
FORMAT = 4
#: a manifest of 100k kernels is ~15 MB; anything much larger is not ours
_LIMIT = 256 << 20
PENDING = (-1, -1, -1, -1, -1, -1)


@dataclass
class Manifest:
    kernels: dict = field(default_factory=dict)   # name -> (arch, size, mtime, size, mtime, size, mtime)
    globals: list | None = None                   # [names digest, size, mtime, ...] of the shared headers
    warning: str | None = None                    # why a manifest on disk was not used
    selection: str | None = None                  # what chose the kernels ("rule set tiny"); None: not said


def load(root: Path, plain, arch_ok) -> Manifest:
    """The manifest of ``root``; absent, outdated or invalid -> empty (invalid also sets ``warning``).

    ``plain(names)`` and ``arch_ok(arch)`` are the writer's own name and arch checks.
    """
    path = Path(root) / MANIFEST
    if not os.path.lexists(path):
        return Manifest()
    data = read_regular(path, _LIMIT)
    try:
        if data is None:
            raise ValueError("a directory, not a file" if _is_dir(path) else "not a regular file of at most 256 MB")
        head_end = data.index(b"\n")
        head = json.loads(data[:head_end])
        if not isinstance(head, dict) or not isinstance(head.get("format"), int):
            raise ValueError("no format in its first line")
        if head["format"] != FORMAT or head.get("digest") != render.templates_digest():
            return Manifest()  # written by another version or other templates: a full check, silently
        selection = head.get("selection")
        if selection is not None and not isinstance(selection, str):
            raise ValueError("bad selection")
        kernels, globals_entry = _parse(head, memoryview(data)[head_end + 1:], plain, arch_ok)
        return Manifest(kernels, globals_entry, selection=selection)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        return Manifest(warning=f"ignoring the damaged manifest {path} ({exc}); every file is checked instead")


def _int(x, lo: int, hi: int, what: str) -> int:
    if type(x) is not int or not lo <= x <= hi:
        raise ValueError(f"{what} {x!r} out of range")
    return x


def _parse(head: dict, body: memoryview, plain, arch_ok) -> tuple[dict, list | None]:
    n = _int(head["kernels"], 0, len(body), "kernel count")
    nb = _int(head["names_bytes"], 0, len(body), "names size")
    archs = head["archs"]
    if not isinstance(archs, list) or len(archs) > 1024 or not all(isinstance(a, str) and arch_ok(a) for a in archs):
        raise ValueError("bad arch list")
    if len(body) != nb + 2 * n + 48 * n:
        raise ValueError(f"size {len(body)} does not fit {n} kernels")
    names = bytes(body[:nb]).decode("ascii").split("\n") if n else []
    if len(names) != n or (n and not plain(names)) or len(set(names)) != n:
        raise ValueError("bad kernel names")
    arch_of, nums = array("H"), array("q")
    arch_of.frombytes(body[nb:nb + 2 * n])
    nums.frombytes(body[nb + 2 * n:])
    if n and max(arch_of) >= len(archs):
        raise ValueError("arch index out of range")
    g = head.get("globals")
    if g is not None and not (isinstance(g, list) and g and isinstance(g[0], str)
                              and all(type(x) is int for x in g[1:])):
        raise ValueError("bad globals entry")
    sixes = zip(*[iter(nums)] * 6)  # grouped in C: read on every emit, the unchanged one included
    firsts = map([(a,) for a in archs].__getitem__, arch_of)
    return dict(zip(names, map(tuple.__add__, firsts, sixes))), g


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def save(root: Path, kernels: dict, globals_entry: list | None, token: str, selection: str | None = None) -> None:
    """Replace the manifest of ``root`` in one rename. OSError if it cannot be written.

    ``selection`` says what chose the kernels, so that an emit of another
    selection into the same directory can tell before it removes them.
    A directory standing at its name (a rename cannot replace one) is removed if empty; a non-empty
    one is nobody's to delete, so nothing is saved (``load`` warned, and the next emit checks every file).
    """
    if _is_dir(Path(root) / MANIFEST):
        try:
            os.rmdir(Path(root) / MANIFEST)
        except OSError:
            return
    names = sorted(kernels)
    archs = sorted({kernels[n][0] for n in names})
    index = {a: i for i, a in enumerate(archs)}
    blob = "\n".join(names).encode()
    head = {"format": FORMAT, "digest": render.templates_digest(), "globals": globals_entry,
            "archs": archs, "kernels": len(names), "names_bytes": len(blob)}
    if selection is not None:
        head["selection"] = selection
    arch_of = array("H", [index[kernels[n][0]] for n in names])
    nums = array("q", [x for n in names for x in kernels[n][1:7]])
    data = json.dumps(head, separators=(",", ":")).encode() + b"\n" + blob + arch_of.tobytes() + nums.tobytes()
    tmp = str(Path(root) / temp_name(MANIFEST, token))
    try:
        write_new(tmp, data)
        os.replace(tmp, Path(root) / MANIFEST)
    except BaseException:
        remove([tmp])
        raise
