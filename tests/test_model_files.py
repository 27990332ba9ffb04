"""Model directories as untrusted input: the text-model check, bounded reads, typed JSON, atomic writes, hashes.

Models here are trained on MADE-UP measurements (``cksolve.ml.madeup``) or on random rows; nothing is claimed
about a GPU.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")

from cksolve.errors import CksolveError  # noqa: E402
from cksolve.features import FEATURE_NAMES  # noqa: E402
from cksolve.ml import read_model_dir, write_model_dir  # noqa: E402
from cksolve.ml.dirfiles import MAX_JSON_DEPTH, SHA256_KEY  # noqa: E402
from cksolve.ml.textmodel import check_model_text  # noqa: E402
from cksolve.ml.training import train  # noqa: E402
from test_cli import run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _fuzz_models():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import fuzz_models
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return fuzz_models


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(a directory ``train`` wrote, its measurements): 20 trees on made-up rows (the fuzz's model)."""
    d = tmp_path_factory.mktemp("modelfiles")
    _fuzz_models().train_small(d)
    return d / "model", d / "made_up.csv"


@pytest.fixture(scope="module")
def text(trained) -> str:
    return (trained[0] / "model_tflops.lgbm").read_text()


def _ck_style(src: Path, dst: Path) -> Path:
    """A copy without train_manifest.json (no hashes), as CK ships directories."""
    shutil.copytree(src, dst)
    (dst / "train_manifest.json").unlink()
    return dst


def _one_line_exit_2(capsys, model: Path, csv: Path, fragment: str) -> str:
    code, out, err = run(capsys, "evaluate", "--model", str(model), "--measurements", str(csv))
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith("cksolve: error: ") and err.count("\n") == 1 and len(err) < 400, err
    assert re.search(fragment, err), (fragment, err)
    return err


def _tree(text: str, k: int, key: str) -> list[str]:
    block = text.split(f"\nTree={k}\n", 1)[1].split("\n\n", 1)[0]
    return next(line for line in block.split("\n") if line.startswith(key + "=")).split("=", 1)[1].split(" ")


def _set(text: str, k: int, key: str, values: list[str]) -> str:
    """Tree ``k``'s ``key`` line replaced (tree_sizes dropped: LightGBM reads the trees in order then)."""
    head, rest = text.split(f"\nTree={k}\n", 1)
    block, tail = rest.split("\n\n", 1)
    lines = [f"{key}={' '.join(values)}" if line.startswith(key + "=") else line for line in block.split("\n")]
    return re.sub(r"\ntree_sizes=[^\n]*", "", head) + f"\nTree={k}\n" + "\n".join(lines) + "\n\n" + tail


# -- what LightGBM writes passes ------------------------------------------------------------------------------------

def test_models_lightgbm_writes_pass_and_load(trained, text, tmp_path):
    """``train``'s model, and one with categorical splits, NaN routing, +-inf thresholds and one-leaf trees."""
    info = check_model_text(text.encode(), "m")
    assert (info.trees, info.features) == (20, 97)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, 97))
    cat = FEATURE_NAMES.index("pipeline")
    x[:, cat] = rng.integers(0, 6, len(x))
    x[rng.random(len(x)) < .2, 3] = np.nan
    y = x[:, cat] % 3 + np.nan_to_num(x[:, 3]) + np.sin(x[:, 0])
    b = lgb.train({"objective": "regression", "num_leaves": 31, "verbosity": -1, "num_threads": 1, "seed": 1,
                   "min_data_in_leaf": 5}, lgb.Dataset(x, y, categorical_feature=[cat]), num_boost_round=15)
    model = b.model_to_string()
    assert re.search(r"num_cat=[1-9]", model)  # categorical splits
    assert re.search(r"decision_type=[^\n]*\b(8|10)\b", model)  # NaN missing type
    write_model_dir(tmp_path / "cat", model, {"feature_names": list(FEATURE_NAMES)}, {})
    m = read_model_dir(tmp_path / "cat")
    assert np.array_equal(m.predict(x[:50]), b.predict(x[:50]))
    stump = lgb.train({"objective": "regression", "num_leaves": 4, "verbosity": -1, "min_data_in_leaf": 10 ** 6},
                      lgb.Dataset(x[:100], y[:100], params={"min_data_in_bin": 1}), num_boost_round=2)
    assert "num_leaves=1\n" in stump.model_to_string()
    assert check_model_text(stump.model_to_string().encode(), "stump").trees == stump.num_trees()


def test_big_model_with_inf_thresholds_passes():
    """LightGBM writes ``inf`` thresholds (all non-missing values one way): a model of 255-leaf trees has them."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4000, 8))
    x[rng.random(len(x)) < .3, 1] = np.nan
    y = np.nan_to_num(x[:, 1], nan=5.0) + x[:, 0]
    b = lgb.train({"objective": "regression", "num_leaves": 255, "verbosity": -1, "num_threads": 1,
                   "min_data_in_leaf": 2}, lgb.Dataset(x, y), num_boost_round=30)
    t = b.model_to_string()
    assert check_model_text(t.encode(), "big").trees == 30


# -- faults: one line naming the file and the tree ------------------------------------------------------------------

def _faults(text: str) -> list[tuple[str, str, str]]:
    left = _tree(text, 3, "left_child")
    feat = _tree(text, 2, "split_feature")
    thr = _tree(text, 1, "threshold")
    n = len(_tree(text, 3, "leaf_value"))  # tree 3's leaves: its internal nodes are 0..n-2
    cut = text.index("\nTree=5\n") + 1
    return [
        ("child out of range", _set(text, 3, "left_child", [str(n)] + left[1:]), r"tree 3: left_child value"),
        ("negative child out of range", _set(text, 3, "left_child", [str(-n - 5)] + left[1:]),
         r"tree 3: left_child value"),
        ("cycle to the root", _set(text, 3, "left_child", ["0"] + left[1:]), r"tree 3: the root is a child"),
        ("child short list", _set(text, 3, "left_child", left[:-1]), r"tree 3: left_child has"),
        ("feature out of range", _set(text, 2, "split_feature", ["97"] + feat[1:]), r"tree 2: split_feature value 97"),
        ("negative feature", _set(text, 2, "split_feature", ["-1"] + feat[1:]), r"tree 2: split_feature value -1"),
        ("nan threshold", _set(text, 1, "threshold", ["nan"] + thr[1:]), r"tree 1: threshold is not a list"),
        ("num_leaves 0", _set(text, 4, "num_leaves", ["0"]), r"tree 4: num_leaves value 0"),
        ("truncated at a tree boundary", text[:cut], r"after tree 4: the file ends|tree 4: the file ends"),
        ("truncated mid-tree", text[:text.index("left_child=", cut)], r"tree 5: the file ends"),
        ("tree_sizes off by one", re.sub(r"tree_sizes=(\d+)", lambda m: f"tree_sizes={int(m.group(1)) + 1}", text),
         r"tree 0: tree_sizes says"),
        ("num_class 0", text.replace("num_class=1\n", "num_class=0\n"), r"header num_class value 0"),
        ("num_class 3", text.replace("num_class=1\n", "num_class=3\n"), r"one-output regression"),
        ("linear tree", _set(text, 0, "is_linear", ["1"]), r"tree 0: a linear tree"),
        ("NUL byte", text.replace("Tree=2", "Tree=\0"), r"a NUL byte"),
        ("Windows line ends", text.replace("\n", "\r\n"), r"carriage returns"),
        ("trees out of order", text.replace("Tree=2\n", "Tree=7\n"), r"expected 'Tree=2'"),
        # found by the fuzz: LightGBM aborts the process (SIGABRT) on a token its Atof cannot read
        ("a token Atof aborts on", _set(text, 1, "internal_value", ["0.038f855"] + _tree(text, 1, "internal_value")[1:]),
         r"tree 1: internal_value is not a list of numbers"),
        ("a threshold strtod cannot start", _set(text, 1, "threshold", ["e5"] + thr[1:]),
         r"tree 1: threshold is not a list of numbers"),
        ("a double sign", _set(text, 1, "split_gain", ["--1"] + _tree(text, 1, "split_gain")[1:]),
         r"tree 1: split_gain is not a list of numbers"),
    ]


def test_a_line_built_to_make_a_pattern_backtrack_is_refused_at_once(text):
    """Found by the fuzz: a number list whose last token fails made the token pattern backtrack exponentially."""
    n = len(_tree(text, 1, "split_gain"))
    bad = _set(text, 1, "split_gain", ["12345678"] * (n - 1) + ["1e"])
    started = time.monotonic()
    with pytest.raises(CksolveError, match="tree 1: split_gain is not a list of numbers"):
        check_model_text(bad.encode(), "m")
    assert time.monotonic() - started < 2


def test_faults_are_one_line_naming_file_and_tree(capsys, trained, text, tmp_path):
    model, csv = trained
    for name, bad, fragment in _faults(text):
        d = _ck_style(model, tmp_path / re.sub(r"\W", "_", name))
        (d / "model_tflops.lgbm").write_bytes(bad.encode())
        err = _one_line_exit_2(capsys, d, csv, fragment)
        assert str(d / "model_tflops.lgbm") in err, (name, err)


# -- malformed directories through the CLI --------------------------------------------------------------------------

def _gz_bomb(path: Path, mib: int) -> None:
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * (1 << 20)
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(z.compress(block))
        f.write(z.flush())


def _spec(d: Path, value) -> None:
    (d / "feature_spec.json").write_text(value if isinstance(value, str) else json.dumps(value))


def _edit_spec(**changes):
    def do(d: Path) -> None:
        spec = json.loads((d / "feature_spec.json").read_text())
        spec.update(changes)
        _spec(d, spec)
    return do


def _replace(name: str, how: str):
    def do(d: Path) -> None:
        p = d / name
        if p.exists():
            p.unlink()
        if how == "dir":
            p.mkdir()
        elif how == "zero":
            p.symlink_to("/dev/zero")
        elif how == "empty":
            p.write_bytes(b"")
        elif how == "binary":
            p.write_bytes(bytes(range(256)) * 4)
        elif how == "big":
            with open(p, "wb") as f:
                f.truncate(5 << 20)
    return do


def _gz(mode: str):
    def do(d: Path) -> None:
        text = (d / "model_tflops.lgbm").read_bytes()
        (d / "model_tflops.lgbm").unlink()
        p = d / "model_tflops.lgbm.gz"
        if mode == "corrupt":
            p.write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(200)))
        elif mode == "truncated":
            p.write_bytes(gzip.compress(text)[:-100])
        elif mode == "bomb":
            _gz_bomb(p, 300)
        elif mode == "garbage after":
            p.write_bytes(gzip.compress(text) + b"not gzip")
    return do


def _manifest(value):
    def do(d: Path) -> None:
        (d / "train_manifest.json").write_text(value if isinstance(value, str) else json.dumps(value))
    return do


DEEP = "[" * 100_000 + "]" * 100_000
NESTED = json.dumps({"feature_names": list(FEATURE_NAMES), "x": json.loads("[" * 40 + "]" * 40)})

MALFORMED = [
    ("spec nested 100000 deep", lambda d: _spec(d, DEEP), "nested more than"),
    ("spec nested 40 deep", lambda d: _spec(d, NESTED), f"nested more than {MAX_JSON_DEPTH}"),
    ("spec a list", lambda d: _spec(d, "[]"), "expected a JSON object"),
    ("spec not JSON", lambda d: _spec(d, "{"), "not valid JSON"),
    ("spec empty", _replace("feature_spec.json", "empty"), "not valid JSON"),
    ("spec not UTF-8", _replace("feature_spec.json", "binary"), "not UTF-8|not valid JSON"),
    ("spec a directory", _replace("feature_spec.json", "dir"), "is a directory"),
    ("spec /dev/zero", _replace("feature_spec.json", "zero"), "not a regular file"),
    ("spec over the cap", _replace("feature_spec.json", "big"), "larger than 4 MiB"),
    ("spec huge integer", lambda d: _spec(d, '{"x": ' + "9" * 5000 + "}"), "not valid JSON"),
    ("feature_names a string", _edit_spec(feature_names="N C K"), "feature_names must be a list"),
    ("feature_names numbers", _edit_spec(feature_names=list(range(97))), "feature_names must be a list"),
    ("log_targets a number", _edit_spec(log_targets=1), "log_targets must be a list"),
    ("arch a list", _edit_spec(arch=["gfx950"]), "arch must be a string"),
    ("dtype a number", _edit_spec(dtype=16), "dtype must be a string"),
    ("semantics a number", _edit_spec(cksolve_feature_semantics=3), "cksolve_feature_semantics must be a string"),
    ("semantics unknown", _edit_spec(cksolve_feature_semantics="x" * 5000), "is not one of"),
    ("manifest nested", _manifest(DEEP), "nested more than"),
    ("manifest a number", _manifest("7"), "expected a JSON object"),
    ("manifest /dev/zero", _replace("train_manifest.json", "zero"), "not a regular file"),
    ("manifest hashes a list", _manifest({SHA256_KEY: ["x"]}), "must map file names"),
    ("manifest hash of a path", _manifest({SHA256_KEY: {"../../etc/passwd": "0"}}), "not a file name"),
    ("model empty", _replace("model_tflops.lgbm", "empty"), "not a LightGBM text model"),
    ("model a directory", _replace("model_tflops.lgbm", "dir"), "is a directory"),
    ("model /dev/zero", _replace("model_tflops.lgbm", "zero"), "not a regular file"),
    ("model binary", _replace("model_tflops.lgbm", "binary"), "NUL byte"),
    ("model none", lambda d: (d / "model_tflops.lgbm").unlink(), "no model_tflops.lgbm"),
    ("gz corrupt", _gz("corrupt"), "not a valid gzip"),
    ("gz truncated", _gz("truncated"), "gzip is truncated"),
    ("gz bomb", _gz("bomb"), "decompresses to more than 256 MiB"),
    ("gz with garbage after", _gz("garbage after"), "not a valid gzip"),
    ("spec names 3 features", _edit_spec(feature_names=["N", "C", "K"]), "reads 97 features, its spec names 3"),
]


@pytest.mark.parametrize("name,make,fragment", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_model_directory_is_one_line_exit_2(capsys, trained, tmp_path, name, make, fragment):
    model, csv = trained
    d = _ck_style(model, tmp_path / "m")
    (d / "train_manifest.json").write_text("{}")
    make(d)
    started = time.monotonic()
    _one_line_exit_2(capsys, d, csv, fragment)
    assert time.monotonic() - started < 20, name  # a bomb or /dev/zero is refused without reading it all


def test_select_model_refuses_as_evaluate_does(capsys, trained, tmp_path):
    model, _ = trained
    d = _ck_style(model, tmp_path / "m")
    _replace("model_tflops.lgbm", "zero")(d)
    code, out, err = run(capsys, "select", "--problem", "N=1,C=64,K=64,Hi=7,Wi=7", "-r", "tiny", "-a", "gfx950",
                         "--dtype", "bf16", "--model", str(d))
    assert code == 2 and out == "" and err.count("\n") == 1 and "not a regular file" in err


# -- atomic directories and hashes ----------------------------------------------------------------------------------

def test_train_records_hashes_and_a_mixed_directory_is_refused(capsys, trained, tmp_path):
    model, csv = trained
    manifest = json.loads((model / "train_manifest.json").read_text())
    assert sorted(manifest[SHA256_KEY]) == ["cv_metrics.json", "feature_importances_tflops.json",
                                            "feature_spec.json", "model_tflops.lgbm"]
    other = tmp_path / "other"
    train([csv], "gfx950", "bf16", "forward", other, seed=8, folds=0, trees=5)
    for name in ("feature_spec.json", "model_tflops.lgbm", "train_manifest.json", "cv_metrics.json"):
        mixed = tmp_path / f"mixed_{name}"
        shutil.copytree(model, mixed)
        shutil.copy(other / name, mixed / name)  # what a kill between two moves of a non-atomic write left
        if name == "cv_metrics.json" and (other / name).read_bytes() == (model / name).read_bytes():
            continue
        _one_line_exit_2(capsys, mixed, csv, "mixes two trainings")
    shutil.copytree(model, tmp_path / "lost")
    (tmp_path / "lost" / "cv_metrics.json").unlink()
    _one_line_exit_2(capsys, tmp_path / "lost", csv, "cv_metrics.json, listed in train_manifest.json, is missing")
    # CK's directories carry no hashes: they load as before
    assert read_model_dir(_ck_style(model, tmp_path / "ck")).trees == 20


def test_train_replaces_a_directory_whole(trained, tmp_path):
    model, csv = trained
    out = tmp_path / "out"
    write_model_dir(out, "x", {}, {}, gz=True)  # an old gzipped directory with a stale extra file
    (out / "cv_metrics_tflops.json").write_text("{}")
    train([csv], "gfx950", "bf16", "forward", out, seed=7, folds=0, trees=20)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in model.iterdir())
    assert (out / "model_tflops.lgbm").read_bytes() == (model / "model_tflops.lgbm").read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left
    assert oct(out.stat().st_mode & 0o777) == oct(0o777 & ~_umask())
    keep = tmp_path / "notes"
    keep.mkdir()
    (keep / "thesis.tex").write_text("mine")
    with pytest.raises(CksolveError, match="thesis.tex.*not a model directory's file"):
        write_model_dir(keep, "x", {}, {})
    assert (keep / "thesis.tex").read_text() == "mine"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- prediction stays interruptible ---------------------------------------------------------------------------------

def _signalled(code: str, ready: str, wait: float, sig) -> tuple[int, str]:
    """Run ``code`` in a child; once it prints ``ready`` and ``wait`` seconds more, send ``sig``: (exit code, stderr)."""
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == ready + "\n"
        time.sleep(wait)
        p.send_signal(sig)
        rc = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return rc, p.stderr.read()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_prediction_is_interruptible(trained, sig):
    model, _ = trained
    code = ("import sys, numpy as np\nfrom cksolve.ml import read_model_dir\n"
            f"m = read_model_dir({str(model)!r})\nx = np.random.default_rng(0).normal(size=(20000, 97))\n"
            "print('ready', flush=True)\nwhile True:\n    m.predict(x)\n")
    rc, err = _signalled(code, "ready", 0.5, sig)
    # SIGINT: Python's KeyboardInterrupt reached between LightGBM's calls (the CLI turns it into "interrupted",
    # exit 130); SIGTERM: the default action
    assert rc in ((1, -signal.SIGINT) if sig == signal.SIGINT else (-signal.SIGTERM,)), (rc, err[-300:])
    if sig == signal.SIGINT:
        assert "KeyboardInterrupt" in err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_command_interrupted_while_predicting_says_so(trained, sig):
    """Through the CLI, a signal while LightGBM predicts ends the command as any other: the house's one line
    and exit 128 + signal (here prediction is made endless, so the signal always lands inside it)."""
    model, csv = trained
    code = ("import os, sys\nimport cksolve.entry as entry\nfrom cksolve.ml import modeldir\n"
            "real = modeldir.ModelDir.predict\n"
            "def endless(self, rows):\n    os.write(1, b'predicting\\n')\n    while True:\n        real(self, rows)\n"
            "modeldir.ModelDir.predict = endless\n"
            f"sys.argv = ['cksolve', 'evaluate', '--model', {str(model)!r}, '--measurements', {str(csv)!r}]\n"
            "entry.main()\n")
    rc, err = _signalled(code, "predicting", 0.2, sig)
    assert rc == 128 + sig and err.endswith(f"cksolve: interrupted by {signal.Signals(sig).name}\n"), (rc, err[-300:])


# -- fuzz -----------------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_fuzz_truncations_and_edits_never_kill_or_hang(text, tmp_path):
    """Every tree-boundary truncation and 300 random edits of ``train``'s model (benchmarks/fuzz_models.py)."""
    report = _fuzz_models().fuzz(text.encode(), 300, seed=5, timeout=60, work=tmp_path)
    assert report["truncations"] >= 20 * 3 and report["refused"] > report["truncations"]
    assert report["loaded_and_predicted"] > 0, report
    bad = {k: report[k] for k in ("signal_deaths", "hangs", "child_exits", "not_one_line", "checker_errors",
                                  "slow_checks")}
    assert not any(bad.values()), report
