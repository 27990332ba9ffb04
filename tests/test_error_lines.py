"""Error lines stay one short line whatever the input, and never echo a file's contents; ``train``'s numbers are
bounded and its stdin is read like a file.

The model commands' cases train on MADE-UP measurements (``cksolve.ml.madeup``); nothing is claimed about a GPU.
"""

from __future__ import annotations

import json

import pytest

from cksolve.cli.errors import LINE_CAP, RUN_CAP, capped
from test_cli import run

HUGE = "x" * 100_000
DEEP = "/tmp/" + "d/" * 3000 + "f"


@pytest.mark.parametrize("argv", [
    ["search", "-p", "N=1", "-a", "gfx942", "--device", HUGE],
    ["select", "-p", "N=1", "-a", "gfx942", "--dtype", HUGE, "-r", "tiny"],
    ["sample", "-r", "tiny", "-n", HUGE],
    ["search", "-p", "N=1", "-a", "gfx942", "--top", HUGE],
    ["audit", "-r", "tiny", "--fail-on", HUGE],
    ["train", "--measurements", "m.csv", "--arch", "gfx950", "--dtype", "bf16", "--variant", HUGE, "--out", "x"],
    ["count", "--" + HUGE],
    ["count", "-r", DEEP],
    ["search", "-p", "N=1", "-a", "gfx942", "-o", DEEP],
    ["count", "-r", "tiny", "--arch", " ".join(["gfx9"] * 20_000)],  # short words, a long line
], ids=lambda a: a[0] + "-" + next((x for x in a[1:] if x.startswith("-")), ""))
def test_a_huge_value_gives_one_short_line(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1, err[:300]
    assert len(err) < LINE_CAP + 100, (len(err), err[:300])


def test_capped_cuts_runs_and_lines():
    assert capped("unknown 'abc'; valid: a, b") == "unknown 'abc'; valid: a, b"
    run_ = capped("bad " + "y" * 5000 + " end")
    assert run_ == "bad " + "y" * RUN_CAP + "... (5,000 characters) end"
    line = capped("w " * 5000)
    assert len(line) <= LINE_CAP and "characters cut" in line


SECRET = "s3cr3t:x:0:0:s3cr3t:/root:/bin/bash"  # /etc/passwd's form


@pytest.mark.parametrize("argv", [
    ["select", "-p", "N=1", "-a", "gfx942", "--dtype", "fp16", "-r", "tiny", "--measurements", "{f}"],
    ["search", "-p", "N=1", "-a", "gfx942", "-r", "tiny", "--measurements", "{f}"],
    ["train", "--measurements", "{f}", "--arch", "gfx950", "--dtype", "bf16", "--variant", "forward", "--out", "{d}"],
    ["minimize", "--problems", "{p}", "--perf", "{f}", "-r", "tiny", "-a", "gfx942"],
], ids=lambda a: a[0])
def test_a_foreign_file_is_named_not_echoed(capsys, tmp_path, argv):
    f = tmp_path / "passwd"
    f.write_text(f"{SECRET}\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
    p = tmp_path / "p.jsonl"
    p.write_text('{"N": 1}\n')
    argv = [a.format(f=f, d=tmp_path / "model", p=p) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1, err
    assert "s3cr3t" not in err and "daemon" not in err, err
    assert f"{f}:1: column 1 of the header" in err, err


def _made_up(tmp_path):
    from cksolve.ml.madeup import made_up_rows
    from cksolve.ml.training_data import CK_COLUMNS

    m = tmp_path / "m.csv"
    m.write_text(",".join(CK_COLUMNS) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in made_up_rows(6, 1, 12)))
    return m


TRAIN = ["train", "--arch", "gfx950", "--dtype", "bf16", "--variant", "forward", "--folds", "0"]


@pytest.mark.parametrize("option,value,bound", [
    ("--trees", str(2 ** 31), "1..100,000"), ("--trees", str(10 ** 20), "1..100,000"), ("--trees", "0", "1..100,000"),
    ("--seed", str(2 ** 32), "0..2147483647"), ("--seed", str(2 ** 31), "0..2147483647"),
    ("--seed", "-1", "0..2147483647"),
])
def test_train_numbers_are_bounded(capsys, tmp_path, option, value, bound):
    m = _made_up(tmp_path)
    code, _, err = run(capsys, *TRAIN, "--measurements", str(m), "--out", str(tmp_path / "model"), option, value)
    assert code == 2 and err == f"cksolve: error: {option} {value} is out of range: {bound}" + \
        (" (LightGBM's seed is a 32-bit int)\n" if option == "--seed" else "\n"), err
    assert not (tmp_path / "model").exists()


def test_train_reads_measurements_from_stdin(capsys, tmp_path, monkeypatch):
    pytest.importorskip("lightgbm")
    m = _made_up(tmp_path)
    code, out, err = run(capsys, *TRAIN, "--measurements", "-", "--out", str(tmp_path / "model"), "--trees", "5",
                         "--seed", str(2 ** 31 - 1), stdin=m.read_text(), monkeypatch=monkeypatch)
    assert code == 0, err
    manifest = json.loads((tmp_path / "model" / "train_manifest.json").read_text())
    assert manifest["timestamp"] is None  # stdin has no modification time
    spec = json.loads((tmp_path / "model" / "feature_spec.json").read_text())
    assert spec["params"]["seed"] == 2 ** 31 - 1


def test_made_up_data_leaves_a_trace(capsys, tmp_path, monkeypatch):
    """``python -m cksolve.ml.madeup`` marks its rows (``run_id`` = made_up, a column CK's converter ignores);
    a model trained on them says so in train's line and its manifest; measured data has no such key."""
    pytest.importorskip("lightgbm")
    import contextlib
    import io

    from cksolve.ml import madeup

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        madeup.main(["--problems", "6", "--seed", "1", "--kernels", "12"])
    lines = buf.getvalue().splitlines()
    assert lines[0].split(",") == list(madeup.MADE_UP_COLUMNS) and lines[0].endswith(",run_id")
    assert all(line.endswith(",made_up") for line in lines[1:])
    f = tmp_path / "bench.csv"
    f.write_text(buf.getvalue())
    code, out, err = run(capsys, *TRAIN, "--measurements", str(f), "--out", str(tmp_path / "model"), "--trees", "5")
    assert code == 0, err
    assert " (MADE-UP data: 72 rows from cksolve.ml.madeup, no GPU measured them)\n" in out, out
    assert json.loads((tmp_path / "model" / "train_manifest.json").read_text())["made_up"] is True
    code, _, err = run(capsys, "select", "-p", "N=1", "-r", "tiny", "-a", "gfx950", "--dtype", "bf16", "--model",
                       str(tmp_path / "model"))
    assert code == 0 and "; trained on MADE-UP data)" in err, err
    measured = _made_up(tmp_path)  # the same rows without the run_id column: nothing marks them
    code, out, err = run(capsys, *TRAIN, "--measurements", str(measured), "--out", str(tmp_path / "m2"), "--trees", "5")
    assert code == 0 and "MADE-UP" not in out
    assert "made_up" not in json.loads((tmp_path / "m2" / "train_manifest.json").read_text())


@pytest.mark.parametrize("argv,name,text", [
    (["coverage", "--problems", "{f}", "-r", "tiny", "-a", "gfx942"], "w.csv", "N,K,C\n1,64,{s}\n"),
    (["coverage", "--problems", "{f}", "-r", "tiny", "-a", "gfx942"], "w.jsonl", '{{"N": 1, "C": "{s}"}}\n'),
    (["select", "-p", "N=1", "-r", "tiny", "-a", "gfx942", "--dtype", "fp16", "--measurements", "{f}"], "m.csv",
     "kernel,N,C,tflops\ngrouped_conv_forward_fp16_2d_64x64x64_compv3_intrawave,1,{s},1\n"),
], ids=["csv-cell", "jsonl-value", "measurement-cell"])
def test_a_bad_cell_is_named_not_echoed(capsys, tmp_path, argv, name, text):
    f = tmp_path / name
    f.write_text(text.format(s=SECRET.replace(":", "_")))
    code, _, err = run(capsys, *[a.format(f=f) for a in argv])
    assert code == 2 and err.count("\n") == 1, err
    assert "s3cr3t" not in err, err
    assert f"{f}:" in err and "field C: not an integer (expected decimal ASCII digits, at most 18)" in err, err


def test_every_made_up_file_the_repository_writes_is_marked(tmp_path):
    """The benchmarks wrote ``made_up_rows`` into CK's 24 columns themselves, without ``run_id`` = made_up, so the
    models they trained (bench_select's, fuzz_models') said nothing of it. One writer marks every row; outside the
    tests nothing calls ``made_up_rows`` but it."""
    import re
    from pathlib import Path

    from cksolve.ml import madeup
    from cksolve.ml.training_data import read_measurements

    path = tmp_path / "bench.csv"
    madeup.write_csv(path, 3, 1, 6)
    assert read_measurements([path]).made_up == 18
    root = Path(__file__).resolve().parents[1]
    callers = [str(p.relative_to(root)) for d in ("cksolve", "benchmarks", "tools") for p in (root / d).rglob("*.py")
               if p.name != "madeup.py" and re.search(r"\bmade_up_rows\(", p.read_text(encoding="utf-8"))]
    assert callers == [], callers


@pytest.mark.parametrize("argv", [
    [*TRAIN, "--measurements", "-", "--measurements", "-", "--out", "{d}"],
    ["select", "--measurements", "-", "--problems", "-", "-r", "tiny", "-a", "gfx950", "--dtype", "bf16"],
    ["minimize", "--problems", "-", "--perf", "-", "-r", "tiny", "-a", "gfx950", "--dtype", "bf16"],
], ids=lambda a: a[0])
def test_stdin_given_twice_is_one_line(capsys, tmp_path, monkeypatch, argv):
    """``-`` for two inputs: the first read closed stdin and the second was a ValueError traceback ("I/O operation
    on closed file")."""
    m = _made_up(tmp_path)
    argv = [a.format(d=tmp_path / "model") for a in argv]
    code, out, err = run(capsys, *argv, stdin=m.read_text(), monkeypatch=monkeypatch)
    assert code == 2 and out == "" and err.count("\n") == 1, err[-300:]
    assert "stdin" in err and "read already" in err, err
    assert not (tmp_path / "model").exists()
