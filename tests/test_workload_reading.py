"""The column reader of workload files (``problem_table.read_table``) against the row reader (``read_workload``).

The row reader defines the answers: the same problems in the same order, or
the same one-line error naming file, line and value. Each kind of bad input is
checked, then random files with random bad cells (hypothesis).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cksolve.workload.problem import FIELDS, ProblemError, read_workload
from cksolve.workload.problem_table import read_table

ROOT = Path(__file__).resolve().parents[1]
HEADER = ("N,G,C,K,Di,Hi,Wi,Z,Y,X,stride_d,stride_h,stride_w,pad_d,pad_h,pad_w,dilation_d,dilation_h,dilation_w,"
          "direction")
GOOD = "4,1,64,128,1,32,32,1,3,3,1,1,1,0,1,1,1,1,1,forward"


def _row(**changes) -> str:
    cells = dict(zip(HEADER.split(","), GOOD.split(",")))
    cells.update({k: str(v) for k, v in changes.items()})
    return ",".join(cells[k] for k in HEADER.split(","))


def _outcome(reader, path: Path):
    """The problems a reader gives (with label columns and labels), or its error line."""
    try:
        if reader is read_table:
            t = read_table(path)
            return [t.problem(i) for i in range(len(t))], t.label_columns, [t.labels[i] for i in range(len(t.labels))]
        return read_workload(path)
    except ProblemError as exc:
        return f"error: {exc}"


def _same(path: Path) -> str | list:
    want, got = _outcome(read_workload, path), _outcome(read_table, path)
    assert got == want, f"{path.name}: column reader {str(got)[:300]} vs row reader {str(want)[:300]}"
    return want


BAD = {
    "not an integer": _row(C="x"),
    "a fraction": _row(Hi="4.5"),
    "an underscore": _row(Wi="1_000"),
    "19 digits with zeros": _row(N="0000000000000000004"),
    "20 digits": _row(K="99999999999999999999"),
    "19 digits": _row(C="1000000000000000000"),
    "19 digits, negative": _row(pad_w="-1000000000000000000"),
    "zero N": _row(N=0),
    "negative pad": _row(pad_h=-1),
    "C not divisible by G": _row(G=3),
    "filter larger than the input": _row(Hi=2, pad_h=0),
    "3D output below 1": _row(Di=2, Z=5),
    "unknown direction": _row(direction="sideways"),
    "a long direction": _row(direction="bwd_weight_and_then_some"),
    "too few values": GOOD.rsplit(",", 1)[0],
    "huge but not divisible": _row(G=3, C=3 * 2 ** 40 + 1),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_each_bad_row_gives_the_row_readers_line(tmp_path, kind):
    path = tmp_path / "w.csv"
    path.write_text("\n".join([HEADER, GOOD, GOOD, _row(N=8), BAD[kind], _row(N=2)]) + "\n")
    got = _same(path)
    assert isinstance(got, str) and "w.csv:5: " in got, got
    path.write_text("\n".join(["model," + HEADER, *(f"net{i}," + r for i, r in enumerate([GOOD, GOOD, _row(N=8),
                                                                                          BAD[kind]]))]) + "\n")
    got = _same(path)
    assert isinstance(got, str) and "w.csv:5: " in got, got


GOOD_VARIANTS = {
    "spaces around values and direction": _row(N=" 8 ", direction=" bwd_data "),
    "empty cells take defaults": _row(Di="", direction=""),
    "a sign": _row(N="+8"),
    "huge and valid": _row(C=2 ** 40, K=2 ** 41),
    "3D": _row(Di=8, Z=3, pad_d=1),
}


@pytest.mark.parametrize("kind", sorted(GOOD_VARIANTS))
def test_unusual_good_rows_read_alike(tmp_path, kind):
    path = tmp_path / "w.csv"
    path.write_text("\n".join([HEADER, GOOD, GOOD_VARIANTS[kind], GOOD]) + "\n")
    assert len(_same(path)[0]) == 3


def test_the_first_bad_row_wins_whatever_its_kind(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("\n".join([HEADER, GOOD, _row(G=3), _row(N="x"), _row(G=3)]) + "\n")
    assert "w.csv:3: field C: 64 is not divisible by G=3" in _same(path)
    path.write_text("\n".join([HEADER, _row(N=8), GOOD, _row(N=8), _row(pad_w=-2)]) + "\n")
    assert "w.csv:5: field pad_w" in _same(path)  # a bad distinct problem after repeated good ones


def test_layout_variants(tmp_path):
    """Comments, blank lines, CRLF, a header after a comment, a BOM, a partial header, no rows."""
    cases = {
        "comments": f"# a workload\n{HEADER}\n{GOOD}\n# more\n{_row(N=0)}\n",
        "blank lines": f"{HEADER}\n\n{GOOD}\n\n{_row(G=3)}\n",
        "crlf": f"{HEADER}\r\n{GOOD}\r\n{_row(N=0)}\r\n",
        "bom": f"\ufeff{HEADER}\n{GOOD}\n{_row(N=0)}\n",
        "partial header": "N,C,K,Hi,Wi\n1,64,64,28,28\n2,64,64,1,28\n",
        "no rows": f"{HEADER}\n",
        "quoted": f'{HEADER}\n{GOOD}\n"8",1,64,128,1,32,32,1,3,3,1,1,1,0,1,1,1,1,1,forward\n',
        "labels": f"model,{HEADER},layer\nresnet,{GOOD}, conv 1 \n,{_row(N=8)},\nvit,{GOOD},x#2\n",
        "a label row like a comment": f"model,{HEADER}\nresnet,{GOOD}\n  #vit,{_row(N=8)}\nbert,{GOOD}\n",
        "a label named like a record key": f"dtype,{HEADER}\nhalf,{GOOD}\n",
        "a long label": f"model,{HEADER}\n{'m' * 300},{GOOD}\n",
    }
    for name, text in cases.items():
        path = tmp_path / f"{name}.csv"
        path.write_bytes(text.encode())
        _same(path)


CELLS = st.one_of(st.sampled_from(["1", "2", "3", "0", "-1", "", " 4", "x", "64", "7", "1.5", "+2",
                                   "0000000000000000001", "4294967296"]),
                  st.integers(1, 300).map(str))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(CELLS, min_size=19, max_size=19), min_size=1, max_size=6),
       st.lists(st.sampled_from(["forward", "bwd_data", "bwd_weight", "", "fwd"]), min_size=6, max_size=6))
def test_random_files_read_alike(rows, directions):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "w.csv"
        lines = [HEADER] + [",".join(cells + [d]) for cells, d in zip(rows, directions)]
        path.write_text("\n".join(lines) + "\n")
        _same(path)


def test_cli_bad_value_is_one_line_exit_2(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("\n".join([HEADER] + [GOOD] * 50 + [_row(C="6x4")]) + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "cksolve", "coverage", "--problems", str(path), "-r", "tiny", "-a",
                        "gfx942", "--format", "jsonl"], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert r.stderr.count("\n") == 1 and "w.csv:52: field C: not an integer (expected decimal ASCII digits, at most 18)" in r.stderr, r.stderr


def test_fields_cover_the_header():
    assert tuple(HEADER.split(",")) + ("split_k",) == FIELDS
