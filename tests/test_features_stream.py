"""features streamed, and --format parquet: same columns and values as csv; one line without pyarrow."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CK

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = CK / "workloads" / "validation_holdout.csv"


def _cli(*args: str, pre: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = pre + "import sys; from cksolve.entry import main; sys.argv = ['cksolve', *sys.argv[1:]]; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=600)


@pytest.mark.ck_data
def test_parquet_has_the_csv_columns_and_values(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    head = "".join(HOLDOUT.read_text().splitlines(keepends=True)[:21])  # 20 problems
    (tmp_path / "w.csv").write_text(head)
    args = ("features", "-r", "full", "-a", "gfx950", "--variant", "forward", "--dtype", "bf16", "--problems",
            str(tmp_path / "w.csv"))
    r = _cli(*args, "-o", str(tmp_path / "f.csv"))
    assert r.returncode == 0, r.stderr
    r = _cli(*args, "-f", "parquet", "-o", str(tmp_path / "f.parquet"))
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(io.StringIO((tmp_path / "f.csv").read_text())))
    table = pq.read_table(tmp_path / "f.parquet")
    assert table.column_names == rows[0]
    assert table.num_rows == len(rows) - 1 > 0
    cols = table.to_pydict()
    for i, row in enumerate(rows[1:]):
        got = [str(cols[name][i]) for name in rows[0]]
        assert got == row, f"row {i}: first differing column " \
                           f"{next(n for n, a, b in zip(rows[0], got, row) if a != b)}"
    assert not list(tmp_path.glob(".*cksolve-tmp")), "a temporary was left"


def test_parquet_without_pyarrow_is_one_line(tmp_path):
    r = _cli("features", "-r", "tiny", "-a", "gfx942", "-f", "parquet", "-o", str(tmp_path / "f.parquet"),
             pre="import sys; sys.modules['pyarrow'] = None\n")
    assert r.returncode == 2, r.stderr
    assert r.stderr == "cksolve: error: --format parquet needs pyarrow: pip install 'cksolve[parquet]'\n"
    assert not (tmp_path / "f.parquet").exists()


def test_parquet_needs_an_output_file():
    r = _cli("features", "-r", "tiny", "-a", "gfx942", "-f", "parquet")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--output" in r.stderr, r.stderr


@pytest.mark.ck_data
def test_stream_matches_the_table():
    from cksolve import query
    from cksolve.features.table import features, iter_features
    from cksolve.rulesets import Combo
    from cksolve.workload import read_problems

    rs = query.load_rule_set("tiny")
    combo = Combo("gfx950", "forward", "fp16", 2)
    problems = read_problems(HOLDOUT)[:30]
    problems = problems + problems[:5]  # repeated rows: decided once, rows repeated
    table = features(rs, combo, problems)
    columns, rows, unread = iter_features(rs, combo, problems)
    assert columns == table.columns and list(rows) == table.rows and unread() == table.unread


@pytest.mark.ck_data
@pytest.mark.parametrize("semantics", ["ck", "exact"])
def test_parquet_from_column_blocks_is_the_rows_parquet(tmp_path, semantics):
    """``PairRows.column_batches`` (what --format parquet writes) gives the very bytes the row tuples give:
    several combinations, repeated rows, row groups cut inside a problem's kernels."""
    pytest.importorskip("pyarrow.parquet")
    from cksolve.features import table_writers
    from cksolve.features.table import iter_features
    from cksolve.rulesets import Combo, get_rule_set
    from cksolve.workload import read_problems

    problems = read_problems(HOLDOUT)[:40:3]
    problems = problems + problems[:4]
    combos = [Combo("gfx950", "forward", "bf16", n) for n in (2, 3)] + [Combo("gfx942", "forward", "fp16", 2)]
    rs = get_rule_set("full")
    old = table_writers.PARQUET_ROWS
    table_writers.PARQUET_ROWS = 997  # a prime: groups end mid-problem
    try:
        got = {}
        for how in ("blocks", "rows"):
            columns, rows, unread = iter_features(rs, combos, problems, semantics)
            n = table_writers.write_parquet(columns, rows if how == "blocks" else iter(rows), str(tmp_path / how))
            got[how] = (n, (tmp_path / how).read_bytes(), unread())
    finally:
        table_writers.PARQUET_ROWS = old
    assert got["blocks"][0] == got["rows"][0] > 997 * 3, (got["blocks"][0], got["rows"][0])
    assert got["blocks"][2] == got["rows"][2]
    assert got["blocks"][1] == got["rows"][1], "parquet from column blocks differs from the rows' parquet"
