"""Rule sets written by users as TOML files (``--rule-set path/to/mine.toml``).

A file narrows a named base rule set with its own tables::

    description = "compv3 only, small tiles"
    base = "default"                 # optional; omitted = arch constraints only

    [pin]                            # axis -> allowed values
    pipeline = ["compv3"]

    [[table]]                        # allowed (or forbid = true) tuples
    name = "mine.tiles"
    scope = ["tile_m", "tile_n"]
    rows = [[16, 64], [32, 64]]

Without a base, every axis the file does not pin or tabulate is free over its
whole domain, so such a file should pin every axis it cares about.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from ..space.axes import AXES
from ..space.constraints import Constraint, Table
from .base import Combo, RuleSet, RuleSetError
from .data import load_toml_path

__all__ = ["FileRuleSet"]


class FileRuleSet(RuleSet):
    description: str = ""  # the file's own (not the registry's)

    def __init__(self, name: str, description: str, base: RuleSet | None, own: tuple[Constraint, ...]):
        self.name = name
        self.description = description
        self.base = base
        self.own = own

    @classmethod
    def from_path(cls, path: Path, load_base: Callable[[str], RuleSet]) -> "FileRuleSet":
        """``load_base``: how a ``base`` rule set is found by name (the package's ``get_rule_set``)."""
        data = load_toml_path(path)
        where = str(path)
        unknown = set(data) - {"description", "base", "pin", "table"}
        if unknown:
            raise RuleSetError(f"{where}: unknown keys {sorted(unknown)}; expected description, base, pin, table")
        base = None
        if "base" in data:
            base = load_base(str(data["base"]))
        own: list[Constraint] = []
        for axis, values in dict(data.get("pin", {})).items():
            _axis(where, axis)
            if not isinstance(values, list):
                values = [values]
            own.append(Table(f"file.{path.stem}.{axis}", (axis,), frozenset((v,) for v in values),
                             f"{path.name}: {axis}={{{axis}}} is not one of {values}", where,
                             applies_to=_kind(axis)))
        for i, t in enumerate(data.get("table", [])):
            try:
                scope = tuple(t["scope"])
                rows = frozenset(tuple(r) for r in t["rows"])
            except (KeyError, TypeError) as exc:
                raise RuleSetError(f"{where}: table #{i + 1} needs 'scope' and 'rows' lists ({exc})") from None
            for axis in scope:
                _axis(where, axis)
            if any(len(r) != len(scope) for r in rows):
                raise RuleSetError(f"{where}: table #{i + 1}: every row needs {len(scope)} values")
            name = str(t.get("name", f"file.{path.stem}.table{i + 1}"))
            own.append(Table(name, scope, rows, f"{path.name}: {name} excludes this {', '.join(scope)}",
                             where, forbid=bool(t.get("forbid", False)), applies_to=_kind(*scope)))
        return cls(path.stem, str(data.get("description", f"rule set from {path.name}")), base, tuple(own))

    def constraints(self, combo: Combo) -> Sequence[Constraint]:
        base = tuple(self.base.constraints(combo)) if self.base is not None else ()
        return base + self.own


def _axis(where: str, axis: str) -> None:
    if axis not in AXES:
        raise RuleSetError(f"{where}: unknown axis {axis!r}; valid: {', '.join(AXES)}")


def _kind(*axes: str) -> str:
    kinds = {AXES[a].kind for a in axes} - {"common"}
    return "depthwise" if kinds == {"depthwise"} else "gemm"
