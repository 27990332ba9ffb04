"""The direct backend: propagate, factorise, join.

1. Selection axes are fixed; unary constraints prune domains until nothing
   changes; a constraint whose scope is fully fixed is decided once.
2. The remaining constraints link the free axes into independent components
   (connected by shared scope). Each component is solved by a hash join of its
   allowed tables, with every filter (forbidden tables, checks) applied as soon
   as its axes are bound; an axis no table covers is expanded from its domain.
3. The solution set is the Cartesian product of the components: counting
   multiplies their sizes and never materialises a config.

Filters are evaluated once per distinct value tuple of their scope (the rows
are mapped in C), table indexes are cached across combinations, and models
that differ only on axes no constraint reads share one solve. The order of
rows inside a solution set is unspecified; every public output sorts by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import compress, product
from math import prod
from operator import itemgetter
from typing import Sequence

from ..space.constraints import Constraint, Table
from ..space.config import config_fields
from .model import Model, config_class

__all__ = ["Component", "SolutionSet", "solve"]


@dataclass(frozen=True)
class Component:
    axes: tuple[str, ...]
    rows: tuple[tuple, ...]


@dataclass(frozen=True)
class SolutionSet:
    """The solutions of one model, as a product of independent components."""

    model: Model
    fixed: dict
    components: tuple[Component, ...]
    empty: bool = False

    def count(self) -> int:
        if self.empty:
            return 0
        return prod(len(c.rows) for c in self.components)

    def __len__(self) -> int:
        return self.count()

    def configs(self) -> list:
        """Every solution as a config (positional construction: 30+ fields, 40k configs)."""
        if self.empty:
            return []
        cls = config_class(self.model.kind)
        fixed_axes = tuple(self.fixed)
        offsets, flat_axes = {}, list(fixed_axes)
        for comp in self.components:
            flat_axes.extend(comp.axes)
        for i, a in enumerate(flat_axes):
            offsets[a] = i
        pick = itemgetter(*(offsets[f] for f in config_fields(cls)))
        base = tuple(self.fixed[a] for a in fixed_axes)
        rows = [c.rows for c in self.components]
        if len(rows) == 1:
            return [cls(*pick(base + r)) for r in rows[0]]
        return [cls(*pick(base + sum(parts, ()))) for parts in product(*rows)]


class _Rel:
    """A constraint reduced by the fixed axes: free scope + how to test or generate."""

    __slots__ = ("constraint", "free", "is_table", "rows", "spec", "identity")

    def __init__(self, constraint: Constraint, fixed: dict, domains: dict | None = None):
        self.constraint = constraint
        scope = constraint.scope
        self.free = tuple(dict.fromkeys(a for a in scope if a not in fixed))
        self.is_table = isinstance(constraint, Table) and not constraint.forbid
        # For each scope position: (True, fixed value) or (False, index into the free values).
        where = {a: i for i, a in enumerate(self.free)}
        self.spec = tuple((True, fixed[a]) if a in fixed else (False, where[a]) for a in scope)
        self.identity = self.free == scope
        self.rows = None
        if self.is_table:
            # Rows must also respect domains pruned by constraints already propagated away.
            fixed_key = tuple(fixed.get(a, _FREE) for a in scope)
            live_key = tuple(domains[a] if domains is not None and a not in fixed else None for a in scope)
            self.rows = _reduced_rows(constraint, fixed_key, live_key)

    def holds_free(self, free_values: tuple) -> bool:
        """Verdict for values of ``self.free`` (in that order)."""
        if self.is_table:
            return free_values in self.rows
        if self.identity:
            return self.constraint.holds(free_values)
        return self.constraint.holds(tuple(v if f else free_values[v] for f, v in self.spec))


_FREE = object()


@lru_cache(maxsize=4096)
def _reduced_rows(table: Table, fixed_key: tuple, live_key: tuple) -> frozenset:
    """A table's rows that agree with the fixed axes, projected onto the free ones.

    Cached: the same rule-set table meets the same fixed values in many
    combinations (every arch, for instance).
    """
    free_idx = [i for i, v in enumerate(fixed_key) if v is _FREE]
    fixed_idx = [(i, v) for i, v in enumerate(fixed_key) if v is not _FREE]
    live = [(i, frozenset(live_key[i])) for i in free_idx if live_key[i] is not None]
    return frozenset(
        tuple(r[i] for i in free_idx)
        for r in table.rows
        if all(r[i] == v for i, v in fixed_idx) and all(r[i] in d for i, d in live)
    )


_SOLVED: dict = {}
_USED: dict = {}


def solve(model: Model) -> SolutionSet:
    """Solve ``model``; models that differ only on axes no constraint reads share the work.

    (``default`` never reads ndim, so its three ndims are one solve; the
    rebuilt set carries each model's own fixed values.)
    """
    constraints = model.constraints
    used = _USED.get(constraints)
    if used is None:
        used = _USED[constraints] = tuple(a for a in model.axes if any(a in c.scope for c in constraints))
    domains = model.domains
    key = (model.kind, constraints, tuple(domains[a] for a in used))
    hit = _SOLVED.get(key)
    if hit is None:
        hit = _SOLVED[key] = _solve(model)
    own = {a: d[0] for a, d in domains.items() if len(d) == 1 and a not in used}
    return SolutionSet(model, {**hit.fixed, **own}, hit.components, hit.empty)


def _empty(model: Model, domains: dict) -> SolutionSet:
    return SolutionSet(model, {a: d[0] for a, d in domains.items() if len(d) == 1}, (), empty=True)


def _solve(model: Model) -> SolutionSet:
    domains = {a: tuple(d) for a, d in model.domains.items()}
    constraints = model.constraints

    # 1. propagate with a worklist: a constraint is revisited only when one of its
    #    axes becomes fixed (that is what can make it unary or decided).
    touching: dict[str, list[int]] = {}
    for i, c in enumerate(constraints):
        for a in c.scope:
            touching.setdefault(a, []).append(i)
    done = [False] * len(constraints)
    queue = list(range(len(constraints)))
    queued = [True] * len(constraints)
    while queue:
        i = queue.pop()
        queued[i] = False
        if done[i]:
            continue
        c = constraints[i]
        scope = c.scope
        free = [a for a in scope if len(domains[a]) != 1]
        if not free:
            done[i] = True
            if not c.holds(tuple(domains[a][0] for a in scope)):
                return _empty(model, domains)
            continue
        if len(free) > 1:
            continue
        done[i] = True
        axis = free[0]
        kept = tuple(v for v in domains[axis]
                     if c.holds(tuple(v if a == axis else domains[a][0] for a in scope)))
        if len(kept) == len(domains[axis]):
            continue
        domains[axis] = kept
        if not kept:
            return _empty(model, domains)
        if len(kept) == 1:
            for j in touching[axis]:
                if not done[j] and not queued[j]:
                    queued[j] = True
                    queue.append(j)
    constraints = [c for i, c in enumerate(constraints) if not done[i]]

    fixed = {a: d[0] for a, d in domains.items() if len(d) == 1}
    rels = [_Rel(c, fixed, domains) for c in constraints]
    free_axes = [a for a in model.axes if a not in fixed]

    # 2. components of the free axes
    parent = {a: a for a in free_axes}

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for rel in rels:
        first = find(rel.free[0])
        for a in rel.free[1:]:
            parent[find(a)] = first
    groups: dict[str, list[str]] = {}
    for a in free_axes:
        groups.setdefault(find(a), []).append(a)

    members: dict[str, list[_Rel]] = {}
    for rel in rels:
        members.setdefault(find(rel.free[0]), []).append(rel)
    components = []
    for root, axes in groups.items():
        comp = _join(axes, members.get(root, []), domains)
        if not comp.rows:
            return SolutionSet(model, fixed, (), empty=True)
        components.append(comp)
    return SolutionSet(model, fixed, tuple(components))


def _join(axes: Sequence[str], rels: list[_Rel], domains: dict) -> Component:
    if not rels:
        (axis,) = axes
        return Component((axis,), tuple((v,) for v in domains[axis]))
    bound: list[str] = []
    pos: dict[str, int] = {}
    rows: list[tuple] = [()]
    pending = list(rels)
    # Largest generator first is wrong for joins; start from the most selective
    # (smallest) allowed table, then prefer relations that share bound axes.
    while pending:
        ready = [r for r in pending if all(a in pos for a in r.free)]
        if ready:
            for r in ready:
                rows = _filter(rows, r, pos)
                pending.remove(r)
            continue
        tables = [r for r in pending if r.is_table]
        if tables:
            best = min(tables, key=lambda r: (-sum(a in pos for a in r.free), len(r.rows)))
            rows = _join_table(rows, best, pos, bound)
            pending.remove(best)
            continue
        # No table left: expand the unbound axes of the narrowest filter from their domains.
        best = min(pending, key=lambda r: sum(a not in pos for a in r.free))
        for a in best.free:
            if a not in pos:
                pos[a] = len(bound)
                bound.append(a)
                rows = [row + (v,) for row in rows for v in domains[a]]
    for a in axes:  # axes only reached through tables already joined are bound; others expand
        if a not in pos:
            pos[a] = len(bound)
            bound.append(a)
            rows = [row + (v,) for row in rows for v in domains[a]]
    return Component(tuple(bound), tuple(rows))


def _join_table(rows: list[tuple], rel: _Rel, pos: dict, bound: list) -> list[tuple]:
    shared = tuple(i for i, a in enumerate(rel.free) if a in pos)
    new = tuple(i for i, a in enumerate(rel.free) if a not in pos)
    index = _index(rel.rows, shared, new)
    for i in new:
        pos[rel.free[i]] = len(bound)
        bound.append(rel.free[i])
    if not shared:
        ext = index.get((), ())
        return [row + e for row in rows for e in ext]
    key_of = itemgetter(*(pos[rel.free[i]] for i in shared))
    if len(shared) == 1:
        index = {k[0]: v for k, v in index.items()}
    out: list[tuple] = []
    get = index.get
    for row, key in zip(rows, map(key_of, rows)):
        ext = get(key)
        if ext is not None:
            out += [row + e for e in ext]
    return out


@lru_cache(maxsize=4096)
def _index(rows: frozenset, shared: tuple, new: tuple) -> dict:
    """Rows grouped by their shared-axis values (cached: tables recur across combinations)."""
    index: dict[tuple, list[tuple]] = {}
    for r in rows:
        index.setdefault(tuple(r[i] for i in shared), []).append(tuple(r[i] for i in new))
    return {k: tuple(v) for k, v in index.items()}


def _filter(rows: list[tuple], rel: _Rel, pos: dict) -> list[tuple]:
    """Rows whose values on ``rel.free`` satisfy it; the per-row work runs in C (map/compress)."""
    positions = [pos[a] for a in rel.free]
    if len(positions) == 1:
        key_of = itemgetter(positions[0])
        wrap = _one
    else:
        key_of = itemgetter(*positions)
        wrap = _same
    keys = list(map(key_of, rows))
    if rel.is_table:
        verdicts = {k: wrap(k) in rel.rows for k in set(keys)}
    else:
        verdicts = {k: rel.holds_free(wrap(k)) for k in set(keys)}
    return list(compress(rows, map(verdicts.__getitem__, keys)))


def _one(value) -> tuple:
    return (value,)


def _same(key: tuple) -> tuple:
    return key
