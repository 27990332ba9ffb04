"""One CSV writer (``cksolve.formats.csv_writer``): every CSV cksolve writes quotes as Python's reader reads."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from cksolve.formats import csv_dict_writer, csv_text, csv_writer
from cksolve.scoring import SelectRecord, write_select

PACKAGE = Path(__file__).resolve().parents[1] / "cksolve"
HOSTILE = 'a "quoted", comma\nand a line'


def _read(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_a_field_with_quotes_commas_and_a_line_break_round_trips():
    buf = io.StringIO()
    csv_writer(buf).writerows([["x", "y"], [HOSTILE, "1"]])
    assert _read(buf.getvalue()) == [["x", "y"], [HOSTILE, "1"]]
    buf = io.StringIO()
    w = csv_dict_writer(buf, ["x", "y"])
    w.writeheader()
    w.writerow({"x": HOSTILE, "y": 2})
    assert _read(buf.getvalue()) == [["x", "y"], [HOSTILE, "2"]]
    assert _read(csv_text([{"x": HOSTILE, "y": True}])) == [["x", "y"], [HOSTILE, "true"]]


def test_select_csv_escapes_quotes():
    """select's own writer quoted a field with a comma but left its quotes as they were: the reader split it."""
    out = io.StringIO()
    write_select([SelectRecord(0, None, None, None, 'rule "x", says no'),
                  SelectRecord(1, 1, "k,1", 2.5)], "csv", out)
    assert _read(out.getvalue()) == [["problem", "rank", "name", "score", "blocked_by"],
                                     ["0", "", "", "", 'rule "x", says no'], ["1", "1", "k,1", "2.5", ""]]


def test_every_csv_is_written_by_the_one_writer():
    """No module but formats.py makes a csv writer or joins cells with commas by hand."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "formats.py" and path.parent == PACKAGE:
            continue
        text = path.read_text()
        for no, line in enumerate(text.splitlines(), 1):
            if re.search(r"csv\.(writer|DictWriter)\(", line) or re.search(r"\.write\(\s*\",\"\.join", line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{no}")
    assert offenders == []
