"""The direct backend: propagate, push down, factorise, join.

1. Selection axes are fixed; unary constraints prune domains until nothing
   changes; a constraint whose scope is fully fixed is decided once.
2. A filter (forbidden table, check) whose axes one allowed table covers is
   applied to that table's rows, and so is a table another table covers; the
   reduced tables are cached, so an arch rule that meets the same rule-set
   table in many combinations is evaluated once.
3. The remaining constraints link the free axes into independent components
   (connected by shared scope). Inside a component, a table whose other axes
   no other table reads (specialization, vectors, the feature flags given tile
   and pipeline) is a *leaf*: once the coupled core is fixed it is independent
   of the rest, so only the core is joined and each leaf keeps its options per
   core key. The core is a hash join of its tables, with every filter applied
   as soon as its axes are bound; an axis no table covers is expanded from
   its domain.
4. The solution set is the Cartesian product of the components: counting
   multiplies their sizes (a component's size sums, over core rows, the
   product of its leaves' option counts) and never materialises a config.

Relations are canonical per (constraint, domains of its axes) and keep a memo
of their verdicts across solves; per-row work runs in C (map/compress/
itemgetter); models that differ only on axes no constraint reads share one
solve. The order of rows inside a solution set is unspecified; every public
output sorts by name.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import compress, product
from math import prod
from operator import itemgetter
from typing import NamedTuple, Sequence

from ..space.constraints import Constraint, Table
from ..space.config import config_fields
from .model import Model, config_class

__all__ = ["Component", "Leaf", "SolutionSet", "solve"]


@dataclass(frozen=True)
class Leaf:
    """Axes that depend on the core only through ``key`` (positions in a core row).

    ``options`` maps the key of every core row to the non-empty tuple of value
    rows (over ``axes``) allowed with it. It is a memo shared across solves, so
    it may also hold other keys (with ``()`` where nothing is allowed).
    """

    axes: tuple[str, ...]
    key: tuple[int, ...]
    options: dict


@dataclass(frozen=True)
class Component:
    """Connected free axes: core rows, each extended by every option of every leaf.

    Once the coupled core (tile, waves, warp tile, pipeline, ...) is fixed, a
    table whose other axes nothing else reads -- specialization, vectors, the
    feature flags -- is independent of the rest; its options are a leaf keyed
    by the core values it depends on. Counting sums the products of option
    counts over core rows and never forms a config.
    """

    axes: tuple[str, ...]
    rows: tuple[tuple, ...]
    leaves: tuple[Leaf, ...] = ()

    def count(self) -> int:
        if not self.leaves:
            return len(self.rows)
        counts = [list(map(len, map(leaf.options.__getitem__, map(_getter(leaf.key), self.rows))))
                  for leaf in self.leaves]
        if len(counts) == 1:
            return sum(counts[0])
        return sum(map(prod, zip(*counts)))

    def expand(self) -> list[tuple]:
        """Every full row (over ``axes``)."""
        rows = self.rows
        for leaf in self.leaves:
            options = leaf.options
            rows = [r + o for r, k in zip(rows, map(_getter(leaf.key), rows)) for o in options[k]]
        return rows if isinstance(rows, list) else list(rows)


def _getter(positions: tuple[int, ...]):
    """Key of a row at ``positions``, always a tuple (itemgetter of one position is not)."""
    if len(positions) == 1:
        (i,) = positions
        return itemgetter(slice(i, i + 1))
    if not positions:
        return itemgetter(slice(0, 0))
    return itemgetter(*positions)


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
        return prod(c.count() for c in self.components)

    def __len__(self) -> int:
        return self.count()

    def configs(self) -> list:
        """Every solution as a config (built as tuples: 30+ fields, 40k configs).

        The cyclic garbage collector is paused meanwhile: the configs are
        acyclic tuples, and the collections their allocation triggers walk every
        long-lived cached table (measured: 0.25 s -> 0.15 s for all of full).
        """
        if self.empty:
            return []
        if not gc.isenabled():
            return self._configs()
        gc.disable()
        try:
            return self._configs()
        finally:
            gc.enable()

    def _configs(self) -> list:
        cls = config_class(self.model.kind)
        fixed_axes = tuple(self.fixed)
        offsets, flat_axes = {}, list(fixed_axes)
        for comp in self.components:
            flat_axes.extend(comp.axes)
        for i, a in enumerate(flat_axes):
            offsets[a] = i
        pick = itemgetter(*(offsets[f] for f in config_fields(cls)))
        make = partial(tuple.__new__, cls)
        base = tuple(self.fixed[a] for a in fixed_axes)
        rows = [c.expand() for c in self.components]
        if len(rows) == 1:
            full = [base + r for r in rows[0]] if base else rows[0]
        else:
            full = [base + sum(parts, ()) for parts in product(*rows)]
        return list(map(make, map(pick, full)))


class _Rel:
    """A constraint reduced by the fixed axes: free scope + how to test or generate."""

    __slots__ = ("constraint", "free", "is_table", "rows", "spec", "identity", "verdicts", "_token")

    @classmethod
    def table_of(cls, base: "_Rel", free: tuple, rows: frozenset) -> "_Rel":
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

    def __init__(self, constraint: Constraint, fixed: dict, domains: dict | None = None):
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
_RELS: dict = {}
_TOKENS: dict = {}
_DOMAIN_IDS: dict = {}


def _domain_ids(domains: dict) -> dict:
    """A small int per distinct domain: relation keys then hash ints, not nested tuples."""
    return {a: _DOMAIN_IDS.setdefault(d, len(_DOMAIN_IDS)) for a, d in domains.items()}


def _rel(constraint: Constraint, domains: dict, ids: dict) -> _Rel:
    """The one ``_Rel`` of a constraint under these domains of its axes.

    The same arch or rule-set constraint meets the same fixed values in many
    combinations; sharing the reduced relation shares its verdict memo too.
    """
    key = (constraint, tuple(map(ids.__getitem__, constraint.scope)))
    rel = _RELS.get(key)
    if rel is None:
        fixed = {a: domains[a][0] for a in constraint.scope if len(domains[a]) == 1}
        rel = _RELS[key] = _Rel(constraint, fixed, domains)
    return rel


@lru_cache(maxsize=4096)
def _reduced_rows(table: Table, fixed_key: tuple, live_key: tuple) -> frozenset:
    """A table's rows that agree with the fixed axes, projected onto the free ones.

    Cached: the same rule-set table meets the same fixed values in many
    combinations (every arch, for instance).
    """
    rows = table.rows
    fixed_idx = tuple(i for i, v in enumerate(fixed_key) if v is not _FREE)
    if fixed_idx:
        want = tuple(fixed_key[i] for i in fixed_idx)
        rows = list(compress(rows, map(want.__eq__, map(_getter(fixed_idx), rows))))
    free_idx = tuple(i for i, v in enumerate(fixed_key) if v is _FREE)
    for i in free_idx:
        if live_key[i] is not None:
            rows = list(compress(rows, map(frozenset(live_key[i]).__contains__, map(itemgetter(i), rows))))
    return frozenset(map(_getter(free_idx), rows))


_SOLVED: dict = {}
_USED: dict = {}


def solve(model: Model) -> SolutionSet:
    """Solve ``model``; models that differ only on axes no constraint reads share the work.

    (``default`` never reads ndim, so its three ndims are one solve; the
    rebuilt set carries each model's own fixed values.)
    """
    constraints = model.constraints
    split = _USED.get(constraints)
    if split is None:
        read = set().union(*(c.scope for c in constraints))
        split = _USED[constraints] = (tuple(a for a in model.axes if a in read),
                                      tuple(a for a in model.axes if a not in read))
    used, unused = split
    domains = model.domains
    key = (model.kind, constraints, tuple(map(domains.__getitem__, used)))
    hit = _SOLVED.get(key)
    if hit is None:
        hit = _SOLVED[key] = _solve(model)
    own = {a: domains[a][0] for a in unused if len(domains[a]) == 1}
    return SolutionSet(model, {**hit.fixed, **own}, hit.components, hit.empty)


@lru_cache(maxsize=None)
def _kept_values(constraint: Constraint, scope_domains: tuple, axis: str) -> tuple:
    """Values of ``axis`` (the one free axis) that ``constraint`` allows, the others fixed.

    Cached: the same constraint meets the same fixed values in many combinations.
    """
    values = [d[0] for d in scope_domains]
    at = [i for i, a in enumerate(constraint.scope) if a == axis]
    kept = []
    for v in scope_domains[at[0]]:
        for i in at:
            values[i] = v
        if constraint.holds(tuple(values)):
            kept.append(v)
    return tuple(kept)


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
        kept = _kept_values(c, tuple(map(domains.__getitem__, scope)), axis)
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
    ids = _domain_ids(domains)
    rels = [_rel(c, domains, ids) for c in constraints]
    free_axes = tuple(a for a in model.axes if a not in fixed)

    # 2-3. push-down, components and leaves depend only on which axes each relation
    #      reads, so they are planned once per shape and the plan is reused.
    shape = (free_axes, tuple((r.constraint.name, r.free, r.is_table) for r in rels))
    plan = _PLANS.get(shape)
    if plan is None:
        plan = _PLANS[shape] = _make_plan(rels, free_axes)
    pushed = _push_down(rels, plan.pushed)
    components = []
    for axes, members, leaves in plan.components:
        # relations are canonical values: archs whose rules differ only where the push-down
        # absorbed them (an LDS limit no tile reaches, say) meet the same component again
        mine = tuple(pushed[i] for i in members)
        key = (axes, mine, leaves, tuple(map(ids.__getitem__, axes)))
        comp = _COMPONENTS.get(key)
        if comp is None:
            comp = _COMPONENTS[key] = _factorise(axes, list(mine), leaves, domains)
        if not comp.rows:
            return SolutionSet(model, fixed, (), empty=True)
        components.append(comp)
    return SolutionSet(model, fixed, tuple(components))


class _Plan(NamedTuple):
    """How to solve relations of one shape (positions refer to the relation lists).

    ``pushed``: per relation after push-down, (its position, positions of the
    relations applied to its rows). ``components``: (axes, positions among the
    pushed relations, leaves as (table, own axes, filters, core axes) with
    positions among the component's relations).
    """

    pushed: tuple
    components: tuple


_PLANS: dict = {}
_COMPONENTS: dict = {}


def _make_plan(rels: list[_Rel], free_axes: tuple) -> _Plan:
    pushed = _plan_push_down(rels)
    after = [rels[i] for i, _ in pushed]

    parent = {a: a for a in free_axes}

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for rel in after:
        first = find(rel.free[0])
        for a in rel.free[1:]:
            parent[find(a)] = first
    groups: dict[str, list[str]] = {}
    for a in free_axes:
        groups.setdefault(find(a), []).append(a)
    members: dict[str, list[int]] = {}
    for k, rel in enumerate(after):
        members.setdefault(find(rel.free[0]), []).append(k)
    components = []
    for root, axes in groups.items():
        mine = members.get(root, [])
        local = [after[k] for k in mine]
        where = {id(r): j for j, r in enumerate(local)}
        leaves = tuple((where[id(t)], own, tuple(where[id(f)] for f in reads), iface)
                       for t, own, reads, iface in _choose_leaves([r for r in local if r.is_table],
                                                                  [r for r in local if not r.is_table]))
        components.append((tuple(axes), tuple(mine), leaves))
    return _Plan(tuple(pushed), tuple(components))


def _plan_push_down(rels: list[_Rel]) -> list[tuple[int, tuple[int, ...]]]:
    """Apply every filter whose axes one table covers to that table's rows.

    A filter then costs nothing per solve: the reduced table is cached, and
    the same rule-set table meets the same arch constraint in many
    combinations. A table whose axes another table covers is such a filter
    too (a semi-join).
    """
    tables = sorted((i for i, r in enumerate(rels) if r.is_table),
                    key=lambda i: (len(rels[i].free), len(rels[i].rows), rels[i].constraint.name))
    hosts: dict[int, list[int]] = {}
    out: list[tuple[int, tuple[int, ...]]] = []
    for i, rel in enumerate(rels):
        if rel.is_table:
            continue
        host = _host(rels, i, tables)
        if host is None:
            out.append((i, ()))
        else:
            hosts.setdefault(host, []).append(i)
    # smaller tables first: one covered by a larger table becomes its filter
    for n, i in enumerate(tables):
        host = _host(rels, i, tables[n + 1:])
        if host is None:
            out.append((i, tuple(hosts.get(i, ()))))
        else:
            hosts.setdefault(host, []).extend([i, *hosts.pop(i, ())])
    return out


def _host(rels: list[_Rel], i: int, tables: Sequence[int]) -> int | None:
    axes = set(rels[i].free)
    for t in tables:
        if t != i and axes.issubset(rels[t].free):
            return t
    return None


def _push_down(rels: list[_Rel], pushed: tuple) -> list[_Rel]:
    out = []
    for i, hosted in pushed:
        rel = rels[i]
        if hosted:
            filters = tuple(rels[j] for j in hosted)
            rel = _derived(rel, rel.free, _filtered_rows(rel.rows, rel.free, tuple(f.token for f in filters), filters))
        out.append(rel)
    return out


_DERIVED: dict = {}


def _derived(base: _Rel, free: tuple, rows: frozenset) -> _Rel:
    """The one table relation of these rows (so its verdict memo lasts across solves)."""
    key = (base.constraint, free, rows)
    rel = _DERIVED.get(key)
    if rel is None:
        rel = _DERIVED[key] = _Rel.table_of(base, free, rows)
    return rel


_PUSHED: dict = {}


def _filtered_rows(rows: frozenset, free: tuple, keys: tuple, filters: tuple) -> frozenset:
    """``rows`` (over ``free``) that pass ``filters``; cached on what the filters test."""
    cache_key = (rows, free, keys)
    hit = _PUSHED.get(cache_key)
    if hit is None:
        pos = {a: i for i, a in enumerate(free)}
        kept = list(rows)
        for f in filters:
            kept = _filter(kept, f, pos)
        hit = _PUSHED[cache_key] = frozenset(kept)
    return hit


def _factorise(axes: Sequence[str], rels: list[_Rel], leaves: tuple, domains: dict) -> Component:
    """Join the coupled core; the planned leaves keep their options per core key."""
    if not leaves:
        return _join(axes, rels, domains)
    in_leaf = {t for t, _own, _reads, _iface in leaves}.union(*(reads for _t, _own, reads, _iface in leaves))
    private = {a for _t, own, _reads, _iface in leaves for a in own}
    core_rels = [r for k, r in enumerate(rels) if k not in in_leaf]
    for t, own, _reads, _iface in leaves:
        table = rels[t]
        shared = tuple(a for a in table.free if a not in own)
        if shared:
            core_rels.append(_derived(table, shared, _projection(table.rows, tuple(map(table.free.index, shared)))))
    core = _join([a for a in axes if a not in private], core_rels, domains)
    rows, out_axes, out_leaves = core.rows, list(core.axes), []
    for t, own, reads, iface in leaves:
        key = tuple(out_axes.index(a) for a in iface)
        options = _leaf_options(rels[t], own, [rels[k] for k in reads], iface, set(map(_getter(key), rows)))
        rows = list(compress(rows, map(options.__getitem__, map(_getter(key), rows))))  # () drops a row
        out_leaves.append(Leaf(own, key, options))
        out_axes.extend(own)
    # options are memos: they may hold keys of other combinations; only the rows' own keys are looked up
    return Component(tuple(out_axes), tuple(rows), tuple(out_leaves))


def _choose_leaves(tables: list[_Rel], filters: list[_Rel]) -> list[tuple]:
    """Tables that fan out over axes no other table and no other leaf's filter reads.

    A leaf is (table, its own axes, the filters reading them, the core axes it
    depends on). Candidates with the largest fan-out (rows per core key) go
    first; a candidate whose axes a chosen leaf reads, or that reads a chosen
    leaf's axes, stays in the core.
    """
    seen: dict[str, int] = {}
    for t in tables:
        for a in t.free:
            seen[a] = seen.get(a, 0) + 1
    candidates = []
    for t in tables:
        own = tuple(a for a in t.free if seen[a] == 1)
        shared = tuple(i for i, a in enumerate(t.free) if seen[a] > 1)
        if not own or not shared or not t.rows:
            continue
        fan_out = len(t.rows) / len(_index(t.rows, shared, ()))
        if fan_out <= 1:
            continue
        own_set = set(own)
        reads = [f for f in filters if own_set.intersection(f.free)]
        scope = set(t.free).union(*(f.free for f in reads))
        iface = tuple(sorted(scope - own_set))
        candidates.append((-fan_out, t.constraint.name, t, own, reads, iface, scope))
    candidates.sort(key=lambda c: c[:2])
    chosen: list[tuple] = []
    for _, _, t, own, reads, iface, scope in candidates:
        if any(scope.intersection(c[1]) or c[4].intersection(own) for c in chosen):
            continue
        chosen.append((t, own, reads, iface, scope))
    return [c[:4] for c in chosen]


_LEAF_MEMO: dict = {}


def _leaf_options(table: _Rel, own: tuple, filters: list[_Rel], iface: tuple, keys: set) -> dict:
    """Core key -> the leaf's value rows its table and filters allow (``()`` if none).

    The answer for a key depends only on the table and the filters, which recur
    across combinations (every arch with the same rules), so it is memoised per
    (table, filters) and only keys never seen before are computed. The memo
    itself is returned: it may hold more keys than asked for.
    """
    memo = _LEAF_MEMO.setdefault((table.rows, table.free, own, iface, tuple(f.token for f in filters)), {})
    missing = keys.difference(memo)
    if not missing:
        return memo
    shared_at = tuple(iface.index(a) for a in table.free if a not in own)
    index = _index(table.rows, tuple(i for i, a in enumerate(table.free) if a not in own),
                   tuple(table.free.index(a) for a in own))
    sub = _getter(shared_at)
    rows = [k + o for k in missing for o in index.get(sub(k), ())]
    if filters:
        pos = {a: i for i, a in enumerate(iface + own)}
        for f in filters:
            rows = _filter(rows, f, pos)
    n = len(iface)
    options: dict = {k: [] for k in missing}
    for r in rows:
        options[r[:n]].append(r[n:])
    memo.update((k, tuple(v)) for k, v in options.items())
    return memo


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
def _projection(rows: frozenset, positions: tuple) -> frozenset:
    """The distinct values of ``rows`` at ``positions`` (a leaf's table as the core sees it)."""
    return frozenset(_index(rows, positions, ()))


@lru_cache(maxsize=4096)
def _index(rows: frozenset, shared: tuple, new: tuple) -> dict:
    """Rows grouped by their shared-axis values (cached: tables recur across combinations)."""
    index: dict[tuple, list[tuple]] = {}
    for k, v in zip(map(_getter(shared), rows), map(_getter(new), rows)):
        index.setdefault(k, []).append(v)
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
    verdicts = rel.verdicts
    missing = set(keys).difference(verdicts)
    if missing:
        if rel.is_table:
            verdicts.update((k, wrap(k) in rel.rows) for k in missing)
        else:
            verdicts.update((k, rel.holds_free(wrap(k))) for k in missing)
    return list(compress(rows, map(verdicts.__getitem__, keys)))


def _one(value) -> tuple:
    return (value,)


def _same(key: tuple) -> tuple:
    return key
