"""The feature columns and the constants of CK's engine, loaded from ``features.toml``."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from ..space.datafile import Any, load
from ..space.memos import MEMOS

__all__ = ["Column", "COLUMNS", "FEATURE_NAMES", "KERNEL_NAMES", "EXACT_DIFFERS", "ENGINE", "SOURCES", "markdown_table"]


@dataclass(frozen=True)
class Column:
    name: str
    group: str  # problem, kernel, interaction, hardware
    ck: str
    exact: str | None  # None: both semantics write the same value
    source: tuple[str, ...]  # keys of SOURCES: the CK files where CK computes it


#: The engine's constants are checked where they are used (each has its own shape).
_SCHEMA = {"sources": {"*": str}, "engine": Any,
           "columns": [{"group": str, "source": [str], "names": [str], "ck": str, "exact?": str}]}


@MEMOS.cached("features.spec._raw", maxsize=1)
def _raw() -> dict:
    return load(__package__, "features.toml", _SCHEMA)


COLUMNS: tuple[Column, ...] = tuple(
    Column(name, block["group"], block["ck"], block.get("exact"), tuple(block["source"]))
    for block in _raw()["columns"] for name in block["names"]
)
#: The 97 features, in the order CK's forward model reads them.
FEATURE_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)
#: The kernel block (block_size ... is_mem): the rows of ``features`` without problems.
KERNEL_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS if c.group == "kernel")
#: Columns where ``exact`` may differ from ``ck``.
EXACT_DIFFERS: frozenset[str] = frozenset(c.name for c in COLUMNS if c.exact is not None)
ENGINE: Mapping = MappingProxyType(_raw()["engine"])
#: CK's files the columns come from: key -> path@commit in ROCm/composable_kernel.
SOURCES: Mapping[str, str] = MappingProxyType(_raw()["sources"])


def markdown_table() -> str:
    """The column table of docs/ml-features.md, from the data (a test keeps the page equal to it)."""
    lines = ["| # | column | group | `ck` (CK's engine) | `exact` | CK source |", "|---|---|---|---|---|---|"]
    for i, c in enumerate(COLUMNS, 1):
        lines.append(f"| {i} | `{c.name}` | {c.group} | {c.ck} | {c.exact or 'same'} | {', '.join(c.source)} |")
    legend = "".join(f"* {k}: `{v}`\n" for k, v in SOURCES.items())
    return "\n".join(lines) + "\n\nCK sources (ROCm/composable_kernel):\n\n" + legend
