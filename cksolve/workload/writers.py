"""Coverage written record by record: jsonl, csv, and a table that stays readable.

``coverage`` of a million problems is a million records; building the output
as one string (or one table) made memory grow with it. These writers take the
records as ``iter_coverage`` makes them and write each at once, so memory is
what the column engine holds, not what is written. The bytes are the same as
the shared formats produce (``json.dumps`` per object; csv with the first
record's keys, which every record shares).

A table is for people: up to ``TABLE_ROWS`` records it is the usual table
(uncovered first, each with the rule that blocks it); beyond, it is the
summary, the uncovered records per blocking rule, and how to get every row.
An uncovered record in jsonl names its blocking rule (``blocked_by``); csv has
the column on every row, empty when covered.
"""

from __future__ import annotations

import json
from typing import Callable, Iterable, TextIO

import numpy as np

from ..formats import csv_dict_writer, csv_writer
from .coverage import CoverageRecord, CoverageStream
from .problem import FIELDS
from .problem_table import DIRECTION, DIRECTION_NAMES
from ..progress import Progress, phase
from .coverage_report import count, coverage_table, tally_lines

__all__ = ["TABLE_ROWS", "write_coverage"]

#: Most records a --format table prints as rows; more get the summary and a pointer to jsonl/csv.
TABLE_ROWS = 5000
#: Rows of a ``CoverageStream`` turned into text at a time (bounds the Python objects alive at once).
CHUNK = 1 << 16
#: The same with kernel lists (each row can be tens of kilobytes).
KERNEL_CHUNK = 256


def write_coverage(records: Iterable[CoverageRecord], fmt: str, out: TextIO, with_kernels: bool = False,
                   table: Callable[[list, list], str] | None = None, table_rows: int = TABLE_ROWS) -> int:
    """Write ``records`` to ``out`` in ``fmt`` (jsonl, csv, table); returns the records written.

    ``table(header, rows)`` renders an aligned table (the CLI passes the shared
    ``formats.table_text``, which this layer may not import).
    """
    if isinstance(records, CoverageStream) and fmt in ("jsonl", "csv"):
        return _write_columns(records, fmt, out, with_kernels)
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
            row = r.as_dict(with_kernels, every_key=True)
            if with_kernels:
                row["kernels"] = " ".join(row["kernels"])
            if writer is None:
                writer = csv_dict_writer(out, list(row))
                writer.writeheader()
            writer.writerow(row)
            n += 1
        return n
    return _write_table(records, out, with_kernels, table, table_rows)


def _write_table(records, out: TextIO, with_kernels: bool, table, table_rows: int) -> int:
    kept: list[CoverageRecord] = []
    tally: dict[tuple[str, str], list[int]] = {}
    blocked: dict[tuple[str, str, str], int] = {}  # (direction, dtype, blocking rule) -> uncovered records
    n = 0
    total = len(records.table) * len(records.dtypes) if isinstance(records, CoverageStream) else None
    # on a terminal, past 1 s: the records tallied (n of N), then the table laid out; written once the bar is gone
    with Progress("tallying coverage records", total, ticking=True) as bar:
        for r in records:
            n += 1
            bar.advance()
            count(tally, r)
            if not r.applicable:
                key = (r.problem.direction, r.dtype, r.blocked)
                blocked[key] = blocked.get(key, 0) + 1
            if n <= table_rows:
                kept.append(r)
            elif kept:
                kept = []  # too many for a table: from here on only the summary is kept
        if n <= table_rows:
            phase(f"laying out a table of {n:,} records")
            header, rows, summary = coverage_table(kept, with_kernels)
            text = table(header, rows) + "".join(f"{line}\n" for line in summary)
    if n <= table_rows:
        out.write(text)
        return n
    lines = tally_lines(tally)
    lines.extend(f"uncovered {direction} {dtype} blocked by {rule}: {k}"
                 for (direction, dtype, rule), k in sorted(blocked.items(), key=lambda kv: (-kv[1], kv[0])))
    lines.append(f"{n} records are too many for a table (at most {table_rows}); every record: --format jsonl "
                 f"or --format csv")
    out.write("".join(f"{line}\n" for line in lines))
    return n


def _write_columns(stream: CoverageStream, fmt: str, out: TextIO, with_kernels: bool) -> int:
    """``write_coverage`` of a ``CoverageStream`` from its columns: the bytes ``as_dict`` and ``json.dumps`` (or
    ``csv``) would give, without a record object per row (a million rows are a million records)."""
    table, decisions, dtypes = stream.table, stream.decisions, stream.dtypes
    listed = with_kernels and stream.with_kernels  # a stream made without kernels lists none
    names = np.array(DIRECTION_NAMES, dtype=object)
    writer = csv_writer(out)
    if fmt == "jsonl":
        body = ", ".join(json.dumps(k) + (': "%s"' if k == "direction" else ": %d") for k in (*FIELDS, "ndim"))
        templates = {d: body + f', "dtype": {json.dumps(d).replace("%", "%%")}, "applicable": %d' for d in dtypes}
        label_keys = [", " + json.dumps(k) + ": " for k in table.label_columns]
    else:
        writer.writerow(["row", *FIELDS, "ndim", "dtype", "applicable", "blocked_by", *table.label_columns]
                        + (["kernels"] if with_kernels else []))
    written = 0
    chunk = CHUNK if not with_kernels else KERNEL_CHUNK
    rendered: dict[tuple, tuple] = {}  # kernel list -> (jsonl text, csv text): problems of a class share one
    with Progress("writing records", len(table)) as bar:
        for start in range(0, len(table), chunk):
            block = table.values[start:start + chunk]
            inverse = decisions.inverse[start:start + chunk]
            rows = range(start, start + len(block))
            # a block's distinct problems are rendered once each (a workload of copies renders few)
            shown, one, at = np.unique(inverse, return_index=True, return_inverse=True)
            at = at.ravel()
            if len(shown) * 2 > len(block):
                shown, at = None, np.arange(len(block))
            some = block if shown is None else block[one]
            cols = [names[some[:, k]].tolist() if k == DIRECTION else some[:, k].tolist() for k in range(len(FIELDS))]
            some_inverse = inverse if shown is None else shown
            ndim = decisions.ndim[some_inverse].tolist()
            labels = table.labels[start:start + len(block)] if table.label_columns else [()] * len(block)
            at_list = at.tolist()
            per_dtype = []
            for d in dtypes:
                counts = decisions.counts[d][some_inverse].tolist()
                blocked = [decisions.blocking(i, d) if not c else "" for i, c in zip(some_inverse.tolist(), counts)]
                kernels = ([_rendered(rendered, decisions.kernels(i, d)) for i in inverse.tolist()] if listed
                           else [("[]", "")] * len(block))
                if fmt == "jsonl":
                    bodies = list(map(templates[d].__mod__, zip(*cols, ndim, counts)))
                    blocked_by = [f', "blocked_by": {json.dumps(b)}' if b else "" for b in blocked]
                    tails = (["}\n"] * len(block) if not (labels[0] or with_kernels or any(blocked)) else
                             [(blocked_by[a] + "".join(k + json.dumps(v) for k, v in zip(label_keys, ls))
                               + (f', "kernels": {ks[0]}' if with_kernels else "") + "}\n")
                              for a, ls, ks in zip(at_list, labels, kernels)])
                    per_dtype.append(list(map('{"row": %d, %s%s'.__mod__,
                                              zip(rows, map(bodies.__getitem__, at_list), tails))))
                else:
                    fields = list(zip(*cols))
                    per_dtype.append([[r, *fields[a], ndim[a], d, counts[a], blocked[a], *ls]
                                      + ([ks[1]] if with_kernels else [])
                                      for r, a, ls, ks in zip(rows, at_list, labels, kernels)])
            lines = per_dtype[0] if len(dtypes) == 1 else [x for row in zip(*per_dtype) for x in row]
            if fmt == "jsonl":
                out.write("".join(lines))
            else:
                writer.writerows(lines)
            written += len(lines)
            bar.advance(len(block))
    return written


def _rendered(cache: dict, kernels: tuple[str, ...]) -> tuple[str, str]:
    text = cache.get(kernels)
    if text is None:
        ordered = sorted(kernels)
        if len(cache) >= 1024:
            cache.clear()
        text = cache[kernels] = (json.dumps(ordered), " ".join(ordered))
    return text
