"""CK's cross-validation folds: problem groups keyed as CK's ``train.py`` keys them, split by GroupKFold.

CK's ``dispatcher/heuristics/train.py`` (@abe93a40fde26aa2d1a5ea851789e59ba01422c6,
``compute_group_keys`` and ``run_cv``; ``../shared/ck/ml/pipeline.md`` section 2)
groups each training row by the string
``N_C_K_G_Hi_Wi_Y_X_Di_Z_dilation_h_dilation_w`` (a column the data lacks
counts as 1; stride and pad are not in it) and splits the rows with
scikit-learn's ``GroupKFold(min(folds, groups))`` over those strings. Which
problems share a fold depends on the strings (scikit-learn orders the groups
by them) and on each group's number of rows (it deals groups, largest first,
to the lightest fold), so both are kept here as CK has them: the key string,
and the rows CK reads for it (every row with tflops > 0, a repeated
measurement of a problem included).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .lgbm import group_kfold

__all__ = ["GROUP_KEY", "ck_group_key", "fold_of_keys", "ck_folds"]

#: CK's problem-group key for the folds, in its order
GROUP_KEY = ("N", "C", "K", "G", "Hi", "Wi", "Y", "X", "Di", "Z", "dilation_h", "dilation_w")


def ck_group_key(problem) -> str:
    """CK's group key string of a problem (its dimensions as integers joined by ``_``)."""
    return "_".join(str(int(getattr(problem, f))) for f in GROUP_KEY)


def fold_of_keys(row_keys: Sequence[str], folds: int) -> dict:
    """{key: fold} of CK's GroupKFold(min(folds, groups)) over rows keyed ``row_keys`` (one entry per row CK
    reads); {} under 2 groups or folds (CK skips cross-validation)."""
    keys = np.asarray(list(row_keys), dtype=object).astype(str)
    n_groups = len(np.unique(keys)) if len(keys) else 0
    if n_groups < 2 or folds < 2:
        return {}
    splitter = group_kfold()(n_splits=min(folds, n_groups))
    out: dict = {}
    for fold, (_train, held) in enumerate(splitter.split(np.zeros((len(keys), 1)), groups=keys)):
        for key in np.unique(keys[held]).tolist():
            out[key] = fold
    return out


def ck_folds(keys: Sequence[str], counts: Sequence[int], row_keys: np.ndarray, folds: int) -> list:
    """(train, held-out) row indices of ``row_keys`` (a key per training row) in CK's folds, where CK reads
    ``counts[i]`` rows of group ``keys[i]``; [] when CK would skip cross-validation."""
    fold_of = fold_of_keys([k for k, c in zip(keys, counts) for _ in range(int(c))], folds)
    if not fold_of:
        return []
    n = max(fold_of.values()) + 1
    fold = np.array([fold_of[k] for k in np.asarray(row_keys).tolist()], dtype=np.int64)
    return [(np.flatnonzero(fold != i), np.flatnonzero(fold == i)) for i in range(n)]
