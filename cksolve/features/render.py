"""Feature tables as CSV or JSON lines (the CLI writes what these return)."""

from __future__ import annotations

import csv
import io
import json
from typing import Sequence

from ..errors import CksolveError

__all__ = ["FORMATS", "render"]

FORMATS = ("csv", "jsonl")


def render(columns: Sequence[str], rows: Sequence[tuple], fmt: str) -> str:
    """Header and rows; floats as Python's shortest round-trip text, so equal values give equal bytes.

    The ML feature columns are numbers as CK's selector reads them (flags 0/1); cksolve's own config
    fields (``config_*``) spell booleans ``true``/``false`` in csv, as every other cksolve csv does.
    """
    if fmt == "csv":
        flags = [i for i, c in enumerate(columns) if c.startswith("config_")]
        if flags:
            rows = [_spelled(r, flags) for r in rows]
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "jsonl":
        return "".join(json.dumps(dict(zip(columns, r))) + "\n" for r in rows)
    raise CksolveError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")


def _spelled(row: tuple, at: list[int]) -> list:
    row = list(row)
    for i in at:
        if isinstance(row[i], bool):
            row[i] = "true" if row[i] else "false"
    return row
