"""Feature tables as CSV, JSON lines or Parquet, written row by row (the CLI gives the stream).

CSV and JSON lines go to a text stream one row at a time; Parquet (CK's
heuristics pipeline reads it: ``convert_csv_to_parquet.py``) is written in
row groups of ``PARQUET_ROWS`` with the CSV's column order and values, through
pyarrow, an optional extra (``pip install 'cksolve[parquet]'``).
"""

from __future__ import annotations

import io
import json
from typing import Iterable, Sequence, TextIO

import numpy as np

from ..errors import CksolveError
from ..formats import csv_writer
from ..space.axes import value_text

__all__ = ["FORMATS", "render", "write_rows", "write_parquet"]

FORMATS = ("csv", "jsonl", "parquet")
#: Rows per Parquet row group: what is held in memory at once.
PARQUET_ROWS = 65_536


def render(columns: Sequence[str], rows: Sequence[tuple], fmt: str) -> str:
    """Header and rows; floats as Python's shortest round-trip text, so equal values give equal bytes.

    The ML feature columns are numbers as CK's selector reads them (flags 0/1); cksolve's own config
    fields (``config_*``) spell booleans ``true``/``false`` in csv, as every other cksolve csv does.
    """
    if fmt not in ("csv", "jsonl"):
        raise CksolveError(f"unknown format {fmt!r}; valid: csv, jsonl")
    buf = io.StringIO()
    write_rows(columns, rows, fmt, buf)
    return buf.getvalue()


def write_rows(columns: Sequence[str], rows: Iterable[tuple], fmt: str, out: TextIO) -> int:
    """``render``'s text, written to ``out`` one row at a time; returns the rows written."""
    n = 0
    if fmt == "csv":
        flags = [i for i, c in enumerate(columns) if c.startswith("config_")]
        writer = csv_writer(out)
        writer.writerow(columns)
        for r in rows:
            writer.writerow(_spelled(r, flags) if flags else r)
            n += 1
        return n
    if fmt == "jsonl":
        for r in rows:
            out.write(json.dumps(dict(zip(columns, r))) + "\n")
            n += 1
        return n
    raise CksolveError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")


def _pyarrow():
    try:
        import pyarrow  # deferred, with the next line: an optional dependency, for parquet output only
        import pyarrow.parquet  # deferred
    except ImportError:
        raise CksolveError("{opt:format} parquet needs pyarrow: pip install 'cksolve[parquet]'") from None
    return pyarrow, pyarrow.parquet


def check_parquet() -> None:
    """CksolveError (one line) now, before any work, if Parquet cannot be written."""
    _pyarrow()


def write_parquet(columns: Sequence[str], rows: Iterable[tuple], path) -> int:
    """Rows to a Parquet file at ``path`` (a temporary the caller renames) or to a binary stream (a device
    or FIFO, written in order), row group by row group.

    Column types come from the values as CSV would print them: ints int64,
    floats float64, text string; a column holding both ints and floats is float64.
    """
    pa, pq = _pyarrow()
    if hasattr(rows, "column_batches"):
        return _write_column_batches(pa, pq, columns, rows, path)
    writer = None
    schema = None
    n = 0
    batch: list[tuple] = []

    def flush():
        nonlocal writer, schema
        cols = list(zip(*batch))
        if schema is None:
            schema = pa.schema([(name, _type(pa, col)) for name, col in zip(columns, cols)])
            writer = pq.ParquetWriter(path, schema)
        writer.write_table(pa.Table.from_arrays([pa.array(col, type=f.type) for col, f in zip(cols, schema)],
                                                schema=schema))
        batch.clear()

    try:
        for r in rows:
            batch.append(r)
            n += 1
            if len(batch) >= PARQUET_ROWS:
                flush()
        if batch or writer is None:
            if not batch:  # no rows: an empty file with string columns still names them
                schema = pa.schema([(name, pa.string()) for name in columns])
                writer = pq.ParquetWriter(path, schema)
            else:
                flush()
    finally:
        if writer is not None:
            writer.close()
    return n


def _write_column_batches(pa, pq, columns: Sequence[str], rows, path: str) -> int:
    """``write_parquet`` of rows given as column blocks (``pairs.PairRows``): per column, its distinct values
    converted once and taken by index, in the same row groups, types and values as the rows would give."""
    writer = None
    n = 0
    try:
        for batch in rows.column_batches(PARQUET_ROWS):
            if writer is None:
                schema = pa.schema([(name, pa.int64() if values is None else _type(pa, values))
                                    for name, (values, _) in zip(columns, batch)])
                writer = pq.ParquetWriter(path, schema)
            arrays = [_taken(pa, values, index, f.type) for (values, index), f in zip(batch, schema)]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
            n += len(batch[0][1])
        if writer is None:  # no rows: as write_parquet, string columns that name them
            writer = pq.ParquetWriter(path, pa.schema([(name, pa.string()) for name in columns]))
    finally:
        if writer is not None:
            writer.close()
    return n


def _taken(pa, values, index, kind):
    """The column ``values[index]`` as ``kind``: numbers through numpy (as pyarrow converts them), text by take."""
    if values is None:
        return pa.array(index, type=kind)
    numeric = {pa.int64(): np.int64, pa.float64(): np.float64, pa.bool_(): np.bool_}.get(kind)
    if numeric is None:
        return pa.array(values, type=kind).take(pa.array(index))
    return pa.array(np.asarray(values, dtype=numeric)[index], type=kind)


def _type(pa, values):
    kinds = {type(v) for v in values}
    if kinds <= {int, bool} and bool not in kinds:
        return pa.int64()
    if kinds <= {int, float}:
        return pa.float64()
    if kinds == {bool}:
        return pa.bool_()
    return pa.string()


def _spelled(row: tuple, at: list[int]) -> list:
    row = list(row)
    for i in at:
        if isinstance(row[i], bool):
            row[i] = value_text(row[i])
    return row
