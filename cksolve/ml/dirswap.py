"""Replace a directory by another in one step: Linux's ``renameat2(RENAME_EXCHANGE)``, which ``os`` does not wrap.

``exchange(a, b)`` swaps the two paths atomically (each name always names a
directory: the old one or the new one); where the call is missing (not Linux,
a libc without it, a file system that refuses the flag) it answers False and
the caller falls back to two renames (old aside, new in place), which leave a
moment with nothing at the path.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["exchange"]

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _load():
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2  # glibc >= 2.28, musl >= 1.2.5
    except (OSError, AttributeError):
        return None
    fn.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    fn.restype = ctypes.c_int
    return fn


#: libc's renameat2, or None where there is none
_RENAMEAT2 = _load()


def exchange(a, b) -> bool:
    """Swap the paths ``a`` and ``b`` (both must exist) in one atomic step; False, nothing changed, when this
    system cannot (the caller then renames)."""
    if _RENAMEAT2 is None:
        return False
    return _RENAMEAT2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0
