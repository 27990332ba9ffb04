"""Relations: constraints reduced by a combination's fixed axes, and the row operations on them.

A relation is canonical per (constraint, domains of its axes): the same arch
or rule-set constraint meets the same fixed values in many combinations, so
one object -- and one memo of verdicts -- serves all of them. Tables derived
from a relation (a push-down, a projection) are canonical per rows. Per-row
work runs in C through ``map``/``compress``/``itemgetter``; a Python call is
made only per distinct key a relation has not judged before.
"""

from __future__ import annotations

from collections import Counter

from itertools import compress
from operator import itemgetter

from ...space.constraints import Constraint, Table
from ...space.memos import MEMOS

__all__ = ["Relation", "derived", "domain_ids", "filter_rows", "filtered_rows", "index_rows", "key_getter",
           "projection", "relation"]


def key_getter(positions: tuple[int, ...]):
    """Key of a row at ``positions``, always a tuple (itemgetter of one position is not)."""
    if len(positions) == 1:
        (i,) = positions
        return itemgetter(slice(i, i + 1))
    if not positions:
        return itemgetter(slice(0, 0))
    return itemgetter(*positions)


class Relation:
    """A constraint reduced by the fixed axes: free scope + how to test or generate."""

    __slots__ = ("constraint", "free", "is_table", "rows", "spec", "identity", "verdicts", "_token")

    @classmethod
    def table_of(cls, base: "Relation", free: tuple, rows: frozenset) -> "Relation":
        """A table derived from ``base`` (pushed-down filters, a projection)."""
        rel = object.__new__(cls)
        rel.constraint, rel.free, rel.is_table, rel.rows = base.constraint, free, True, rows
        rel.spec, rel.identity, rel.verdicts = None, True, {}
        return rel

    @property
    def key(self) -> tuple:
        """What the rel tests, as a hashable value (filter caches key on it)."""
        return (self.constraint, self.free, self.rows if self.is_table else self.spec)

    @property
    def token(self) -> int:
        """A small int standing for ``key``: equal keys, equal tokens (cheap cache keys)."""
        try:
            return self._token
        except AttributeError:
            self._token = _TOKENS.setdefault(self.key, len(_TOKENS))
            return self._token

    def __init__(self, constraint: Constraint, fixed: dict, domains: dict):
        self.constraint = constraint
        scope = constraint.scope
        self.free = tuple(dict.fromkeys(a for a in scope if a not in fixed))
        self.is_table = isinstance(constraint, Table) and not constraint.forbid
        # For each scope position: (True, fixed value) or (False, index into the free values).
        where = {a: i for i, a in enumerate(self.free)}
        self.spec = tuple((True, fixed[a]) if a in fixed else (False, where[a]) for a in scope)
        self.identity = self.free == scope
        self.verdicts: dict = {}  # key on the free axes -> verdict, kept across solves
        self.rows = None
        if self.is_table:
            # Rows must also respect domains pruned by constraints already propagated away.
            fixed_key = tuple(fixed.get(a, _FREE) for a in scope)
            live_key = tuple(None if a in fixed else domains[a] for a in scope)
            self.rows = _reduced_rows(constraint, fixed_key, live_key)

    def holds_free(self, free_values: tuple) -> bool:
        """Verdict of a filter (not a table: ``filter_rows`` looks tables up itself) for values of ``self.free``."""
        if self.identity:
            return self.constraint.holds(free_values)
        return self.constraint.holds(tuple(v if f else free_values[v] for f, v in self.spec))


_FREE = object()
_RELS = MEMOS.memo("relations.relations")
_TOKENS = MEMOS.memo("relations.tokens")
_DOMAIN_IDS = MEMOS.memo("relations.domain_ids")


def domain_ids(domains: dict) -> dict:
    """A small int per distinct domain: relation keys then hash ints, not nested tuples."""
    return {a: _DOMAIN_IDS.setdefault(d, len(_DOMAIN_IDS)) for a, d in domains.items()}


def relation(constraint: Constraint, domains: dict, ids: dict) -> Relation:
    """The one ``Relation`` of a constraint under these domains of its axes.

    The same arch or rule-set constraint meets the same fixed values in many
    combinations; sharing the reduced relation shares its verdict memo too.
    """
    key = (constraint, tuple(map(ids.__getitem__, constraint.scope)))
    rel = _RELS.get(key)
    if rel is None:
        fixed = {a: domains[a][0] for a in constraint.scope if len(domains[a]) == 1}
        rel = _RELS[key] = Relation(constraint, fixed, domains)
    return rel


@MEMOS.cached("relations.reduced_rows", maxsize=4096)
def _reduced_rows(table: Table, fixed_key: tuple, live_key: tuple) -> frozenset:
    """A table's rows that agree with the fixed axes, projected onto the free ones.

    Cached: the same rule-set table meets the same fixed values in many
    combinations (every arch, for instance).
    """
    rows = table.rows
    fixed_idx = tuple(i for i, v in enumerate(fixed_key) if v is not _FREE)
    if fixed_idx:
        want = tuple(fixed_key[i] for i in fixed_idx)
        rows = list(compress(rows, map(want.__eq__, map(key_getter(fixed_idx), rows))))
    free_idx = tuple(i for i, v in enumerate(fixed_key) if v is _FREE)
    used = _column_values(table)
    for i in free_idx:
        live = live_key[i]
        if live is not None and not used[i].issubset(live):  # a domain holding every value of the column drops none
            rows = list(compress(rows, map(frozenset(live).__contains__, map(itemgetter(i), rows))))
    return frozenset(map(key_getter(free_idx), rows))


@MEMOS.cached("relations.column_values", maxsize=4096)
def _column_values(table: Table) -> tuple[frozenset, ...]:
    """The values each column of ``table`` holds (a table meets many combinations' domains)."""
    return tuple(map(frozenset, zip(*table.rows))) if table.rows else (frozenset(),) * len(table.scope)


_DERIVED = MEMOS.memo("relations.derived")


def derived(base: Relation, free: tuple, rows: frozenset) -> Relation:
    """The one table relation of these rows (so its verdict memo lasts across solves)."""
    key = (base.constraint, free, rows)
    rel = _DERIVED.get(key)
    if rel is None:
        rel = _DERIVED[key] = Relation.table_of(base, free, rows)
    return rel


_PUSHED = MEMOS.memo("relations.pushed_down")


def filtered_rows(rows: frozenset, free: tuple, filters: tuple) -> frozenset:
    """``rows`` (over ``free``) that pass ``filters``; cached on what the filters test."""
    cache_key = (rows, free, tuple(f.token for f in filters))
    hit = _PUSHED.get(cache_key)
    if hit is None:
        pos = {a: i for i, a in enumerate(free)}
        kept = list(rows)
        for f in filters:
            kept = filter_rows(kept, f, pos)
        hit = _PUSHED[cache_key] = frozenset(kept)
    return hit


@MEMOS.cached("relations.projections", maxsize=4096)
def projection(rows: frozenset, positions: tuple) -> frozenset:
    """The distinct values of ``rows`` at ``positions`` (a leaf's table as the core sees it)."""
    return frozenset(index_rows(rows, positions, ()))


@MEMOS.cached("relations.indexes", maxsize=4096)
def index_rows(rows: frozenset, shared: tuple, new: tuple) -> dict:
    """Rows grouped by their shared-axis values (cached: tables recur across combinations)."""
    if not new:  # only the keys and how many rows each has: counted in C
        return {k: ((),) * n for k, n in Counter(map(key_getter(shared), rows)).items()}
    index: dict[tuple, list[tuple]] = {}
    same: dict = {}  # one tuple per distinct value: a table's sub-rows repeat under many keys (held, this is memory)
    values = list(map(key_getter(new), rows))
    for k, v in zip(map(key_getter(shared), rows), map(same.setdefault, values, values)):
        index.setdefault(k, []).append(v)
    return {k: tuple(v) for k, v in index.items()}


def filter_rows(rows: list[tuple], rel: Relation, pos: dict) -> list[tuple]:
    """Rows whose values on ``rel.free`` satisfy it; the per-row work runs in C (map/compress)."""
    keys = list(map(key_getter(tuple(pos[a] for a in rel.free)), rows))
    verdicts = rel.verdicts
    try:  # the verdicts are memoised across solves: mostly every key is judged already (no set of the keys made)
        return list(compress(rows, map(verdicts.__getitem__, keys)))
    except KeyError:
        pass
    missing = set(keys).difference(verdicts)
    if rel.is_table:
        verdicts.update((k, k in rel.rows) for k in missing)
    else:
        verdicts.update((k, rel.holds_free(k)) for k in missing)
    return list(compress(rows, map(verdicts.__getitem__, keys)))
