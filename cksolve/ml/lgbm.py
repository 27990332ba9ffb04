"""The optional ML dependencies, imported when a model is used: one error line when they are missing."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Iterator

from ..errors import CksolveError

__all__ = ["MissingML", "lightgbm", "INSTALL", "native_quiet"]

INSTALL = "pip install 'cksolve[ml]'"


class MissingML(CksolveError):
    """lightgbm (or scikit-learn, for training) is not installed."""


def lightgbm(passive: bool = False):
    """The lightgbm module, or MissingML naming the extra that installs it.

    Imported, where nothing has loaded scikit-learn yet, with scikit-learn hidden: lightgbm imports it (and
    scipy.stats) only for its scikit-learn estimator classes, which cksolve does not use (``lightgbm.train``,
    ``Booster``; GroupKFold comes from scikit-learn itself): 1 s of CPU of every model command (measured).
    ``passive`` (a process that predicts): LightGBM's OpenMP threads sleep between its calls rather than spin
    (``OMP_WAIT_POLICY``, read once, when OpenMP loads with lightgbm; the environment is given back after):
    prediction is a few hundred short parallel calls with Python work between them, and a spinning thread
    takes a core from that work and from the machine's (a fifth of select's CPU, measured)."""
    loaded = sys.modules.get("lightgbm")
    if loaded is not None:
        return loaded
    hide = "sklearn" not in sys.modules
    if hide:
        sys.modules["sklearn"] = None  # an import of it raises ImportError: lightgbm's compat skips its classes
    policy = os.environ.get("OMP_WAIT_POLICY")
    if passive and policy is None:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        import lightgbm  # deferred: 0.5 s to import, and optional (the ml extra)
    except ImportError:
        raise MissingML(f"model commands need lightgbm: {INSTALL}") from None
    finally:
        if hide and sys.modules.get("sklearn", 0) is None:
            del sys.modules["sklearn"]
        if passive and policy is None:
            del os.environ["OMP_WAIT_POLICY"]
    return lightgbm


def group_kfold():
    """scikit-learn's GroupKFold (what CK's train.py splits with), or MissingML."""
    try:
        from sklearn.model_selection import GroupKFold  # deferred: optional, as lightgbm
    except ImportError:
        raise MissingML(f"train needs scikit-learn: {INSTALL}") from None
    return GroupKFold


@contextmanager
def native_quiet() -> Iterator[None]:
    """fds 1 and 2 on the null device while LightGBM's C++ runs: its ``[LightGBM] [Fatal] ...`` line is
    printed by C (not through Python) before it raises, and cksolve words that error itself in one line."""
    import ctypes  # deferred: only a model load pays for it

    try:
        sys.stdout.flush()  # what Python holds for stdout goes out before fd 1 moves (stderr is line-buffered)
    except (AttributeError, OSError, ValueError):
        pass
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # a closed stdout or stderr: nothing to silence into
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        ctypes.CDLL(None).fflush(None)  # C's buffered line goes to the null device, not out after the restore
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (null, *saved):
            os.close(fd)
