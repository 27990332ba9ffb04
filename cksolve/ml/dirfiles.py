"""A model directory's files read as untrusted input: bounded bytes, bounded gzip, bounded JSON, file hashes.

* every file is a regular file (a directory, a device such as ``/dev/zero`` or a
  FIFO in its place is refused before a byte is read) and at most ``limit``
  bytes are read (``limit + 1`` to tell a bigger file);
* a ``.gz`` is decompressed in steps that never hold more than ``MAX_MODEL``
  bytes of output (a gzip bomb stops at the cap); a corrupt or truncated gzip
  is refused;
* JSON: at most ``MAX_JSON`` bytes, UTF-8, nesting at most ``MAX_JSON_DEPTH``
  deep, an object at the top;
* ``SHA256_KEY`` in ``train_manifest.json``: the sha256 of each file cksolve
  wrote; a directory whose files do not match was mixed from two trainings.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import zlib
from pathlib import Path

from ..errors import CksolveError, shorten

__all__ = ["MAX_MODEL", "MAX_JSON", "MAX_JSON_DEPTH", "SHA256_KEY", "read_bounded", "gunzip_bounded", "read_json",
           "sha256", "verify_hashes"]

#: largest model text, compressed and decompressed (CK's 2000-tree models are ~1.6 MB gzipped, ~10x that as text)
MAX_MODEL = 256 << 20
#: largest JSON file of a model directory (CK's specs are a few kB)
MAX_JSON = 4 << 20
#: deepest JSON nesting (CK's files nest 3 deep)
MAX_JSON_DEPTH = 32
#: train_manifest.json's key holding {file name: sha256 hex} of the files ``train`` wrote
SHA256_KEY = "cksolve_sha256"

_STEP = 1 << 20  # compressed bytes fed to the decompressor at a time
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,100}")  # a file name a manifest may list (no path)


def _label(path: Path) -> str:
    return shorten(str(path), quote=False)


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them, or one error line."""
    where = _label(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO does not block the open
    except (OSError, ValueError) as exc:
        raise CksolveError(f"{where}: cannot read the {what} ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
            raise CksolveError(f"{where}: the {what} is {kind}")
        chunks, size = [], 0
        while size <= limit:  # os.read: no buffered file object over a descriptor of unknown kind
            chunk = os.read(fd, min(limit + 1 - size, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise CksolveError(f"{where}: cannot read the {what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise CksolveError(f"{where}: the {what} is larger than {limit >> 20} MiB")
    return data


def gunzip_bounded(data: bytes, limit: int, where: str) -> bytes:
    """gzip ``data`` decompressed (every member), never more than ``limit`` bytes held; one error line."""
    out, pos = [], 0
    size = 0
    while True:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            while not d.eof:
                chunk = d.unconsumed_tail or data[pos:pos + _STEP]
                if not d.unconsumed_tail:
                    pos += len(chunk)
                if not chunk:
                    raise CksolveError(f"{where}: the gzip is truncated")
                piece = d.decompress(chunk, limit + 1 - size)
                size += len(piece)
                out.append(piece)
                if size > limit:
                    raise CksolveError(f"{where}: the model decompresses to more than {limit >> 20} MiB")
        except zlib.error:
            raise CksolveError(f"{where}: not a valid gzip file") from None
        rest = d.unused_data + data[pos:]
        if not rest.strip(b"\0"):  # gzip's own reader also ends at trailing zero padding
            return b"".join(out)
        data, pos = rest, 0


def _depth(value) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            if d > MAX_JSON_DEPTH:
                return d
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def read_json(path: Path, data: bytes | None = None) -> dict:
    """A model directory's JSON object (bounded: module doc); ``data``: its bytes when read already."""
    where = _label(path)
    if data is None:
        data = read_bounded(path, MAX_JSON, "JSON file")
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CksolveError(f"{where}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    except RecursionError:
        raise CksolveError(f"{where}: JSON nested more than {MAX_JSON_DEPTH} deep") from None
    except ValueError as exc:  # JSONDecodeError, or an integer over Python's digit limit
        msg = f"line {exc.lineno} column {exc.colno}: {exc.msg}" if isinstance(exc, json.JSONDecodeError) \
            else shorten(str(exc), 100, quote=False)
        raise CksolveError(f"{where}: not valid JSON ({msg})") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise CksolveError(f"{where}: JSON nested more than {MAX_JSON_DEPTH} deep")
    if not isinstance(value, dict):
        raise CksolveError(f"{where}: expected a JSON object, got {type(value).__name__}")
    return value


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def verify_hashes(d: Path, manifest: dict, read: dict[str, bytes]) -> None:
    """The files of ``read`` (name -> the bytes read) against the manifest's hashes, when it has them: a file it
    lists that is missing or differs, or a read file it does not list, is a directory mixing two trainings."""
    hashes = manifest.get(SHA256_KEY)
    if hashes is None:
        return  # CK's directories, and cksolve's before hashes: nothing to verify
    where = _label(d)
    if not isinstance(hashes, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in hashes.items()):
        raise CksolveError(f"{where}: train_manifest.json: {SHA256_KEY} must map file names to sha256 strings")
    odd = [name for name in hashes if not _NAME.fullmatch(name)]
    if odd or len(hashes) > 64:
        what = shorten(odd[0]) if odd else f"{len(hashes)} files"
        raise CksolveError(f"{where}: train_manifest.json: {SHA256_KEY} lists {what}, not a file name of the directory")
    for name, data in read.items():
        if name not in hashes:
            raise CksolveError(f"{where}: {name} is not one of the files its training wrote (train_manifest.json "
                               f"lists {', '.join(sorted(hashes))}); the directory mixes two trainings")
        if sha256(data) != hashes[name]:
            raise CksolveError(f"{where}: {name} is not the file its training wrote (sha256 differs from "
                               "train_manifest.json); the directory mixes two trainings: train it again")
    for name, want in sorted(hashes.items()):
        if name in read:
            continue
        if not (d / name).exists():
            raise CksolveError(f"{where}: {name}, listed in train_manifest.json, is missing; the directory mixes "
                               "two trainings or lost a file")
        limit = MAX_JSON if name.endswith(".json") else MAX_MODEL
        if sha256(read_bounded(d / name, limit, "model directory file")) != want:
            raise CksolveError(f"{where}: {name} is not the file its training wrote (sha256 differs from "
                               "train_manifest.json); the directory mixes two trainings: train it again")
