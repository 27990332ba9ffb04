"""train's cross-validation folds are CK's folds: CK's group key strings, scikit-learn's GroupKFold over them.

CK's ``train.py`` (@abe93a40fde26aa2d1a5ea851789e59ba01422c6, ``compute_group_keys``) keys each row
``N_C_K_G_Hi_Wi_Y_X_Di_Z_dilation_h_dilation_w`` (a missing column counts as 1) and splits its rows with
``GroupKFold(min(5, groups))``. The reference here is built from the CSV's rows directly, as CK reads them
(every row with tflops > 0), independently of cksolve's reader.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

pytest.importorskip("lightgbm")
GroupKFold = pytest.importorskip("sklearn.model_selection").GroupKFold

from cksolve.ml.madeup import made_up_rows  # noqa: E402
from cksolve.ml.training_data import CK_COLUMNS, read_measurements  # noqa: E402
from cksolve.ml.training import fold_splits, train_data  # noqa: E402

CK_KEY = ("N", "C", "K", "G", "Hi", "Wi", "Y", "X", "Di", "Z", "dilation_h", "dilation_w")


def ck_reference(path, folds: int = 5) -> list[set]:
    """The problem-group keys of each of CK's folds, from the file's rows as CK's train.py groups them."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if float(r["tflops"]) > 0]
    keys = np.array(["_".join(str(int(float(r.get(c) or 1))) for c in CK_KEY) for r in rows])
    n = min(folds, len(np.unique(keys)))
    return [set(keys[held].tolist()) for _tr, held in GroupKFold(n_splits=n).split(keys, groups=keys)]


def ours(path, folds: int = 5) -> list[set]:
    d = train_data(read_measurements([path]), "gfx950", "bf16", "ck-names")
    return [set(d.groups[held].tolist()) for _tr, held in fold_splits(d, folds)]


def assert_same_folds(got: list[set], want: list[set]) -> None:
    assert len(got) == len(want), f"{len(got)} folds, CK has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, (f"fold {i}: {len(g & w)} of CK's {len(w)} groups; only ours: {sorted(g - w)[:3]}, "
                        f"only CK's: {sorted(w - g)[:3]}")


@pytest.mark.ck_data
def test_folds_on_the_real_file_are_cks(ck):
    """The shared file (REAL measurements; 185 problems, three of them measured twice: 40 rows in CK's group)."""
    path = ck / "measurements" / "training_data_forward_bf16_20.csv"
    want = ck_reference(path)
    assert sum(len(w) for w in want) == 185
    assert_same_folds(ours(path), want)


@pytest.mark.parametrize("folds", [2, 3, 5])
def test_folds_on_cks_24_column_layout(tmp_path, folds):
    """CK's 24-column CSV (MADE-UP TFLOPS), dilation and 3D columns present: the key reads them."""
    path = tmp_path / "bench.csv"
    with open(path, "w") as f:
        f.write(",".join(CK_COLUMNS) + "\n")
        for row in made_up_rows(30, 3, 12):
            f.write(",".join(map(str, row)) + "\n")
    assert_same_folds(ours(path, folds), ck_reference(path, folds))
