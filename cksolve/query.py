"""The library behind the CLI: selections, enumeration, counting, checking, diffing.

Everything here returns data; :mod:`cksolve.cli` only parses options and prints.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple, Sequence

from .arch.facts import ARCHS
from .errors import CksolveError, shorten
from .space.axes import AXES
from .space.breakdown import axis_breakdown
from .space.naming import parse_names
from .space.textfile import numbered_lines
from .space.rulesets import Combo, RuleSet, get_rule_set, rule_set_names
from .solver import enumerate_combo, names_combo, solve_combo
from .solver.counting import SpaceTooLarge

__all__ = [
    "CksolveError",
    "Selection",
    "Record",
    "select",
    "load_rule_set",
    "enumerate_records",
    "enumerate_names",
    "count_records",
    "Source",
    "diff_sources",
    "check_names",
    "read_names",
    "ENUMERATE_LIMIT",
    "rule_set_constraints",
]

VARIANTS: tuple[str, ...] = AXES["variant"].domain
DTYPES: tuple[str, ...] = AXES["dtype"].domain
NDIMS: tuple[int, ...] = AXES["ndim"].domain


def split_values(values: Iterable[str] | None, option: str = "value") -> list[str]:
    """Comma-separated, repeatable option values; an empty one (``--arch ''``, ``--arch a,``) is an error.

    Leaving an option out selects everything; giving it empty must not.
    """
    out: list[str] = []
    for v in values or ():
        parts = [p.strip() for p in str(v).split(",")]
        if not all(parts):
            raise CksolveError(f"empty {option} in {shorten(str(v))}")
        out.extend(parts)
    return out


def _choose(option: str, given: Iterable[str] | None, valid: Sequence, convert=str) -> tuple:
    raw = split_values(given, f"--{option}")
    if not raw:
        return tuple(valid)
    chosen = []
    for v in raw:
        try:
            value = convert(v)
        except ValueError:
            value = None
        if value not in valid:
            raise CksolveError(f"unknown {option} {shorten(v)}; valid: {', '.join(str(x) for x in valid)}")
        if value not in chosen:
            chosen.append(value)
    return tuple(x for x in valid if x in chosen)  # canonical order


def _ndim(v: str) -> int:
    digits = v[:-1] if v.lower().endswith("d") else v
    if not (digits.isascii() and digits.isdigit() and len(digits) < 4):  # '٢' is a digit to int(), not to us
        raise ValueError(v)
    return int(digits)


@dataclass(frozen=True)
class Selection:
    archs: tuple[str, ...]
    variants: tuple[str, ...]
    dtypes: tuple[str, ...]
    ndims: tuple[int, ...]

    def combos(self) -> list[Combo]:
        """Combinations in canonical order: arch, variant, dtype, ndim."""
        return [Combo(a, v, d, n) for a in self.archs for v in self.variants for d in self.dtypes for n in self.ndims]


def select(archs=None, variants=None, dtypes=None, ndims=None) -> Selection:
    return Selection(
        _choose("arch", archs, ARCHS),
        _choose("variant", variants, VARIANTS),
        _choose("dtype", dtypes, DTYPES),
        _choose("ndim", ndims, NDIMS, _ndim),
    )


def canonical_order(configs: Iterable) -> list:
    """Configs of one arch in ``enumerate``'s order: variant, dtype, ndim (domain order), then name."""
    return sorted(configs, key=lambda c: (VARIANTS.index(c.variant), DTYPES.index(c.dtype), NDIMS.index(c.ndim),
                                          c.name()))


#: ``--strict`` (or this variable set to 1): what loading would only warn about is an error.
STRICT_ENV = "CKSOLVE_STRICT"
_WARNED: set = set()


def load_rule_set(name: str, builder_configs: str | None = None, strict: bool | None = None) -> RuleSet:
    """The rule set ``name`` (or file); its load warnings go to stderr once each.

    ``strict`` (default: ``CKSOLVE_STRICT``) turns them into errors instead.
    """
    if strict is None:
        strict = os.environ.get(STRICT_ENV, "") not in ("", "0")
    rs = get_rule_set(name, builder_configs=builder_configs, strict=strict)
    for w in rs.warnings:
        if w not in _WARNED:
            _WARNED.add(w)
            sys.stderr.write(f"cksolve: warning: {' '.join(w.split())}\n")
    return rs


class Record(NamedTuple):
    """One enumerated kernel (a named tuple: tens of thousands are made per listing)."""

    rule_set: str
    combo: Combo
    config: object

    @property
    def name(self) -> str:
        return self.config.name()

    def as_dict(self) -> dict:
        d = {"rule_set": self.rule_set, "arch": self.combo.arch, "variant": self.combo.variant,
             "dtype": self.combo.dtype, "ndim": self.combo.ndim, "name": self.name, "kind": self.config.kind}
        for k, v in self.config.as_dict().items():
            d.setdefault(k, v)
        if self.config.kind == "gemm":
            d["block_per_cu"] = self.config.block_per_cu
        return d


#: ``enumerate`` refuses to list more configs than this unless told (``--limit``).
ENUMERATE_LIMIT = 10_000_000


def enumerate_records(rule_set: RuleSet, selection: Selection, limit: int | None = ENUMERATE_LIMIT) -> Iterator[Record]:
    """Every (arch, config) of the rule set valid for the selection, in canonical order.

    The selection is counted first (cheap: components multiply) and refused above
    ``limit``, so a rule-set file that leaves axes free fails with its size
    instead of filling memory.
    """
    _check_limit(rule_set, selection, limit)
    return _records(rule_set, selection)


def enumerate_names(rule_set: RuleSet, selection: Selection, limit: int | None = ENUMERATE_LIMIT) -> Iterator[str]:
    """The kernel names of :func:`enumerate_records`, in the same order, without forming records.

    Listing names is the main job; the solver keeps them with its name order.
    """
    _check_limit(rule_set, selection, limit)
    return _names(rule_set, selection)


def _check_limit(rule_set: RuleSet, selection: Selection, limit: int | None) -> None:
    if limit is None:
        return
    total = 0
    for combo in selection.combos():  # stops at the first combination past the limit
        total += _count(rule_set, combo)
        if total > limit:
            raise CksolveError(f"{rule_set.name or 'rule set'} has more than {limit:,} configs in this selection "
                               f"({total:,} up to {combo.key}): narrow it (--arch, --variant, --dtype, --ndim, "
                               f"pins in the rule-set file) or raise --limit")


def _listed(lister, rule_set: RuleSet, combo: Combo):
    """``lister(rule_set, combo)``, with a space too large to list as one line naming the combination."""
    try:
        return lister(rule_set, combo)
    except SpaceTooLarge as exc:
        raise CksolveError(f"{rule_set.name or 'rule set'} can be counted but not listed for {combo.key} ({exc}): "
                           f"pin more of those axes") from None


def _records(rule_set: RuleSet, selection: Selection) -> Iterator[Record]:
    label = rule_set.name
    make = partial(tuple.__new__, Record)  # Record(...) runs a Python __new__ per kernel; this runs in C
    for combo in selection.combos():
        yield from map(make, zip(repeat(label), repeat(combo), _listed(enumerate_combo, rule_set, combo)))


def _names(rule_set: RuleSet, selection: Selection) -> Iterator[str]:
    for combo in selection.combos():
        yield from _listed(names_combo, rule_set, combo)


def count_records(rule_set: RuleSet, selection: Selection) -> dict[Combo, int]:
    """Configs per combination, from the solve's factors (no config is formed)."""
    return {combo: _count(rule_set, combo) for combo in selection.combos()}


def _count(rule_set: RuleSet, combo: Combo) -> int:
    try:
        return solve_combo(rule_set, combo).count()
    except SpaceTooLarge as exc:
        raise CksolveError(f"{rule_set.name or 'rule set'} leaves too many axes free to count {combo.key} "
                           f"({exc}): pin more axes or extend a rule set") from None


# --- rule-sets --show ---------------------------------------------------------------


@dataclass(frozen=True)
class ConstraintSummary:
    """One constraint of a rule set as ``rule-sets --show`` lists it, over the combinations it appears in."""

    name: str
    scope: tuple[str, ...]
    form: str  # "table", "forbid table" or "check"
    applies_to: str
    rows: tuple[int, int] | None  # fewest and most rows over the combinations (tables)
    combos: int
    source: str


def rule_set_constraints(rule_set: RuleSet, selection: Selection) -> list[ConstraintSummary]:
    """The rule set's own constraints (not the arch's), merged by name, scope and form across the selection."""
    seen: dict[tuple, list] = {}
    for combo in selection.combos():
        for c in rule_set.constraints(combo):
            form = "check" if c.form != "table" else ("forbid table" if c.forbid else "table")
            entry = seen.setdefault((c.name, c.scope, form, c.applies_to), [[], 0, c.source])
            if form != "check":
                entry[0].append(len(c.rows))
            entry[1] += 1
    return [ConstraintSummary(name, scope, form, kind, (min(rows), max(rows)) if rows else None, combos, source)
            for (name, scope, form, kind), (rows, combos, source) in seen.items()]


# --- diff ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One side of a diff: a rule set, or a file of kernel names."""

    label: str
    rule_set: RuleSet | None = None
    names: tuple | None = None

    def configs(self, combo: Combo) -> dict[str, object]:
        if self.rule_set is not None:
            return {c.name(): c for c in solve_combo(self.rule_set, combo).configs()}
        return {n: c for n, c in self.names
                if c.variant == combo.variant and c.dtype == combo.dtype and c.ndim == combo.ndim}


def open_source(spec: str, builder_configs: str | None = None) -> Source:
    """A rule-set name, a rule-set file (.toml), or a file of kernel names."""
    path = Path(spec)
    if spec in rule_set_names() or path.suffix == ".toml":
        rs = load_rule_set(spec, builder_configs)
        return Source(rs.name or spec, rule_set=rs)
    if not path.is_file():
        raise CksolveError(f"{shorten(spec)} is neither a rule set ({', '.join(rule_set_names())}) nor a readable file of names")
    return Source(path.name, names=tuple(read_names(path)))


def read_names(path: Path | str) -> list[tuple[str, object]]:
    """(name, config) for every kernel named in the file at ``path`` (``-``: stdin)."""
    where = "stdin" if str(path) == "-" else shorten(str(path), quote=False)
    return [(c.name(), c) for c in parse_names(numbered_lines(path, "names file"), where)]


# --- check --------------------------------------------------------------------------


def check_names(source: Path | str, arch: str, rule_set: RuleSet | None = None) -> Iterator[dict]:
    """One record per name of a names file (``-``: stdin), as ``check --format jsonl`` prints it.

    A generator over a line-at-a-time reader: memory does not grow with the
    number of names. A line that is not a name is a ``parse`` violation, not an error.
    """
    from .solver.evaluate import evaluate
    from .space.naming import NameError_, name_entries, parse_name

    for _, name in name_entries(numbered_lines(source, "names file")):
        record = {"name": name, "arch": arch}
        try:
            verdict = evaluate(parse_name(name), arch, rule_set)
        except NameError_ as exc:
            record.update(valid=False, violations=[{"constraint": "parse", "message": str(exc)}])
            if rule_set is not None:
                record["member"] = False
        else:
            record["valid"] = verdict.valid
            record["violations"] = [{"constraint": v.constraint, "message": v.message}
                                    for v in verdict.violations + verdict.rule_violations]
            if rule_set is not None:
                record["member"] = verdict.member
        yield record


@dataclass(frozen=True)
class ComboDiff:
    combo: Combo
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    common: int
    why_a: tuple[tuple[str, object, int, bool], ...]  # see axis_breakdown
    why_b: tuple[tuple[str, object, int, bool], ...]


def diff_sources(a: Source, b: Source, selection: Selection) -> list[ComboDiff]:
    out = []
    for combo in selection.combos():
        ca, cb = a.configs(combo), b.configs(combo)
        only_a = {n: c for n, c in ca.items() if n not in cb}
        only_b = {n: c for n, c in cb.items() if n not in ca}
        if not (ca or cb):
            continue
        out.append(ComboDiff(combo, tuple(sorted(only_a)), tuple(sorted(only_b)), len(ca) - len(only_a),
                             axis_breakdown(only_a, cb), axis_breakdown(only_b, ca)))
    return out
