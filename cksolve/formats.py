"""Output formats shared by every command: one writer per format name.

Every listing the CLI prints is a sequence of rows -- dicts, or records with
``as_dict()`` (and ``name``), turned into dicts only by the formats that need
every field, so ``names`` over 40,000 kernels builds none; a command says which
formats it offers and, for ``table``, which columns. ``names`` prints each row's
``name``, ``jsonl`` one JSON object per row, ``csv`` every key any row has (in
first-seen order), ``table`` the chosen columns aligned. Commands with a report
of their own (``count``'s total, ``diff``'s breakdown, ``check``'s text) add it
on top of these and name it in their help, but never respell these four.
Booleans are ``true``/``false`` in every one of them (JSON's spelling, and the
rule-set files'); only the ML feature columns keep CK's 0/1 (their own writer).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Callable, Iterable, Mapping, Sequence, TextIO

from .errors import CksolveError, did_you_mean, shorten
from .space.axes import value_text

__all__ = ["FORMATS", "render", "table_text", "csv_text", "check_format", "value_text", "csv_writer",
           "csv_dict_writer"]


def _dict(row) -> Mapping:
    # a plain dict first: isinstance against the Mapping ABC costs a third of a names listing per row
    return row if type(row) is dict or isinstance(row, Mapping) else row.as_dict()


def _name(row) -> str:
    return row["name"] if type(row) is dict or isinstance(row, Mapping) else row.name


def _names(rows: Sequence, columns: Sequence[str]) -> str:
    rows = rows if isinstance(rows, (list, tuple)) else list(rows)
    if not rows:
        return ""
    first = rows[0]
    if all(type(row) is type(first) for row in rows) and not isinstance(first, Mapping):
        return "".join(f"{row.name}\n" for row in rows)  # records of one type: no per-row test
    return "".join(f"{_name(row)}\n" for row in rows)


def _jsonl(rows: Sequence, columns: Sequence[str]) -> str:
    return "".join(json.dumps(_dict(row)) + "\n" for row in rows)


def csv_writer(out: TextIO):
    """cksolve's one CSV writer (every CSV it writes comes from here or ``csv_dict_writer``): a field holding a
    comma, a quote or a line break is quoted and its quotes doubled (RFC 4180, what Python's and pandas' readers
    read back), lines end in ``\n``."""
    return csv.writer(out, lineterminator="\n")


def csv_dict_writer(out: TextIO, fieldnames: Sequence[str]):
    """``csv_writer``'s rules for rows given as dicts of ``fieldnames``."""
    return csv.DictWriter(out, fieldnames=list(fieldnames), lineterminator="\n")


def csv_text(rows: Sequence, columns: Sequence[str] = ()) -> str:
    """Every key of every row, in first-seen order; nothing at all for no rows."""
    if not rows:
        return ""
    rows = [_dict(row) for row in rows]
    buf = io.StringIO()
    writer = csv_dict_writer(buf, dict.fromkeys(k for row in rows for k in row))
    writer.writeheader()
    writer.writerows({k: _csv_value(v) for k, v in row.items()} for row in rows)
    return buf.getvalue()


def _csv_value(v):
    """Booleans as JSON and the tables spell them (``true``/``false``), not Python's ``True``/``False``."""
    return value_text(v) if isinstance(v, bool) else v


def table_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Aligned columns without borders (rich, loaded only here: a table is never on a hot path)."""
    from rich.console import Console  # deferred, with the next line: rich loads only for a table
    from rich.table import Table  # deferred

    table = Table(*header, box=None, pad_edge=False)
    for row in rows:
        table.add_row(*row)
    buf = io.StringIO()
    Console(file=buf, width=400, color_system=None).print(table)
    return buf.getvalue()


def _table(rows: Sequence, columns: Sequence[str]) -> str:
    return table_text(list(columns), ([value_text(row[c]) for c in columns] for row in map(_dict, rows)))


#: format name -> writer(rows, table columns)
FORMATS: dict[str, Callable[[Sequence, Sequence[str]], str]] = {
    "names": _names,
    "jsonl": _jsonl,
    "csv": csv_text,
    "table": _table,
}


def check_format(fmt: str, offered: Sequence[str], what: str = "format") -> str:
    """``fmt`` if the command offers it, else the one-line error naming the valid ones."""
    if fmt not in offered:
        raise CksolveError(f"unknown {what} {shorten(fmt)}; valid: {', '.join(offered)}{did_you_mean(fmt, offered)}")
    return fmt


def render(fmt: str, rows: Sequence, columns: Sequence[str] = ("name",)) -> str:
    """``rows`` in the shared format ``fmt`` (``columns``: what ``table`` shows)."""
    return FORMATS[fmt](rows, columns)
