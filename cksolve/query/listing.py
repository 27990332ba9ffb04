"""Rule sets and what they hold: loading, enumerating, counting, their constraints, the architectures.

Everything returns data; the command line prints it. Load warnings are kept
on the rule set (``RuleSet.warnings``) for the caller to show: the library
never writes to stderr.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from itertools import repeat
from typing import Iterable, Iterator, Sequence

from ..arch.facts import ArchFacts, arch_facts, archs, common_facts
from ..errors import CksolveError
from ..rulesets import RULE_SETS, RuleSet, get_rule_set, rule_set_description, takes_rule_set
from ..selection import Record, Selection
from ..solver import (SpaceTooLarge, build_model, config_blocks, enumerate_combo, get_backend, name_blocks, names_combo,
                      solve_combo)
from ..space.combo import Combo
from ..space.namesfile import section_line
from ..space.spelling import clear_name_memos

__all__ = ["load_rule_set", "ENUMERATE_LIMIT", "enumerate_records", "enumerate_names", "enumerate_lines", "enumerate_text",
           "name_lines", "count_records",
           "ConstraintSummary", "rule_set_constraints", "rule_set_descriptions", "arch_facts_list", "archs_document"]


def load_rule_set(name: str, builder_configs: str | None = None, strict: bool = False) -> RuleSet:
    """The rule set ``name`` (or a rule-set file); what loading would only warn about is in its
    ``warnings``, or with ``strict`` an error instead."""
    return get_rule_set(name, builder_configs=builder_configs, strict=strict)


#: ``enumerate`` refuses to list more configs than this unless told (``limit``; 0 or None: no limit). A guard
#: against listing a whole space by accident, not a bound of memory: listings stream (``solver.listing.stream``).
ENUMERATE_LIMIT = 10_000_000
#: Combinations with at most this many configs, all joined, are listed from the solver's memoised name order
#: (shared with the commands that ask again, emit and features); larger ones, and any with a component only
#: counted (a tree, never joined), stream in blocks.
MEMO_LISTING = 100_000


@takes_rule_set
def enumerate_records(rule_set: RuleSet, selection: Selection, limit: int | None = ENUMERATE_LIMIT,
                      why: str | None = None, backend: str | None = None) -> Iterator[Record]:
    """Every (arch, config) of the rule set valid for the selection, in canonical order.

    The selection is counted first (cheap: components multiply) and refused above
    ``limit`` (0 or None: never), a guard against listing a whole space by accident;
    the records are made in blocks, so memory does not grow with the listing.
    ``why``: a caller with no ``--limit`` to raise (report) says why it refuses instead.
    ``backend``: list with one of ``solver.BACKENDS`` instead of the direct backend (the default), per
    combination in that backend's order (``enumerate --backend``); the limit is still counted by the direct one.
    """
    chosen = None if backend in (None, "direct") else get_backend(backend)
    _check_limit(rule_set, selection, limit, why)
    return _records(rule_set, selection) if chosen is None else _backend_records(chosen, rule_set, selection)


def _backend_records(backend, rule_set: RuleSet, selection: Selection) -> Iterator[Record]:
    for combo in selection.combos():
        for config in backend.enumerate(build_model(combo, rule_set)):
            yield Record(rule_set.name, combo, config)


@takes_rule_set
def enumerate_names(rule_set: RuleSet, selection: Selection, limit: int | None = ENUMERATE_LIMIT) -> Iterator[str]:
    """The kernel names of :func:`enumerate_records`, in the same order, without forming records.

    Listing names is the main job; the solver keeps them with its name order.
    """
    _check_limit(rule_set, selection, limit)
    return _names(rule_set, selection)


@takes_rule_set
def enumerate_lines(rule_set: RuleSet, selection: Selection, limit: int | None = ENUMERATE_LIMIT) -> Iterator[str]:
    """The names file ``enumerate`` writes (lines with their ends): one name a line and, over several archs,
    each arch's names after its section line (``# arch: A``, a comment to every names-file reader;
    ``check`` and ``emit --names`` read it as the arch of the names after it). One arch: names only.
    """
    _check_limit(rule_set, selection, limit)
    return (line for block in _blocks(rule_set, selection) for line in block.splitlines(True))


@takes_rule_set
def enumerate_text(rule_set: RuleSet, selection: Selection, limit: int | None = ENUMERATE_LIMIT) -> Iterator[str]:
    """:func:`enumerate_lines`'s text in blocks of many lines (what ``enumerate`` writes as it goes: memory does
    not grow with the listing)."""
    _check_limit(rule_set, selection, limit)
    return _blocks(rule_set, selection)


def _blocks(rule_set: RuleSet, selection: Selection) -> Iterator[str]:
    if len(selection.archs) == 1:
        yield from _name_blocks(rule_set, selection)
        return
    for arch in selection.archs:
        yield section_line(arch) + "\n"
        yield from _name_blocks(rule_set, replace(selection, archs=(arch,)))


def _name_blocks(rule_set: RuleSet, selection: Selection) -> Iterator[str]:
    small = []
    for combo in selection.combos():
        solutions = _listed(solve_combo, rule_set, combo)
        if _memo_listed(solutions):
            names = names_combo(rule_set, combo)
            if names:  # one C call per combination, not a format per name
                small.append("\n".join(names) + "\n")
            continue
        if small:
            yield "".join(small)
            small = []
        yield from name_blocks(solutions)
    if small:
        yield "".join(small)


def name_lines(arch_names: Iterable[tuple[str, str]], archs: Sequence[str]) -> Iterator[str]:
    """(arch, name) pairs as :func:`enumerate_lines` writes them, for listings made another way (a backend's)."""
    if len(archs) == 1:
        yield from (f"{n}\n" for _, n in arch_names)
        return
    by_arch: dict[str, list[str]] = {}
    for arch, name in arch_names:
        by_arch.setdefault(arch, []).append(name)
    for arch in archs:
        yield section_line(arch) + "\n"
        yield from (f"{n}\n" for n in by_arch.get(arch, ()))


def _check_limit(rule_set: RuleSet, selection: Selection, limit: int | None, why: str | None = None) -> None:
    if limit is not None and limit < 0:
        raise CksolveError(f"{{option}} {limit} must not be negative", option="limit")
    if not limit:
        return
    total = 0
    for combo in selection.combos():  # stops at the first combination past the limit
        total += _count(rule_set, combo)
        if total > limit:
            raise CksolveError(f"{rule_set.name or 'rule set'} has more than {limit:,} configs in this selection "
                               f"({total:,} up to {combo.key}){', ' + why if why else ''}: narrow it ({{opt:arch}}, "
                               f"{{opt:variant}}, {{opt:dtype}}, {{opt:ndim}}, pins in the rule-set file)"
                               + ("" if why else " or raise {opt:limit} (0: no limit)"))


def _listed(lister, rule_set: RuleSet, combo: Combo):
    """``lister(rule_set, combo)``, with a space too large to list as one line naming the combination."""
    try:
        return lister(rule_set, combo)
    except SpaceTooLarge as exc:
        raise CksolveError(f"{rule_set.name or 'rule set'} leaves too many axes free to list {combo.key} ({exc}): "
                           f"pin more of those axes") from None


def _records(rule_set: RuleSet, selection: Selection) -> Iterator[Record]:
    label = rule_set.name
    make = partial(tuple.__new__, Record)  # Record(...) runs a Python __new__ per kernel; this runs in C
    for combo in selection.combos():
        solutions = _listed(solve_combo, rule_set, combo)
        if _memo_listed(solutions):
            yield from map(make, zip(repeat(label), repeat(combo), _listed(enumerate_combo, rule_set, combo)))
            continue
        for block in config_blocks(solutions):
            yield from map(make, zip(repeat(label), repeat(combo), block))
            clear_name_memos()  # each name of a streamed listing is asked for once


def _memo_listed(solutions) -> bool:
    return solutions.count() <= MEMO_LISTING and all(c.counted is None for c in solutions.components)


def _names(rule_set: RuleSet, selection: Selection) -> Iterator[str]:
    for block in _name_blocks(rule_set, selection):
        yield from block.splitlines()


@takes_rule_set
def count_records(rule_set: RuleSet, selection: Selection, backend: str | None = None) -> dict[Combo, int]:
    """Configs per combination, from the solve's factors (no config is formed); ``backend``: counted by one of
    ``solver.BACKENDS`` instead of the direct backend (the default; one that cannot count says so)."""
    if backend in (None, "direct"):
        return {combo: _count(rule_set, combo) for combo in selection.combos()}
    chosen = get_backend(backend)
    return {combo: chosen.count(build_model(combo, rule_set)) for combo in selection.combos()}


def _count(rule_set: RuleSet, combo: Combo) -> int:
    try:
        return solve_combo(rule_set, combo).count()
    except SpaceTooLarge as exc:
        raise CksolveError(f"{rule_set.name or 'rule set'} leaves too many axes free to count {combo.key} "
                           f"({exc}): pin more axes or extend a rule set") from None


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


@takes_rule_set
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


def rule_set_descriptions() -> dict[str, str]:
    """Every built-in rule set's one line, without loading any of them."""
    return {name: rule_set_description(name) for name in RULE_SETS}


def arch_facts_list() -> list[ArchFacts]:
    """Every architecture the active CK version knows, with its facts, in the facts file's order."""
    return [arch_facts(a) for a in archs()]


def archs_document() -> dict:
    """``archs --format json``: per-arch facts, and the facts shared by all: the LDS budget per pipeline when
    the CK version has one for every arch, else each arch's LDS (``lds_capacity``) and budgets (``lds_budget``)."""
    facts = arch_facts_list()
    per_arch = any(f.lds_capacity is not None for f in facts)
    archs_out = []
    for f in facts:
        record = {"arch": f.name, "family": f.family, "warp_size": f.warp_size,
                  "wave_splits": [list(w) for w in f.wave_splits],
                  "warp_tiles": {k: [list(t) for t in v] for k, v in f.warp_tiles.items()}}
        if per_arch:
            record.update(lds_capacity=f.lds_capacity, lds_budget=dict(f.lds_budgets))
        archs_out.append(record)
    shared = {} if per_arch else {"lds_capacity": dict(facts[0].lds_budgets)}
    return {"archs": archs_out, **shared, "element_size": dict(common_facts().element_size)}
