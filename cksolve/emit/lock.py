"""One emit at a time per output tree: the directory's own lock (``flock``)."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path

__all__ = ["locked"]


@contextmanager
def locked(root: Path, on_wait):
    """Hold the directory's lock (flock on the directory itself: nothing to clean up after a kill);
    ``on_wait(line)`` is told when another emit holds it."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(f"waiting for another emit into {root} to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
