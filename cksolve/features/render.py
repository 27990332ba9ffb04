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
    """Header and rows; floats as Python's shortest round-trip text, so equal values give equal bytes."""
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "jsonl":
        return "".join(json.dumps(dict(zip(columns, r))) + "\n" for r in rows)
    raise CksolveError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
