"""Rule sets written by users as TOML files (``--rule-set path/to/mine.toml``).

The format, with worked examples, is documented in ``docs/rule-set-files.md``;
in short::

    description = "compv3 only, 256-wide tiles"
    extends = "full"                 # rule set(s), rule-set file(s) or names file(s); `base` is an alias
    kind = "gemm"                    # optional: keep only GEMM (or only depthwise) kernels

    [pin]                            # axis -> allowed value(s)
    pipeline = ["compv3"]

    [[table]]                        # allowed (or forbid = true) tuples
    name = "mine.tiles"
    scope = ["tile_m", "tile_n"]
    rows = [[16, 64], [32, 64]]

Every value is checked here, against the axis domains, before anything is
solved: a file that loads is a file whose every key means something. Relative
paths in ``extends`` resolve against the file's own directory, and a cycle of
files is reported with its chain.

``extends`` makes a graph of files, not a tree: within one load each file is
read once (memo by resolved path), a rule set reached twice contributes its
constraints once, and nesting deeper than ``MAX_DEPTH`` files is an error
line, so neither a file repeated at every level (exponential) nor a chain of
hundreds (Python's recursion limit) can hang or crash a command.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from ..errors import did_you_mean, shorten, valid_list
from ..space.axes import AXES, value_text
from ..space.constraints import Constraint, Table
from ..space.kinds import GEMM, KINDS
from ..space.naming import parse_names
from ..space.textfile import numbered_lines, parse_toml, read_text
from .rule_set import Combo, RuleSet, RuleSetError, nothing
from .listed import ListedRuleSet
from .named import named_rule_set
from .builtin import RULE_SETS
from .where import file_where

__all__ = ["FileRuleSet", "KEYS", "TABLE_KEYS", "MAX_DEPTH"]

#: The keys a rule-set file may have (``base`` is the older spelling of ``extends``).
KEYS = ("description", "extends", "base", "kind", "pin", "table", "where")
TABLE_KEYS = ("name", "scope", "rows", "forbid")
_KINDS = tuple(KINDS)
#: How many rule-set files deep ``extends`` may nest (a site set rarely needs more than three).
MAX_DEPTH = 64


class FileRuleSet(RuleSet):
    description: str = ""  # the file's own (not the registry's)

    def __init__(self, name: str, description: str, bases: tuple[RuleSet, ...], own: tuple[Constraint, ...]):
        self.name = name
        self.description = description
        self.bases = bases
        self.own = own
        self._closure = _closure(self)  # bases and own are fixed from here on

    @classmethod
    def from_path(cls, path: Path, chain: tuple[str, ...] = (), _loaded: dict | None = None,
                  **options) -> "FileRuleSet":
        """Load and validate the file at ``path``; ``chain`` is the files that extend it (cycle and depth
        check), ``_loaded`` the files this load has read already (resolved path -> rule set)."""
        path = Path(path)
        label = shorten(str(path), quote=False)
        real = _real(path)
        if real in chain:
            names = [Path(p).name for p in chain[chain.index(real):]] + [path.name]
            raise RuleSetError(f"{label}: rule-set files extend each other in a cycle: {' -> '.join(names)}")
        loaded = {} if _loaded is None else _loaded
        if real in loaded:
            return loaded[real]
        if len(chain) >= MAX_DEPTH:
            raise RuleSetError(f"{label}: 'extends' nests rule-set files more than {MAX_DEPTH} deep "
                               f"(starting at {Path(chain[0]).name})")
        data = _parse(read_text(path, "rule-set file"), label)
        v = _Validator(label, path.stem)
        unknown = sorted(set(data) - set(KEYS))
        if unknown:
            raise RuleSetError(f"{label}: unknown key {shorten(unknown[0])}; valid keys: {', '.join(KEYS)}")
        if "extends" in data and "base" in data:
            raise RuleSetError(f"{label}: give 'extends' or its alias 'base', not both")
        description = v.string("description", data.get("description", f"rule set from {path.name}"))
        key = "extends" if "extends" in data else "base"
        specs = v.names(key, data[key]) if key in data else []
        bases = tuple({id(b): b for b in (
            _extend(spec, path, chain + (real,), loaded, options) for spec in specs)}.values())
        own: list[Constraint] = []
        if "kind" in data:
            kind = v.choice("kind", data["kind"], _KINDS)
            own.extend(nothing(f"file.{path.stem}", other, str(path)) for other in KINDS if other != kind)
        pins = data.get("pin", {})
        if not isinstance(pins, dict):
            raise RuleSetError(f"{label}: 'pin' must be a table of axis = [values], got {_type(pins)}")
        for axis, values in pins.items():
            values = v.values(f"pin.{axis}", axis, values)
            own.extend(_for_kinds(Table(f"file.{path.stem}.{axis}", (axis,), frozenset((x,) for x in values),
                                        f"{path.name}: {axis}={{{axis}}} is not one of {list(values)}", str(path))))
        tables = data.get("table", [])
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise RuleSetError(f"{label}: 'table' must be an array of tables ([[table]]), got {_type(tables)}")
        for i, t in enumerate(tables, 1):
            own.extend(_for_kinds(v.table(i, t, str(path))))
        # `where` expressions (rulesets/where.py): named checks file.<stem>.where[i]
        for check in file_where(data.get("where", []), path.stem, str(path), label, path.name):
            own.extend(_for_kinds(check))
        rs = cls(path.stem, description, bases, tuple(own))
        rs.files = tuple(dict.fromkeys([path, *(f for b in bases for f in b.files)]))
        loaded[real] = rs
        if not bases and "kind" not in data and own and all(c.applies_to == GEMM.name for c in own):
            rs.own_warnings = (f"{label}: nothing here constrains depthwise kernels and nothing is extended, so every "
                               f"depthwise kernel valid for the arch is in this set; add kind = \"gemm\" to drop "
                               f"them",)
        return rs

    own_warnings: tuple[str, ...] = ()

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(w for rs in self._closure for w in
                                   (rs.own_warnings if isinstance(rs, FileRuleSet) else rs.warnings)))

    def constraints(self, combo: Combo) -> Sequence[Constraint]:
        return tuple(c for rs in self._closure for c in
                     (rs.own if isinstance(rs, FileRuleSet) else rs.constraints(combo)))


def _closure(top: FileRuleSet) -> tuple[RuleSet, ...]:
    """Every rule set ``top`` builds on, each once, bases before what extends them (as a recursive
    walk of a tree would order them), ``top`` last; built-in and names-file sets are leaves."""
    out: dict[int, RuleSet] = {}
    stack: list[tuple[RuleSet, bool]] = [(top, False)]
    while stack:
        rs, expanded = stack.pop()
        if id(rs) in out:
            continue
        if expanded or not isinstance(rs, FileRuleSet):
            out[id(rs)] = rs
            continue
        stack.append((rs, True))
        stack.extend((b, False) for b in reversed(rs.bases) if id(b) not in out)
    return tuple(out.values())


def _real(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return str(path)


def _parse(text: str, label: str) -> dict:
    return parse_toml(text, f"{label}: malformed rule-set file", RuleSetError)


def _extend(spec: str, path: Path, chain: tuple[str, ...], loaded: dict, options: dict) -> RuleSet:
    """A named rule set, or a file relative to the extending file's directory."""
    if spec in RULE_SETS:
        return named_rule_set(spec, **options)
    target = Path(spec).expanduser()
    if not target.is_absolute():
        target = path.parent / target
    if not _exists(target):
        raise RuleSetError(f"{shorten(str(path), quote=False)}: extends {shorten(spec)}, which is neither a rule set "
                           f"({', '.join(RULE_SETS)}) nor a file (looked for {shorten(str(target), quote=False)})")
    if target.suffix != ".toml":
        real = "names:" + _real(target)  # a names file extended twice is read once too
        if real not in loaded:
            loaded[real] = _names_file(target)
        return loaded[real]
    return FileRuleSet.from_path(target, chain, loaded, **options)


def _names_file(path: Path) -> RuleSet:
    """A names file (one kernel name a line) as the rule set of exactly those kernels."""
    label = shorten(str(path), quote=False)
    rs = ListedRuleSet(path.stem, parse_names(numbered_lines(path, "names file"), label), label)
    rs.files = (path,)
    return rs


def _exists(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _type(value) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def _for_kinds(table: Table) -> tuple[Table, ...]:
    """The table once per kernel kind its axes belong to.

    A GEMM axis (tile_m, pipeline, ...) constrains GEMM kernels only, a
    depthwise axis depthwise kernels only; a scope of common axes only
    (variant, dtype, ndim, layout) constrains both kinds.
    """
    kinds = {AXES[a].kind for a in table.scope} - {"common"}
    if len(kinds) > 1:
        raise RuleSetError(f"{table.source}: {table.name}: scope mixes GEMM and depthwise axes "
                           f"({', '.join(table.scope)}); no kernel has both")
    return tuple(replace(table, applies_to=k) for k in (kinds or _KINDS))


def _in_domain(value, axis: str) -> bool:
    # bool is an int in Python: True must not pass for 1, nor 1 for True
    return any(type(value) is type(d) and value == d for d in AXES[axis].domain)


def _domain_text(axis: str) -> str:
    return ", ".join(map(value_text, AXES[axis].domain))


class _Validator:
    """Checks one file's values, raising one line that names the file, the key and what is valid."""

    def __init__(self, label: str, stem: str):
        self.label = label
        self.stem = stem

    def fail(self, key: str, what: str):
        raise RuleSetError(f"{self.label}: {key}: {what}")

    def string(self, key: str, value) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {_type(value)}")
        return value

    def choice(self, key: str, value, valid: Sequence[str]) -> str:
        if value not in valid or not isinstance(value, str):
            self.fail(key, f"{shorten(value)} is not one of {', '.join(valid)}")
        return value

    def names(self, key: str, value) -> list[str]:
        items = value if isinstance(value, list) else [value]
        if not items:  # an empty list would silently mean the whole space (trillions of configs)
            self.fail(key, "is an empty array: it extends nothing; name a rule set, or leave the key out for "
                           "every config the architecture allows")
        if not all(isinstance(x, str) and x for x in items):
            self.fail(key, "must be a rule-set name or file, or an array of them")
        return items

    def axis(self, key: str, axis) -> str:
        if not isinstance(axis, str) or axis not in AXES:
            self.fail(key, f"unknown axis {shorten(axis)}; valid: {valid_list(AXES, see='docs/constraints.md')}"
                           f"{did_you_mean(axis, AXES)}")
        return axis

    def values(self, key: str, axis: str, values) -> tuple:
        self.axis(key, axis)
        values = values if isinstance(values, list) else [values]
        if not values:
            self.fail(key, f"an empty list allows nothing; valid values: {_domain_text(axis)}")
        for x in values:
            if not _in_domain(x, axis):
                self.fail(key, f"{shorten(x) if isinstance(x, str) else _type(x) + ' ' + shorten(x, quote=False)} "
                               f"is not a value of {axis}; valid values: {_domain_text(axis)}")
        return tuple(dict.fromkeys(values))

    def table(self, i: int, t: dict, source: str) -> Table:
        key = f"table #{i}"
        unknown = sorted(set(t) - set(TABLE_KEYS))
        if unknown:
            self.fail(key, f"unknown key {shorten(unknown[0])}; valid keys: {', '.join(TABLE_KEYS)}")
        if "scope" not in t or "rows" not in t:
            self.fail(key, "needs 'scope' (an array of axes) and 'rows' (an array of arrays)")
        name = self.string(f"{key}.name", t.get("name", f"file.{self.stem}.table{i}"))
        forbid = t.get("forbid", False)
        if not isinstance(forbid, bool):
            self.fail(f"{key}.forbid", f"must be true or false, got {shorten(forbid)}")
        scope = t["scope"]
        if not isinstance(scope, list) or not scope:
            self.fail(f"{key}.scope", f"must be a non-empty array of axes, got {_type(scope)}")
        scope = tuple(self.axis(f"{key}.scope", a) for a in scope)
        if len(set(scope)) != len(scope):
            self.fail(f"{key}.scope", "names an axis twice")
        rows = t["rows"]
        if not isinstance(rows, list):
            self.fail(f"{key}.rows", f"must be an array of rows, got {_type(rows)}")
        for r, row in enumerate(rows, 1):
            if not isinstance(row, list) or len(row) != len(scope):
                self.fail(f"{key}.rows[{r}]", f"must be an array of {len(scope)} values ({', '.join(scope)})")
            for axis, x in zip(scope, row):
                if not _in_domain(x, axis):
                    self.fail(f"{key}.rows[{r}]", f"{shorten(x)} is not a value of {axis}; "
                                                  f"valid values: {_domain_text(axis)}")
        return Table(name, scope, frozenset(map(tuple, rows)), f"{Path(source).name}: {name} "
                     f"{'forbids' if forbid else 'excludes'} this {', '.join(scope)}", source, forbid=forbid)
