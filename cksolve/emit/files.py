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
from pathlib import Path

from ..outputs import TMP_TAG, check_writable, remove, remove_live_temporaries, write_all, write_text_atomic

__all__ = ["TMP_TAG", "write_all", "write_new", "temp_name", "is_temp", "describe", "remove", "real_dir",
           "write_text_atomic", "check_writable", "read_regular", "remove_live_temporaries", "same_on_disk"]



def describe(e: OSError) -> str:
    """An OSError as a short phrase: the reason, and the file unless the whole disk is the problem."""
    what = e.strerror or str(e)
    return f"{what} ({e.filename})" if e.filename and e.errno not in (errno.ENOSPC, errno.EDQUOT) else what


def temp_name(base: str, token: str) -> str:
    return f".{base}.{token}{TMP_TAG}"


def is_temp(name: str) -> bool:
    return name.endswith(TMP_TAG)


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
