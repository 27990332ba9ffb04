"""Writing an emitted kernel set: atomic, skip-unchanged, parallel.

Guarantees
* all or nothing: every file is first written under a temporary name and only
  renamed into place once every file of the emit has been written; on any
  failure (unwritable or full directory, ...) the temporaries are removed and
  :class:`EmitError` is raised with one line. Into a new or empty directory the
  whole tree is built in a hidden sibling directory and renamed in one step.
* unchanged files are not touched (same bytes -> no write, mtime kept).
* rendering runs in a fork-based process pool over chunks of kernels.

Skip-unchanged without re-rendering: the directory keeps a small manifest
(``.cksolve-emit.manifest``) with, per kernel, the arch and the size and mtime of
each of its files as written, and the digest of the templates. A kernel whose
name, arch and template digest match the manifest and whose files still have
the recorded size and mtime is unchanged without rendering it; anything else
is rendered and compared with the bytes on disk (size first). A missing or
unreadable manifest only costs time.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import string
import sys
import tempfile
import time
from array import array
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Callable, Iterable, Sequence

from . import render
from ..errors import CksolveError
from ..space.config import DepthwiseConfig, KernelConfig
from ..space.naming import NameError_, parse_names

__all__ = ["EmitError", "EmitSummary", "emit", "names_to_configs", "MANIFEST", "check_file_name"]

MANIFEST = ".cksolve-emit.manifest"
_MANIFEST_FORMAT = 3
_TMP_TAG = ".cksolve-tmp"
#: a kernel name must be a plain file name: these characters only, none of _NOT_FIRST first
#: (no separators, no leading dot)
_NAME_CHARS = string.ascii_letters + string.digits + "_.+-"
_NOT_FIRST = ".+-"
_PLAIN = re.compile(f"(?![{re.escape(_NOT_FIRST)}])[{re.escape(_NAME_CHARS)}]+")
_NAME_BYTES = _NAME_CHARS.encode()
_BAD_FIRST = frozenset(("", *_NOT_FIRST))
_ARCH = re.compile(r"gfx[0-9a-z]+")
_NAME_MAX = 255  # bytes per path component on the usual file systems


class EmitError(CksolveError):
    """Emission failed; the message is one line fit for the user."""


@dataclass
class EmitSummary:
    kernels: int = 0
    written: int = 0        # files written (created or replaced)
    unchanged: int = 0      # files left untouched
    bytes: int = 0          # total size of the emitted files
    bytes_written: int = 0
    seconds: float = 0.0
    out_dir: str = ""

    @property
    def files(self) -> int:
        return self.written + self.unchanged

    def line(self) -> str:
        return (f"{self.kernels} kernels, {self.files} files: {self.written} written, "
                f"{self.unchanged} unchanged, {self.bytes / 1e6:.1f} MB total "
                f"({self.bytes_written / 1e6:.1f} MB written) in {self.seconds:.2f} s -> {self.out_dir}")


_WRAPPER_PREFIX = render.WRAPPER_PREFIX
_LONGEST_PREFIX = len(_WRAPPER_PREFIX) + len(".hpp")


def check_file_name(name: str) -> None:
    """Raise EmitError unless ``name`` can serve as a kernel (file) name."""
    if not isinstance(name, str) or not _PLAIN.fullmatch(name) or len(name) + _LONGEST_PREFIX > _NAME_MAX:
        raise EmitError(f"refusing kernel name {name!r}: not a plain file name")


def _all_plain(names: list[str]) -> bool:
    """``check_file_name`` for many names at once, in C (a regex over 9k names took 15 ms)."""
    try:
        data = "".join(names).encode("ascii")
    except UnicodeEncodeError:
        return False
    return (not data.translate(None, _NAME_BYTES) and not _BAD_FIRST.intersection(map(itemgetter(slice(0, 1)), names))
            and max(map(len, names)) + _LONGEST_PREFIX <= _NAME_MAX)


def names_to_configs(lines: Iterable[str], source: str = "names") -> list[KernelConfig | DepthwiseConfig]:
    """Configs of the kernel names in ``lines``; EmitError names the first bad line (see ``parse_names``)."""
    try:
        return parse_names(lines, source)
    except NameError_ as exc:
        raise EmitError(str(exc)) from None


# ----------------------------------------------------------------------- job
@dataclass
class _Job:
    """Everything a renderer needs for one emit, handed to each worker when the pool starts.

    A forked worker inherits it (``initargs`` are not pickled under fork), so the
    9,000 configs are never serialised; the in-process path uses it directly.
    """

    items: Sequence                  # (arch, config, name) in emission order
    root: str                        # where files go (the output or its staging directory)
    fresh: bool                      # nothing there yet: files are created, never compared
    manifest: dict                   # name -> entry of the previous emit (may vouch for files)
    token: str                       # temp-file tag of this emit
    abort: object                    # an Event: set by the first chunk that fails
    fds: dict = None                 # pid -> (output dir fd, wrapper dir fd), opened lazily per process

    def dir_fds(self) -> tuple[int, int]:
        """Descriptors of the output directory and its wrapper directory (per process)."""
        if self.fds is None:
            self.fds = {}
        fds = self.fds.get(os.getpid())
        if fds is None:
            fds = self.fds[os.getpid()] = (
                os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC),
                os.open(os.path.join(self.root, render.WRAPPER_DIR), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
        return fds

    def close_fds(self) -> None:
        for fd in (self.fds or {}).pop(os.getpid(), ()):
            os.close(fd)


#: the job a pool worker was started with (see ``_adopt``); unset in the parent
_WORKER_JOB: _Job | None = None


def _adopt(job: _Job) -> None:
    """Pool initializer: the worker keeps the job it is handed."""
    global _WORKER_JOB
    _WORKER_JOB = job


def _worker_chunk(bounds: tuple[int, int]) -> "_Chunk":
    return _do_chunk(_WORKER_JOB, bounds)


def _write_new(path: str, data: bytes) -> tuple[int, int]:
    """Create ``path`` (must not exist) with ``data``; return (size, mtime_ns)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        os.unlink(path)
        raise
    os.close(fd)
    return st.st_size, st.st_mtime_ns


def _same_on_disk(path: str, data: bytes) -> os.stat_result | None:
    """The stat of ``path`` if it holds exactly ``data``, else None."""
    try:
        st = os.stat(path)
        if st.st_size != len(data):
            return None
        with open(path, "rb") as fh:
            return st if fh.read() == data else None
    except OSError:
        return None


def _put(final: str, data: bytes, fresh: bool, token: str, temps: list) -> tuple[tuple[int, int], bool]:
    """Put ``data`` at ``final`` unless it is there already: ((size, mtime_ns), whether it wrote).

    Into a fresh (staged) tree the file is written in place; otherwise into a temp
    file, queued in ``temps`` before it is written (so a failure can remove it) for
    the renames that publish all files together.
    """
    if fresh:
        return _write_new(final, data), True
    st = _same_on_disk(final, data)
    if st is not None:
        return (st.st_size, st.st_mtime_ns), False
    d, b = os.path.split(final)
    tmp = os.path.join(d, f".{b}.{token}{_TMP_TAG}")
    temps.append((tmp, final))
    return _write_new(tmp, data), True


def _stat_ok(path: str, size: int, mtime: int) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return st.st_size == size and st.st_mtime_ns == mtime


class _Chunk:
    """Result of one chunk: manifest entries, temporaries, counts, or an error."""

    __slots__ = ("entries", "temps", "written", "unchanged", "bytes", "bytes_written", "error", "n")

    def __init__(self, n):
        self.entries, self.temps = {}, []
        self.written = self.unchanged = self.bytes = self.bytes_written = 0
        self.error, self.n = None, n


def _do_chunk(job: _Job, bounds: tuple[int, int]) -> _Chunk:
    items, root, fresh, old, token = job.items, job.root, job.fresh, job.manifest, job.token
    res = _Chunk(bounds[1] - bounds[0])
    try:
        abort = job.abort
        fds = job.dir_fds() if old else None
        for k, (arch, c, name) in enumerate(items[bounds[0]:bounds[1]]):
            if k % 32 == 0 and abort.is_set():
                raise _Aborted()
            prev = old.get(name)
            if prev is not None and prev[0] == arch and _unchanged(name, prev, *fds):
                res.unchanged += 3
                res.bytes += prev[1] + prev[3] + prev[5]
                res.entries[name] = prev
                continue
            rels = render.kernel_paths(name)
            entry = [arch]
            for rel, text in zip(rels, render.render_kernel(arch, c, name=name)):
                data = text.encode()
                res.bytes += len(data)
                stat, wrote = _put(root + "/" + rel, data, fresh, token, res.temps)
                entry += stat
                if wrote:
                    res.written += 1
                    res.bytes_written += len(data)
                else:
                    res.unchanged += 1
            res.entries[name] = tuple(entry)
    except _Aborted:
        res.error = "aborted"
    except OSError as e:
        job.abort.set()
        res.error = _describe(e)
    if res.error is not None:
        _remove(t for t, _ in res.temps)
        res.temps = []
    return res


def _unchanged(name: str, prev, top: int, wrap: int) -> bool:
    """Do the kernel's three files still have the size and mtime the manifest recorded?"""
    stat = os.stat
    try:
        a = stat(name + ".hpp", dir_fd=top)
        b = stat(name + ".cpp", dir_fd=top)
        w = stat(_WRAPPER_PREFIX + name + ".hpp", dir_fd=wrap)
    except OSError:
        return False
    return (a.st_size, a.st_mtime_ns, b.st_size, b.st_mtime_ns, w.st_size, w.st_mtime_ns) == prev[1:]


def _do_renames(pairs: Sequence[tuple[str, str]]) -> str | None:
    try:
        for tmp, final in pairs:
            os.replace(tmp, final)
    except OSError as e:
        return _describe(e)
    return None


class _Aborted(Exception):
    pass


def _describe(e: OSError) -> str:
    what = e.strerror or str(e)
    return f"{what} ({e.filename})" if e.filename and e.errno not in (errno.ENOSPC, errno.EDQUOT) else what


def _remove(paths: Iterable[str]) -> None:
    for p in paths:
        try:
            os.unlink(p)
        except OSError:
            pass


# ------------------------------------------------------------------- manifest
# The manifest: one JSON line (format, template digest, globals entry, archs,
# kernel count, size of the names block), then the kernel names separated by
# newlines (plain file names never contain one), each kernel's arch index as
# uint16 and the (size, mtime_ns) pairs of its three files as int64 -- it is read
# on every emit, so it is kept cheap to load (a JSON list of 9k names took 15 ms).
def _load_manifest(root: Path) -> tuple[dict, list | None]:
    try:
        with open(root / MANIFEST, "rb") as fh:
            head = json.loads(fh.readline())
            if head.get("format") != _MANIFEST_FORMAT or head.get("digest") != render.templates_digest():
                return {}, None
            n, archs = head["kernels"], head["archs"]
            names = fh.read(head["names_bytes"]).decode().split("\n") if n else []
            arch_of, nums = array("H"), array("q")
            arch_of.frombytes(fh.read(arch_of.itemsize * n))
            nums.frombytes(fh.read())
        if len(names) != n or len(arch_of) != n or len(nums) != 6 * n:
            return {}, None
        # grouped in C: 9k entries are read on every emit, the unchanged one included
        sixes = zip(*[iter(nums)] * 6)
        return dict(zip(names, map(tuple.__add__, [(archs[a],) for a in arch_of], sixes))), head.get("globals")
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, UnicodeDecodeError):
        return {}, None


def _save_manifest(root: Path, kernels: dict, globals_entry: list) -> None:
    names = sorted(kernels)
    archs = sorted({kernels[n][0] for n in names})
    index = {a: i for i, a in enumerate(archs)}
    blob = "\n".join(names).encode()
    head = {"format": _MANIFEST_FORMAT, "digest": render.templates_digest(), "globals": globals_entry,
            "archs": archs, "kernels": len(names), "names_bytes": len(blob)}
    arch_of = array("H", [index[kernels[n][0]] for n in names])
    nums = array("q", [x for n in names for x in kernels[n][1:7]])
    data = json.dumps(head, separators=(",", ":")).encode() + b"\n" + blob + arch_of.tobytes() + nums.tobytes()
    tmp = str(root / f".{MANIFEST}.{os.getpid()}{_TMP_TAG}")
    try:
        _write_new(tmp, data)
        os.replace(tmp, root / MANIFEST)
    except OSError:
        # the manifest only saves time later; the emitted files are in place
        _remove([tmp])


def _globals_key(items) -> str:
    h = hashlib.sha256()
    for _, _, name in items:
        h.update(name.encode() + b"\n")
    return h.hexdigest()[:24]


# ------------------------------------------------------------------------ emit
def _prepare(configs) -> list[tuple[str, object, str]]:
    """(arch, config, name) per distinct kernel, sorted by name; EmitError on bad input.

    The name checks run in bulk (one byte translation over all names, one dict
    for duplicates): an unchanged re-emit of 9k kernels is mostly this and a
    stat per file.
    """
    pairs = []
    for pair in configs:
        try:
            arch, c = pair
        except (TypeError, ValueError):
            raise EmitError(f"expected (arch, config) pairs, got {pair!r}") from None
        pairs.append((arch, c))
    for arch in {arch for arch, _ in pairs}:
        if not isinstance(arch, str) or not _ARCH.fullmatch(arch):
            raise EmitError(f"refusing arch {arch!r}: expected a gfx target such as gfx942")
    for _, c in pairs:
        if not isinstance(c, (KernelConfig, DepthwiseConfig)):
            raise EmitError(f"not a kernel config: {c!r}")
    names = [c.name() for _, c in pairs]
    if names and not _all_plain(names):
        for name in names:
            check_file_name(name)
    seen = dict(zip(reversed(names), reversed(pairs)))  # the first of equal names wins
    if len(seen) != len(names):
        for name, pair in zip(names, pairs):
            if seen[name] != pair:
                raise EmitError(f"kernel {name} is asked for twice with different targets "
                                f"({seen[name][0]} and {pair[0]}); emit one arch per directory")
    return [(arch, c, name) for name, (arch, c) in sorted(seen.items())]


def _fresh_dir(root: Path) -> bool:
    if not root.exists():
        return True
    try:
        with os.scandir(root) as it:
            return next(it, None) is None
    except OSError as e:
        raise EmitError(f"cannot use output directory {root}: {_describe(e)}") from None


def emit(configs: Sequence[tuple[str, KernelConfig | DepthwiseConfig]], out_dir: Path,
         jobs: int | None = None, progress: bool = True) -> EmitSummary:
    """Write every kernel of ``configs`` (pairs of arch and config) and the shared headers to ``out_dir``.

    Returns the summary; raises EmitError (nothing written, no temporaries
    left) if a name is not a plain file name or the directory cannot take the files.
    """
    t0 = time.perf_counter()
    items = _prepare(configs)
    root = Path(out_dir)
    if root.exists() and not root.is_dir():
        raise EmitError(f"cannot write to {root}: not a directory")
    fresh = _fresh_dir(root)
    jobs = max(1, jobs if jobs else (os.cpu_count() or 1))

    stage = None
    if fresh:
        # build the whole tree beside the target, then rename it into place
        try:
            root.parent.mkdir(parents=True, exist_ok=True)
            stage = Path(tempfile.mkdtemp(prefix=f".{root.name}.", suffix=_TMP_TAG, dir=root.parent))
        except OSError as e:
            if not root.is_dir():
                raise EmitError(f"cannot write to {root}: {_describe(e)}") from None
            fresh = False  # an empty directory we may write in but not beside: file by file
    if stage is not None:
        work = stage
        manifest, old_globals = {}, None
    else:
        work = root
        manifest, old_globals = _load_manifest(root)

    summary = EmitSummary(kernels=len(items), out_dir=str(root))
    try:
        (work / render.WRAPPER_DIR).mkdir(exist_ok=True)
    except OSError as e:
        _cleanup_stage(stage)
        raise EmitError(f"cannot write to {root}: {_describe(e)}") from None

    import multiprocessing as mp  # deferred: only a run that renders needs it

    ctx = mp.get_context("fork")
    job = _Job(items=items, root=str(work), fresh=fresh, manifest=manifest,
               token=f"{os.getpid()}-{os.urandom(3).hex()}", abort=ctx.Event())
    results: list[_Chunk] = []
    temps: list[tuple[str, str]] = []
    error = None
    pool = None
    try:
        n = len(items)
        # kernels the manifest cannot vouch for must be rendered; the others only
        # need a stat each, which is cheaper in this process than in a pool
        to_render = sum(1 for it in items if _needs_render(it, manifest))
        use_pool = jobs > 1 and to_render >= 64
        size = max(16, -(-n // (jobs * 8))) if use_pool else max(n, 1)
        chunks = [(i, min(i + size, n)) for i in range(0, n, size)]
        if use_pool:
            render.warm_up()  # compile templates once, before the fork
            kind = os.environ.get("CKSOLVE_EMIT_POOL", "process")
            if kind.startswith("thread"):
                from multiprocessing.pool import ThreadPool
                pool = ThreadPool(int(kind[6:] or jobs), _adopt, (job,))
            else:
                pool = ctx.Pool(min(jobs, len(chunks)), _adopt, (job,))
            stream = pool.imap_unordered(_worker_chunk, chunks)
        else:
            stream = (_do_chunk(job, bounds) for bounds in chunks)
        # a bar only when there is rendering to watch (a stat-only check takes well under a second)
        with _progress(progress and to_render > 0, n) as advance:
            for res in stream:
                results.append(res)
                temps += res.temps
                if res.error and res.error != "aborted" and error is None:
                    error = res.error
                advance(res.n)
        if error is None:
            g_entry, g_temps, g_counts = _write_globals(work, items, fresh, old_globals, job.token)
            temps += g_temps
        if error is None and temps:
            if pool is not None and len(temps) > 256:
                parts = [temps[i::jobs] for i in range(jobs)]
                errs = [e for e in pool.map(_do_renames, parts) if e]
            else:
                errs = [e for e in [_do_renames(temps)] if e]
            if errs:
                error = errs[0]
    except OSError as e:
        error = _describe(e)
    except BaseException:
        _remove(t for t, _ in temps)
        _cleanup_stage(stage)
        raise
    finally:
        if pool is not None:
            pool.close()
            pool.join()
        job.close_fds()

    if error is not None:
        _remove(t for t, _ in temps)
        _cleanup_stage(stage)
        raise EmitError(f"cannot write to {root}: {error}")

    kernels = dict(manifest)
    for res in results:
        summary.written += res.written
        summary.unchanged += res.unchanged
        summary.bytes += res.bytes
        summary.bytes_written += res.bytes_written
        kernels.update(res.entries)
    summary.written += g_counts[0]
    summary.unchanged += g_counts[1]
    summary.bytes += g_counts[2]
    summary.bytes_written += g_counts[3]

    if stage is not None:
        _save_manifest(stage, kernels, g_entry)
        try:
            _install_stage(stage, root)
        except OSError as e:
            _cleanup_stage(stage)
            raise EmitError(f"cannot write to {root}: {_describe(e)}") from None
    elif summary.written > 0 or old_globals != g_entry or kernels != manifest:
        _save_manifest(root, kernels, g_entry)
    summary.seconds = time.perf_counter() - t0
    return summary


def _needs_render(item, manifest) -> bool:
    prev = manifest.get(item[2])
    return prev is None or prev[0] != item[0]


def _write_globals(work: Path, items, fresh: bool, old: list | None, token: str):
    """The include_all and registration headers; (manifest entry, temps, counts)."""
    key = _globals_key(items)
    rels = sorted(render.global_paths())
    if old and old[0] == key and len(old) == 1 + 2 * len(rels) and all(
            _stat_ok(str(work / r), old[1 + 2 * i], old[2 + 2 * i]) for i, r in enumerate(rels)):
        return old, [], (0, len(rels), sum(old[1::2][: len(rels)]), 0)
    files = render.global_files(n for _, _, n in items)
    entry, temps, written, unchanged, total, nbytes = [key], [], 0, 0, 0, 0
    try:
        for rel in rels:
            data = files[rel].encode()
            total += len(data)
            stat, wrote = _put(str(work / rel), data, fresh, token, temps)
            entry += stat
            if wrote:
                written += 1
                nbytes += len(data)
            else:
                unchanged += 1
    except OSError:
        _remove(t for t, _ in temps)
        raise
    return entry, temps, (written, unchanged, total, nbytes)


def _install_stage(stage: Path, root: Path) -> None:
    """Move a staged tree to ``root`` (absent or an empty directory)."""
    umask = os.umask(0)
    os.umask(umask)
    mode = (root.stat().st_mode & 0o7777) if root.exists() else (0o777 & ~umask)
    os.chmod(stage, mode)
    try:
        os.rename(stage, root)  # replaces an empty directory in one step
        return
    except OSError:
        if not root.is_dir():
            raise
    # e.g. root is a mount point: move entries one by one (all are new)
    for dirpath, dirnames, filenames in os.walk(stage):
        rel = os.path.relpath(dirpath, stage)
        dest = root if rel == "." else root / rel
        dest.mkdir(exist_ok=True)
        for f in filenames:
            os.replace(os.path.join(dirpath, f), dest / f)
    shutil.rmtree(stage, ignore_errors=True)


def _cleanup_stage(stage: Path | None) -> None:
    if stage is not None:
        shutil.rmtree(stage, ignore_errors=True)


class _progress:
    """Context manager yielding advance(n); a rich bar on stderr, or nothing."""

    def __init__(self, enabled: bool, total: int):
        self.enabled, self.total, self.bar = enabled, total, None

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return lambda n: None
        from rich.console import Console  # deferred: rich loads in ~50 ms and only --progress needs it
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("emit"), BarColumn(), MofNCompleteColumn(), TextColumn("kernels"),
                            TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True)
        self.bar.start()
        task = self.bar.add_task("emit", total=self.total)
        return lambda n: self.bar.advance(task, n)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False
