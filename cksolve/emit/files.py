"""File operations an emit can trust: no symlink followed, no partial file published.

Every file reaches its final name by a rename of a temporary created with
``O_EXCL`` in the same directory (so the rename never crosses a file system, a
mount point included, and never writes through a symlink an attacker planted:
``O_EXCL`` refuses to open one and a rename replaces the link itself). A
temporary is recognisable by ``TMP_TAG``; whatever a killed emit left is swept
by the next one, which holds the directory's lock while it does.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from contextlib import contextmanager
from typing import Iterable, Iterator, TextIO

from ..errors import CksolveError

__all__ = ["TMP_TAG", "write_all", "write_new", "temp_name", "is_temp", "describe", "remove", "real_dir",
           "write_text_atomic", "atomic_text_stream", "check_writable", "read_regular", "remove_live_temporaries", "same_on_disk"]

TMP_TAG = ".cksolve-tmp"
#: temporaries of write_text_atomic not yet renamed: what an exit on a signal must remove (cksolve.entry)
_live: set[str] = set()


def describe(e: OSError) -> str:
    """An OSError as a short phrase: the reason, and the file unless the whole disk is the problem."""
    what = e.strerror or str(e)
    return f"{what} ({e.filename})" if e.filename and e.errno not in (errno.ENOSPC, errno.EDQUOT) else what


def temp_name(base: str, token: str) -> str:
    return f".{base}.{token}{TMP_TAG}"


def is_temp(name: str) -> bool:
    return name.endswith(TMP_TAG)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_new(path: str, data: bytes, dir_fd: int | None = None) -> tuple[int, int]:
    """Create ``path`` (must not exist, never a symlink) holding ``data``; return (size, mtime_ns).

    On any failure, an interrupt included, the file is removed again.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
    try:
        write_all(fd, data)
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        remove([path], dir_fd)
        raise
    os.close(fd)
    return st.st_size, st.st_mtime_ns


def same_on_disk(path: str, data: bytes) -> tuple[int, int] | None:
    """(size, mtime_ns) of ``path`` if it is a regular file holding exactly ``data``; a symlink never is."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            same = os.read(fd, len(data) + 1) == data
        finally:
            os.close(fd)
        return (st.st_size, st.st_mtime_ns) if same else None
    except OSError:
        return None


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


def real_dir(path: Path) -> bool:
    """Make ``path`` a real directory: create it, or replace a symlink standing there.

    Returns whether it was created. Anything else in the way raises OSError
    (ENOTDIR), which the caller reports.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        os.mkdir(path)
        return True
    if stat.S_ISDIR(st.st_mode):
        return False
    if stat.S_ISLNK(st.st_mode):
        os.unlink(path)  # writing through it would write outside the output directory
        os.mkdir(path)
        return True
    raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))


def remove_live_temporaries() -> None:
    """Remove what write_text_atomic has not renamed yet (called on an exit by signal)."""
    remove(list(_live))


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (not a link, FIFO, device) of at most ``limit`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, left = [], st.st_size
        while left > 0:
            b = os.read(fd, left)
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


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


@contextmanager
def atomic_text_stream(path: Path) -> Iterator[TextIO]:
    """A text stream that becomes ``path`` whole when the block ends, or nothing if it raises: what
    :func:`write_text_atomic` does for text built in memory, for output written record by record
    (its memory does not grow with the output). A device or FIFO is written into directly."""
    path = Path(path)
    if _is_special(path):
        try:
            with open(path, "w", encoding="utf-8", newline="") as f:
                yield f
        except OSError as exc:
            raise CksolveError(f"cannot write {path}: {exc.strerror or exc}") from None
        return
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_TAG, dir=path.parent or ".")
        _live.add(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8", newline="", buffering=1 << 20) as f:
            yield f
        os.replace(tmp, path)
        _live.discard(tmp)
    except BaseException as exc:
        if tmp is not None:
            remove([tmp])
            _live.discard(tmp)
        if isinstance(exc, OSError):
            raise CksolveError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
