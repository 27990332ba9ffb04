"""A model scores kernels of the arch and dtype it was trained on: a gfx950 model asked to rank gfx942 kernels
is refused (one line, exit 2), as a bf16 model asked for fp16 kernels is.

The model here is trained on MADE-UP measurements (``cksolve.ml.madeup``); nothing is claimed about a GPU.
"""

from __future__ import annotations

import pytest

pytest.importorskip("lightgbm")

from cksolve.ml.madeup import write_csv  # noqa: E402
from cksolve.ml.training import train  # noqa: E402
from test_cli import run  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("archmodel")
    write_csv(d / "m.csv", 6, 1, 12)
    train([d / "m.csv"], "gfx950", "bf16", "forward", d / "model", seed=1, folds=0, trees=4)
    return d


SELECT = ["select", "-p", "N=1", "-r", "tiny", "--top", "1"]


@pytest.mark.parametrize("argv,words", [
    ([*SELECT, "-a", "gfx942", "--dtype", "bf16", "--model", "{m}"], "is a gfx950 model; the kernels are gfx942"),
    ([*SELECT, "-a", "gfx950", "--dtype", "fp16", "--model", "{m}"], "is a bf16 model; the kernels are fp16"),
    (["evaluate", "--model", "{m}", "--measurements", "{csv}", "--arch", "gfx942"],
     "is a gfx950 model; the kernels are gfx942"),
    (["search", "-p", "N=1", "-r", "tiny", "-a", "gfx942", "--dtype", "bf16", "--model", "{m}"],
     "is a gfx950 model; the kernels are gfx942"),
], ids=["select-arch", "select-dtype", "evaluate-arch", "search-arch"])
def test_a_model_of_another_arch_or_dtype_is_refused(capsys, model, argv, words):
    argv = [a.format(m=model / "model", csv=model / "m.csv") for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and not out, (code, err)
    assert words in err, err


def test_the_models_own_arch_ranks(capsys, model):
    code, out, err = run(capsys, *SELECT, "-a", "gfx950", "--dtype", "bf16", "--model", str(model / "model"))
    assert code == 0 and out, err
    code, out, err = run(capsys, *SELECT, "-a", "gfx950:xnack-", "--dtype", "bf16", "--model", str(model / "model"))
    assert code == 0 and out, err  # a target ID of the model's arch is its arch
