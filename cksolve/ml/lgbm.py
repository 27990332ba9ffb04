"""The optional ML dependencies, imported when a model is used: one error line when they are missing."""

from __future__ import annotations

from ..errors import CksolveError

__all__ = ["MissingML", "lightgbm", "INSTALL"]

INSTALL = "pip install 'cksolve[ml]'"


class MissingML(CksolveError):
    """lightgbm (or scikit-learn, for training) is not installed."""


def lightgbm():
    """The lightgbm module, or MissingML naming the extra that installs it."""
    try:
        import lightgbm  # deferred: 0.5 s to import, and optional (the ml extra)
    except ImportError:
        raise MissingML(f"model commands need lightgbm: {INSTALL}") from None
    return lightgbm


def group_kfold():
    """scikit-learn's GroupKFold (what CK's train.py splits with), or MissingML."""
    try:
        from sklearn.model_selection import GroupKFold  # deferred: optional, as lightgbm
    except ImportError:
        raise MissingML(f"train needs scikit-learn: {INSTALL}") from None
    return GroupKFold
