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
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Iterable

from .errors import CksolveError

__all__ = ["TMP_TAG", "write_all", "remove", "write_text_atomic", "check_writable", "remove_live_temporaries",
           "StdoutClosed", "write_stdout", "flush_stdout"]

TMP_TAG = ".cksolve-tmp"
#: temporaries of write_text_atomic not yet renamed: what an exit on a signal must remove (cksolve.entry)
_live: set[str] = set()


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
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_TAG, dir=parent)
            os.close(fd)
            remove([tmp])
        except OSError as exc:
            reason = exc.strerror or str(exc)
    if reason is not None:
        raise CksolveError(f"cannot write {path}: {reason}")


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
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_TAG, dir=path.parent or ".")
        _live.add(tmp)
        try:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)  # mkstemp's 0600 is for the temporary, not the result
            write_all(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
        os.replace(tmp, path)
        _live.discard(tmp)
    except BaseException as exc:
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
        stream.write(text)
        if flush:
            stream.flush()
    except BrokenPipeError:
        raise StdoutClosed() from None


def flush_stdout() -> None:
    """Flush stdout, checked as :func:`write_stdout` checks (every command ends with it)."""
    write_stdout("", flush=True)
