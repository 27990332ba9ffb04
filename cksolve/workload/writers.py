"""Coverage written record by record: jsonl, csv, and a table that stays readable.

``coverage`` of a million problems is a million records; building the output
as one string (or one table) made memory grow with it. These writers take the
records as ``iter_coverage`` makes them and write each at once, so memory is
what the column engine holds, not what is written. The bytes are the same as
the shared formats produce (``json.dumps`` per object; csv with the first
record's keys, which every record shares).

A table is for people: up to ``TABLE_ROWS`` records it is the usual table
(uncovered first); beyond, it is the summary and how to get every row.
"""

from __future__ import annotations

import csv
import json
from typing import Callable, Iterable, TextIO

from .coverage import CoverageRecord
from .report import count, coverage_table, tally_lines

__all__ = ["TABLE_ROWS", "write_coverage"]

#: Most records a --format table prints as rows; more get the summary and a pointer to jsonl/csv.
TABLE_ROWS = 5000


def write_coverage(records: Iterable[CoverageRecord], fmt: str, out: TextIO, with_kernels: bool = False,
                   table: Callable[[list, list], str] | None = None, table_rows: int = TABLE_ROWS) -> int:
    """Write ``records`` to ``out`` in ``fmt`` (jsonl, csv, table); returns the records written.

    ``table(header, rows)`` renders an aligned table (the CLI passes the shared
    ``formats.table_text``, which this layer may not import).
    """
    if fmt == "jsonl":
        n = 0
        for r in records:
            out.write(json.dumps(r.as_dict(with_kernels)) + "\n")
            n += 1
        return n
    if fmt == "csv":
        writer = None
        n = 0
        for r in records:
            row = r.as_dict(with_kernels)
            if with_kernels:
                row["kernels"] = " ".join(row["kernels"])
            if writer is None:
                writer = csv.DictWriter(out, fieldnames=list(row), lineterminator="\n")
                writer.writeheader()
            writer.writerow(row)
            n += 1
        return n
    return _write_table(records, out, with_kernels, table, table_rows)


def _write_table(records, out: TextIO, with_kernels: bool, table, table_rows: int) -> int:
    kept: list[CoverageRecord] = []
    tally: dict[tuple[str, str], list[int]] = {}
    n = 0
    for r in records:
        n += 1
        count(tally, r)
        if n <= table_rows:
            kept.append(r)
        elif kept:
            kept = []  # too many for a table: from here on only the summary is kept
    if n <= table_rows:
        header, rows, summary = coverage_table(kept, with_kernels)
        out.write(table(header, rows) + "".join(f"{line}\n" for line in summary))
        return n
    lines = tally_lines(tally)
    lines.append(f"{n} records are too many for a table (at most {table_rows}); every record: --format jsonl "
                 f"or --format csv")
    out.write("".join(f"{line}\n" for line in lines))
    return n
