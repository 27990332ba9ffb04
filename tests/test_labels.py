"""Extra columns of a workload file (a model, a layer) pass through to every per-problem record."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "cksolve", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def _coverage(path: Path, fmt: str) -> subprocess.CompletedProcess:
    return _cli("coverage", "--problems", str(path), "-r", "tiny", "-a", "gfx942", "--dtype", "fp16", "--format", fmt)


def test_csv_labels_in_jsonl_and_csv(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text('model,N,G,C,K,Hi,Wi,layer\nresnet50,8,1,64,64,56,56,conv1\nvit,8,1,64,128,28,28,"a, b"\n')
    r = _coverage(path, "jsonl")
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(d["model"], d["layer"]) for d in records] == [("resnet50", "conv1"), ("vit", "a, b")]
    assert list(records[0])[-2:] == ["model", "layer"]  # after the record's own keys, in file order
    r = _coverage(path, "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].endswith(",applicable,blocked_by,model,layer")
    assert r.stdout.splitlines()[2].endswith(',vit,"a, b"')


def test_jsonl_labels(tmp_path):
    path = tmp_path / "w.jsonl"
    path.write_text('{"N": 8, "C": 64, "K": 64, "net": "unet"}\n{"N": 4, "C": 64, "K": 64, "net": "sd"}\n')
    r = _coverage(path, "jsonl")
    assert r.returncode == 0, r.stderr
    assert [json.loads(line)["net"] for line in r.stdout.splitlines()] == ["unet", "sd"]


def test_no_labels_no_change(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("N,G,C,K,Hi,Wi\n8,1,64,64,56,56\n")
    r = _coverage(path, "jsonl")
    assert list(json.loads(r.stdout)) [-1] == "applicable"


@pytest.mark.parametrize("column", ["Hi_", "stirde_h", "n", "pad-h", "Dilation_W"])
def test_typos_of_fields_are_errors(tmp_path, column):
    path = tmp_path / "w.csv"
    path.write_text(f"N,C,K,{column}\n1,64,64,2\n")
    r = _coverage(path, "jsonl")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert column in r.stderr and r.stdout == ""


def test_a_label_may_not_take_a_record_key(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("N,C,K,dtype\n1,64,64,half\n")
    r = _coverage(path, "jsonl")
    assert r.returncode == 2 and "'dtype' is a name the records use" in r.stderr, r.stderr


@pytest.mark.parametrize("header, column", [("N,N,C,K", "N"), ("model,N,C,K,model", "model")])
def test_a_column_named_twice_is_an_error(tmp_path, header, column):
    """A header naming a column twice kept the last cell silently (N=8 of '4,8', one of two labels): one
    error line naming the column, in CSV workloads (both readers) and in measurement files alike."""
    path = tmp_path / "w.csv"
    cells = {"N,N,C,K": "4,8,64,64", "model,N,C,K,model": "x,4,64,64,y"}[header]
    path.write_text(f"{header}\n{cells}\n")
    r = _coverage(path, "csv")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"column '{column}' given twice" in r.stderr and "w.csv:1" in r.stderr, r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("header, cells", [("N,C,K,", "4,64,64,"), ("N,,C,K", "4,x,64,64")])
def test_a_column_with_no_name_is_an_error(tmp_path, header, cells):
    """An unnamed column (a spreadsheet's trailing comma) was a traceback in the column reader (numpy has no
    field ''): one error line saying which column has no name."""
    path = tmp_path / "w.csv"
    path.write_text(f"{header}\n{cells}\n")
    for command in (["coverage", "--format", "csv"], ["minimize"], ["features"]):
        r = _cli(command[0], "--problems", str(path), "-r", "tiny", "-a", "gfx942", "--dtype", "fp16", *command[1:])
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, (command, r.stderr)
        assert "of the header has no name" in r.stderr and r.stdout == "", (command, r.stderr)


def test_a_header_with_no_problem_field_is_an_error(tmp_path):
    """Any text file was a workload of default problems: its first line a label column, every other line a
    label (a names file given as --problems covered '191 of 191', exit 0). A CSV header names a field."""
    path = tmp_path / "names.txt"
    path.write_text("grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16\n"
                    "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x32_2x2x1_32x32x16\n")
    for command in (["coverage"], ["minimize"], ["features"], ["select"]):
        r = _cli(command[0], "--problems", str(path), "-r", "tiny", "-a", "gfx942", "--dtype", "fp16")
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (command, r.stderr)
        assert "names no problem field" in r.stderr and "names.txt:1" in r.stderr and r.stdout == "", (command, r)


def test_features_note_counts_one_kernel_in_the_singular(tmp_path):
    """The note on kernels CK's parser cannot read said '1 kernels have dispatcher names'."""
    path = tmp_path / "w.csv"
    path.write_text("model,N,C,K,Hi,Wi,Y,X\nresnet,4,64,64,56,56,3,3\n")
    r = _cli("features", "--problems", str(path), "-r", "tiny", "-a", "gfx942", "--dtype", "fp16", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert "note: 1 kernel has a dispatcher name CK's parser does not read" in r.stderr, r.stderr
