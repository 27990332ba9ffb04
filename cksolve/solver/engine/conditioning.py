"""Counting and sampling a component too large to join: tabulate, split, condition, join the pieces.

A rule-set file that pins nothing leaves the arch rules alone over about 10^11
configs per combination, and one arch rule (``arch.tile_coverage``) couples
nine axes: no join can hold its partial rows. This module solves such a
component exactly by recursion over *pieces* (a piece is a set of relations
over some axes, with domains):

1. propagate: a relation with one free axis prunes that axis's domain, a
   relation with none is decided, a table keeps only rows inside the domains;
2. tabulate: a filter (a check, a forbidden table) over fewer than
   ``TAB_LIMIT`` free tuples becomes the table of the tuples it allows -- and
   vanishes when it allows them all, or becomes one domain per axis when its
   rows are the product of their columns;
3. split: the relations link the axes into independent parts (an axis no
   relation reads multiplies by its domain size);
4. join each part with the direct backend's join (bounded by ``PIECE_LIMIT``
   rows), or, if a filter is still too wide to tabulate or the join passes its
   bound, *condition*: fix one axis (or the rows of a small table within the
   widest filter) to each of its values and solve the smaller pieces.
   Conditioning on the wave split and then the pipeline leaves
   ``arch.tile_coverage`` over five axes, which tabulates; for most pipelines
   it then allows everything and vanishes, and equal pieces are solved once
   (pieces are memoised by their canonical relations).

The result is a tree (:class:`Part` / :class:`Branches`) whose leaves are
joined components; its count is exact (Python integers), and it samples
exactly uniformly: each branch is taken with probability proportional to the
number of configs under it. ``PIECE_BOUND`` pieces per solve is the
documented bound past which counting refuses, naming the axes it was
conditioning.

Propagation, tabulation, restriction and conditioning are one recursion over pieces and
share its memos; a filter's verdicts over a product of domains (per tuple, or vectorised)
are :mod:`.verdicts`.
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate, compress, product
from math import prod
from typing import Callable

from ...space.constraints import Check
from ...space.memos import MEMOS
from .counting import SpaceTooLarge
from .solve_plan import connected
from .relations import Relation, derived, domain_ids, index_rows, relation
from .verdicts import raw_test, verdicts

__all__ = ["Part", "Branches", "solve_piece", "filter_pieces", "TAB_LIMIT", "PIECE_LIMIT", "PIECE_BOUND"]

#: A filter over at most this many free tuples is tabulated (evaluated on each) into a table.
TAB_LIMIT = 50_000
#: Partial rows a piece's join may hold before the piece is conditioned further.
PIECE_LIMIT = 50_000
#: Distinct pieces one process may solve for counting (each at most ``PIECE_LIMIT`` rows): the bound past
#: which a count is refused. The whole space of every combination of every arch needs about 3,000.
PIECE_BOUND = 200_000


@dataclass(frozen=True)
class Branches:
    """A piece split by the values of ``axes``: (values, the piece under them), with cumulative weights."""

    axes: tuple[str, ...]
    options: tuple[tuple[tuple, "Part"], ...]
    size: int
    cumulative: tuple[int, ...] = field(repr=False, default=())

    def count(self) -> int:
        return self.size

    def decode(self, r: int, out: dict) -> None:
        """The ``r``-th config under these branches into ``out`` (see ``Component.decode``)."""
        i = bisect_right(self.cumulative, r)
        if i:
            r -= self.cumulative[i - 1]
        values, part = self.options[i]
        out.update(zip(self.axes, values))
        part.decode(r, out)


@dataclass(frozen=True)
class Part:
    """Independent pieces: axes fixed by propagation, axes free over a domain, joined components, branches."""

    fixed: tuple[tuple[str, object], ...]
    free: tuple[tuple[str, tuple], ...]
    parts: tuple  # Component | Branches
    size: int

    def count(self) -> int:
        return self.size

    def decode(self, r: int, out: dict) -> None:
        """The ``r``-th config of the part into ``out``: mixed radix over its free axes and parts."""
        out.update(self.fixed)
        for axis, values in self.free:
            r, j = divmod(r, len(values))
            out[axis] = values[j]
        for p in self.parts:
            r, j = divmod(r, p.size)
            p.decode(j, out)


_PIECES = MEMOS.memo("conditioning.pieces")
_TABULATED = MEMOS.memo("conditioning.tabulated")
_RESTRICTED = MEMOS.memo("conditioning.restricted")
_COLUMNS = MEMOS.memo("conditioning.columns")
_TABLE_ROWS = MEMOS.memo("conditioning.table_rows")
_GRIDS = MEMOS.memo("conditioning.grids")
_TRUE, _FALSE = object(), object()


def solve_piece(axes: tuple, rels: list[Relation], domains: dict, join: Callable) -> Part:
    """The exact solution tree of ``rels`` over ``axes`` (every relation reads only these axes).

    ``join(axes, rels, domains, limit)`` is the direct backend's join of one
    connected part (a :class:`Component`; ``SpaceTooLarge`` past ``limit`` rows).
    """
    domains = {a: tuple(domains[a]) for a in axes}
    ids = domain_ids(domains)
    key = (tuple(axes), tuple(sorted(r.token for r in rels)), tuple(ids[a] for a in axes))
    hit = _PIECES.get(key)
    if hit is None:
        if len(_PIECES) >= PIECE_BOUND:
            raise SpaceTooLarge(f"more than {PIECE_BOUND:,} pieces to count over {', '.join(axes)}")
        hit = _PIECES[key] = _solve_piece(tuple(axes), list(rels), domains, join)
    return hit


def _solve_piece(axes: tuple, rels: list, domains: dict, join: Callable) -> Part:
    rels = _propagate(rels, domains)
    if rels is None or any(not domains[a] for a in axes):
        return Part((), (), (), 0)
    fixed = tuple((a, domains[a][0]) for a in axes if len(domains[a]) == 1)
    read = {a for r in rels for a in r.free}
    free = tuple((a, domains[a]) for a in axes if a not in read and len(domains[a]) > 1)
    parts, total = [], prod(len(v) for _a, v in free)
    for comp_axes, comp_rels in _split(axes, rels, read):
        part = _solve_connected(comp_axes, comp_rels, domains, join)
        n = part.count()
        if not n:
            return Part((), (), (), 0)
        total *= n
        parts.append(part)
    return Part(fixed, free, tuple(parts), total)


def _propagate(rels: list, domains: dict) -> list | None:
    """Unary relations prune domains, decided relations drop, small filters tabulate; None if infeasible."""
    changed = True
    while changed:
        changed = False
        out = []
        single = {a: d[0] for a, d in domains.items() if len(d) == 1}
        for rel in rels:
            if single and any(a in single for a in rel.free):
                rel = restrict(rel, {a: single[a] for a in rel.free if a in single})
                if rel is _TRUE:
                    continue
                if rel is _FALSE:
                    return None
            if not rel.is_table:
                rel = _tabulated(rel, domains)
                if rel is _TRUE:
                    continue
            else:
                rel = _within(rel, domains)
            if not rel.is_table:
                out.append(rel)
                continue
            if not rel.rows:
                return None
            columns = _columns(rel)
            if len(rel.free) == 1 or len(rel.rows) == prod(map(len, columns)):
                # a product of its columns: one domain per axis, no coupling
                for a, col in zip(rel.free, columns):
                    kept = tuple(v for v in domains[a] if v in col)
                    if kept != domains[a]:
                        domains[a], changed = kept, True
                continue
            out.append(rel)
        rels = out
    return rels


def _columns(rel: Relation) -> tuple:
    hit = _COLUMNS.get(rel.token)
    if hit is None:
        hit = _COLUMNS[rel.token] = tuple(map(frozenset, zip(*rel.rows))) if rel.rows else \
            tuple(frozenset() for _a in rel.free)
    return hit


def _within(rel: Relation, domains: dict) -> Relation:
    """A table's rows inside the domains (the same relation when nothing is dropped)."""
    if all(c.issubset(domains[a]) for a, c in zip(rel.free, _columns(rel))):
        return rel
    sets = [frozenset(domains[a]) for a in rel.free]
    rows = frozenset(r for r in rel.rows if all(v in s for v, s in zip(r, sets)))
    return derived(rel, rel.free, rows)


def _tabulated(rel: Relation, domains: dict):
    """A filter as the table of what it allows over the domains, ``_TRUE`` if everything; the filter itself
    when its free tuples are more than ``TAB_LIMIT``."""
    doms = tuple(domains[a] for a in rel.free)
    if prod(map(len, doms)) > TAB_LIMIT:
        return rel
    ids = domain_ids(dict(zip(rel.free, doms)))
    key = (rel.token, tuple(ids[a] for a in rel.free))
    hit = _TABULATED.get(key)
    if hit is None:
        allowed = verdicts(rel, doms)
        if not isinstance(allowed, list):
            allowed = list(allowed)
        if all(allowed):
            hit = _TRUE
        else:
            # the same verdicts recur (wave splits of one block size): their rows are made once
            flags = bytes(map(bool, allowed))
            same = (doms, flags)
            rows = _TABLE_ROWS.get(same)
            if rows is None:
                rows = _TABLE_ROWS[same] = frozenset(compress(_grid(doms), allowed))
            hit = derived(rel, rel.free, rows)
            np = sys.modules.get("numpy")  # loaded when the verdicts were vectorised: columns from the flags
            if np is not None and len(doms) > 1 and hit.token not in _COLUMNS:
                grid = np.frombuffer(flags, dtype=np.uint8).reshape(tuple(map(len, doms))).astype(bool)
                _COLUMNS[hit.token] = tuple(
                    frozenset(compress(d, grid.any(axis=tuple(j for j in range(len(doms)) if j != i)).tolist()))
                    for i, d in enumerate(doms))
        _TABULATED[key] = hit
    return hit


def _grid(doms: tuple) -> tuple:
    """Every tuple of the product of ``doms``, made once: the tables tabulated over the same domains (one per
    pipeline, say) hold the same tuple objects, not copies (gfx1250's 0.8 million rows are 0.2 million values)."""
    hit = _GRIDS.get(doms)
    if hit is None:
        hit = _GRIDS[doms] = tuple(product(*doms))
    return hit


def restrict(rel: Relation, assign: dict):
    """``rel`` with the axes of ``assign`` fixed: a smaller relation, or ``_TRUE``/``_FALSE`` when decided."""
    if rel.is_table:
        at = tuple(rel.free.index(a) for a in assign)
        want = tuple(assign.values())
        rest = tuple(i for i, a in enumerate(rel.free) if a not in assign)
        if not rest:
            return _TRUE if want in index_rows(rel.rows, at, ()) else _FALSE
        rows = index_rows(rel.rows, at, rest).get(want, ())
        return derived(rel, tuple(rel.free[i] for i in rest), frozenset(rows)) if rows else _FALSE
    free = tuple(a for a in rel.free if a not in assign)
    spec = tuple((True, v) if f else ((True, assign[rel.free[v]]) if rel.free[v] in assign
                                      else (False, free.index(rel.free[v]))) for f, v in rel.spec)
    if not free:
        return _TRUE if raw_test(_with_spec(rel, (), spec))(()) else _FALSE
    key = (rel.constraint, free, spec)
    hit = _RESTRICTED.get(key)
    if hit is None:
        hit = _RESTRICTED[key] = _with_spec(rel, free, spec)
    return hit


def _with_spec(rel: Relation, free: tuple, spec: tuple) -> Relation:
    out = object.__new__(Relation)
    out.constraint, out.free, out.is_table, out.rows = rel.constraint, free, False, None
    out.spec, out.identity, out.verdicts = spec, False, {}
    return out


def _split(axes: tuple, rels: list, read: set):
    """Connected parts: (axes, relations), in axis order."""
    return [(part, [rels[k] for k in mine]) for part, mine in connected(tuple(a for a in axes if a in read), rels)]


def _solve_connected(axes: tuple, rels: list, domains: dict, join: Callable):
    """A connected part: joined once every filter is tabulated and its rows are few, else conditioned."""
    widest = max((r for r in rels if not r.is_table), key=lambda r: _width(r, domains), default=None)
    if widest is None:
        try:
            comp = join(axes, rels, domains, PIECE_LIMIT)
            return comp if comp.rows else Part((), (), (), 0)
        except SpaceTooLarge:
            pass
    return _condition(axes, rels, domains, join, widest)


def _cheapest(options: list, need: float) -> tuple:
    """(axes, value rows) to condition on first: see ``_condition``."""
    best = None  # (branches, -reduction, first option)
    options = sorted(options, key=lambda o: (-o[2] / len(o[1]), len(o[1]), o[0]))[:16]

    def search(i, used, branches, reduction, first):
        nonlocal best
        if best is not None and branches >= best[0]:
            return
        if reduction >= need:
            best = (branches, -reduction, first)
            return
        for j in range(i, len(options)):
            axes, rows, red = options[j]
            if used.isdisjoint(axes):
                search(j + 1, used | set(axes), branches * len(rows), reduction * red,
                       first if first is not None else options[j])

    search(0, frozenset(), 1, 1, None)
    if best is None:  # nothing reaches the bound: all of them, best ratio first
        first = options[0]
    else:
        first = best[2]
    return first[0], first[1]


def _width(rel: Relation, domains: dict) -> int:
    return prod(len(domains[a]) for a in rel.free)


def _options(base: Relation, axes: tuple, rels: list, domains: dict) -> list:
    """What ``base`` can be conditioned on: each of its axes, and each table of ``rels`` within its scope,
    as (axes, value rows, width)."""
    scope = set(base.free)
    options = [((a,), tuple((v,) for v in domains[a]), len(domains[a]))
               for a in axes if a in scope and len(domains[a]) > 1]
    options += [(r.free, tuple(sorted(r.rows, key=repr)), _width(r, domains)) for r in rels
                if r.is_table and r is not base and set(r.free) <= scope and 1 < len(r.rows) < _width(r, domains)]
    return options


def filter_pieces(constraint: Check, tables: tuple, domains: dict, assign: dict | None = None):
    """A check too wide to tabulate as pieces that are: (assignment, free axes, allowed rows over them).

    Under each assignment (values of a few of its axes, or the rows of one of ``tables`` -- allowed tables
    over axes within its scope -- found as ``_condition`` finds them) the check is a table of at most
    ``TAB_LIMIT`` tuples; assignments under which it allows everything are left out, and empty rows mean
    it allows nothing. The check holds exactly when the pieces whose assignment holds do: what the CP-SAT
    backend needs to state it without a table over all its axes.
    """
    ids = domain_ids(domains)
    rel = relation(constraint, domains, ids)
    rels = [relation(t, domains, ids) for t in tables]
    yield from _pieces(rel, rels, domains, assign or {})


def _pieces(rel: Relation, rels: list, domains: dict, assign: dict):
    got = _tabulated(rel, domains)
    if got is _TRUE:
        return
    if got.is_table:
        yield assign, got.free, got.rows
        return
    cond_axes, choices = _cheapest(_options(rel, rel.free, rels, domains), _width(rel, domains) / TAB_LIMIT)
    for values in choices:
        fix = dict(zip(cond_axes, values))
        sub = restrict(rel, {a: fix[a] for a in rel.free if a in fix})
        if sub is _FALSE:
            yield {**assign, **fix}, (), frozenset()
        elif sub is not _TRUE:
            yield from _pieces(sub, [], {**domains, **{a: (v,) for a, v in fix.items()}}, {**assign, **fix})


def _condition(axes: tuple, rels: list, domains: dict, join: Callable, widest) -> Branches | Part:
    """Fix one axis, or the rows of a table, within the widest filter (the largest table if every filter is
    tabulated) and solve each branch.

    The choice is the first step of the cheapest plan: of the sets of disjoint choices (axes of the filter,
    tables within it) whose values shrink the filter under ``TAB_LIMIT``, the one with the fewest branches
    in all (the wave split's rows, then the pipeline); its choice that shrinks most per branch goes first.
    """
    base = widest if widest is not None else max(rels, key=lambda r: (len(r.rows), r.free))
    need = _width(base, domains) / TAB_LIMIT if widest is not None else 2
    cond_axes, choices = _cheapest(_options(base, axes, rels, domains), need)
    options = []
    for values in choices:
        assign = dict(zip(cond_axes, values))
        sub_rels = []
        for r in rels:
            if any(a in assign for a in r.free):
                r = restrict(r, {a: assign[a] for a in r.free if a in assign})
                if r is _TRUE:
                    continue
                if r is _FALSE:
                    break
            sub_rels.append(r)
        else:
            sub_domains = {**domains, **{a: (v,) for a, v in assign.items()}}
            part = solve_piece(axes, sub_rels, sub_domains, join)
            if part.count():
                options.append((values, part))
    if not options:
        return Part((), (), (), 0)
    counts = [p.count() for _v, p in options]
    return Branches(cond_axes, tuple(options), sum(counts), tuple(accumulate(counts)))
