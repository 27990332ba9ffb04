"""Writing a command's outputs: a file whole or not at all, a device written into, stdout checked.

stdout goes through :func:`write_stdout` and :func:`flush_stdout`: a reader
that went away (``| head``) is :class:`StdoutClosed`, which is not an
``OSError`` -- a command line parser that turns a broken pipe into its own exit
code never sees it -- and a full disk is the ``OSError`` itself, which the
caller words as one line.

Low (beside ``formats``) so that a command that does not emit never imports
``cksolve.emit``; ``emit.files`` builds its trees on the same primitives. Every
file reaches its final name by a rename of a temporary created in the same
directory; a temporary is recognisable by ``TMP_TAG`` and one not yet renamed
is removed by an exit on a signal (``cksolve.entry``).
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
from pathlib import Path
from contextlib import contextmanager
from typing import BinaryIO, Iterable, Iterator, TextIO

from .errors import CksolveError

__all__ = ["TMP_TAG", "write_all", "remove", "write_text_atomic", "atomic_text_stream", "atomic_path",
           "check_writable", "remove_live_temporaries", "StdoutClosed", "write_stdout", "flush_stdout", "StdoutStream"]

TMP_TAG = ".cksolve-tmp"
#: temporaries of write_text_atomic not yet renamed: what an exit on a signal must remove (cksolve.entry)
_live: set[str] = set()


def _mkstemp(name: str, folder) -> tuple[int, str]:
    """A new hidden temporary beside the output (``tempfile`` imported here: only a command that writes
    a file pays for importing it)."""
    import tempfile  # deferred: only a command that writes a file pays for it

    return tempfile.mkstemp(prefix=f".{name}.", suffix=TMP_TAG, dir=folder)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def remove(paths: Iterable[str], dir_fd: int | None = None) -> int:
    """Unlink each path that exists (links themselves, never their targets); the number removed."""
    n = 0
    for p in paths:
        try:
            os.unlink(p, dir_fd=dir_fd)
            n += 1
        except OSError:
            pass
    return n


def remove_live_temporaries() -> None:
    """Remove what write_text_atomic has not renamed yet (called on an exit by signal)."""
    remove(list(_live))


def check_writable(path: Path) -> None:
    """CksolveError, worded as :func:`write_text_atomic`'s, if ``path`` clearly cannot be written: its
    directory is missing or not a directory, or ``path`` is a directory. Lets a command refuse an output
    before it does the work (``emit --cmake-list``); the write itself still reports what this cannot foresee."""
    path = Path(path)
    parent = path.parent
    reason = None
    if path.is_dir():
        reason = os.strerror(errno.EISDIR)
    elif not parent.exists():
        reason = os.strerror(errno.ENOENT)
    elif not parent.is_dir():
        reason = os.strerror(errno.ENOTDIR)
    elif not os.access(parent, os.W_OK | os.X_OK):
        reason = os.strerror(errno.EACCES)
    elif not _is_special(path):  # the directory must take a temporary (read-only mounts, /proc, root's access())
        try:
            fd, tmp = _mkstemp(path.name, parent)
            os.close(fd)
            remove([tmp])
        except OSError as exc:
            reason = _temporary_refused(path, exc)
    if reason is not None:
        raise CksolveError(f"cannot write {path}: {reason}")


def _temporary_refused(path: Path, exc: OSError) -> str:
    """Why ``path`` cannot be written, when no temporary could be made beside it (``exc``): that the
    target refuses writing, or that its directory takes no new file -- never the temporary's bare error
    (``-o /proc/version`` said "No such file or directory" of a file that exists)."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOENT, errno.ENOTDIR) and not path.parent.is_dir():
        return reason  # the directory itself is missing: that is the reason
    if path.exists() and not path.is_dir() and not os.access(path, os.W_OK):
        return os.strerror(errno.EACCES)
    return f"its directory {path.parent} takes no new file ({reason})"


def _is_special(path: Path) -> bool:
    """Whether ``path`` is a device, FIFO or socket (not a regular file, directory or symlink)."""
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


def _write_special(path: Path, text: str) -> None:
    """Write into a device or FIFO (``-o /dev/null``, a pipe), as a shell redirection would: renaming a
    temporary over it would replace the device node with a regular file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            write_all(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as exc:
        raise CksolveError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all, through an unpredictable, exclusively created temporary.

    CksolveError (one line) if the directory cannot take it; no temporary is left.
    A device or FIFO at ``path`` is written into instead (there is nothing to
    replace atomically, and replacing it would destroy it).
    """
    path = Path(path)
    if _is_special(path):
        _write_special(path, text)
        return
    with _replacing(path) as fd:
        write_all(fd, text.encode("utf-8"))


@contextmanager
def atomic_text_stream(path: Path) -> Iterator[TextIO]:
    """A text stream that becomes ``path`` whole when the block ends, or nothing if it raises: what
    :func:`write_text_atomic` does for text built in memory, for output written record by record (its
    memory does not grow with the output). A device or FIFO is written into directly."""
    path = Path(path)
    if _is_special(path):
        try:
            with open(path, "w", encoding="utf-8", newline="") as f:
                yield f
        except OSError as exc:
            raise CksolveError(f"cannot write {path}: {exc.strerror or exc}") from None
        return
    with _replacing(path) as fd:
        with os.fdopen(os.dup(fd), "w", encoding="utf-8", newline="", buffering=1 << 20) as f:
            yield f


@contextmanager
def atomic_path(path: Path) -> Iterator[str | BinaryIO]:
    """Where a writer that takes a file name or a binary stream (Parquet) writes: a temporary's path, beside
    ``path``, which becomes ``path`` when the block ends, or is removed if the block raises.

    A device or FIFO at ``path`` is written into instead, as the text writers do: the block gets it opened
    for writing (a binary stream; a Parquet writer writes it in order, never seeking), and an error writing
    it is one line naming it."""
    path = Path(path)
    if _is_special(path):
        with _special_binary(path) as out:
            yield out
        return
    with _replacing(path, named=True) as tmp:
        yield tmp


@contextmanager
def _special_binary(path: Path) -> Iterator[BinaryIO]:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise CksolveError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
    except OSError as exc:  # pyarrow passes the stream's own OSError on (ENOSPC of a full device)
        raise CksolveError(f"cannot write {path}: {exc.strerror or exc}") from None


@contextmanager
def _replacing(path: Path, named: bool = False):
    """The one way a temporary becomes ``path``: created exclusively beside it (so the rename stays in one
    file system), given the mode a plain open would, renamed over ``path`` when the block ends, removed
    if it raises. Yields the temporary's descriptor (closed here), or with ``named`` its path."""
    tmp = None
    fd = -1
    try:
        fd, tmp = _mkstemp(path.name, path.parent or ".")
    except OSError as exc:
        raise CksolveError(f"cannot write {path}: {_temporary_refused(path, exc)}") from None
    try:
        _live.add(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp's 0600 is for the temporary, not the result
        if named:
            os.close(fd)
            fd = -1
        yield tmp if named else fd
        if fd >= 0:
            os.close(fd)
            fd = -1
        os.replace(tmp, path)
        _live.discard(tmp)
    except BaseException as exc:
        if fd >= 0:
            os.close(fd)
        if tmp is not None:
            remove([tmp])
            _live.discard(tmp)
        if isinstance(exc, OSError):
            raise CksolveError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


class StdoutClosed(Exception):
    """stdout's reader went away (a closed pipe): nothing more can be said, and nothing is wrong."""


def write_stdout(text: str, flush: bool = False) -> None:
    """``text`` to stdout (then flushed, with ``flush``); :class:`StdoutClosed` for a closed pipe, the
    ``OSError`` of a full disk, CksolveError for a closed stdout."""
    stream = sys.stdout
    if stream is None:
        raise CksolveError("cannot write output: stdout is closed")
    try:
        raw = getattr(stream, "buffer", None)
        if text and isinstance(raw, io.RawIOBase):
            _write_raw(stream, raw, text)
        else:
            stream.write(text)
        if flush:
            stream.flush()
    except BrokenPipeError:
        raise StdoutClosed() from None


def _write_raw(stream, raw, text: str) -> None:
    """``text`` through an unbuffered stdout (``PYTHONUNBUFFERED``, ``python -u``): its text layer hands the
    whole text to one raw ``write`` and ignores a short count (a disk filling up mid-write), so the bytes
    are written here until all are taken or the write fails."""
    stream.flush()
    view = memoryview(text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
    while view:
        n = raw.write(view)
        if n is None:  # a non-blocking descriptor that cannot take more now
            n = 0
        view = view[n:]


def flush_stdout() -> None:
    """Flush stdout, checked as :func:`write_stdout` checks (every command ends with it)."""
    write_stdout("", flush=True)


class StdoutStream:
    """A text stream over :func:`write_stdout`, for writers that take a stream and write record by record:
    each write is checked as every other stdout write is (closed pipe, full disk)."""

    def write(self, text: str) -> int:
        write_stdout(text)
        return len(text)
