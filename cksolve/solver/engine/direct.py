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

This module runs those steps; :mod:`.relations` holds the reduced constraints
and the row operations (canonical, with verdict memos), :mod:`.solve_plan` decides
steps 2-3 once per relation shape, and :mod:`.solutions` is what a solve
returns. Models that differ only in the fixed value of an axis no constraint
reads share one solve. A model that is an already solved model plus a table
listing complete configs (``full-tests`` and ``tiny`` over ``full``) skips
steps 1-4: its solutions are the listed rows that the solved factorisation
contains. The order of rows inside a solution set is unspecified; every
public output sorts by name.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import partial
from itertools import compress, islice
from operator import itemgetter
from typing import Sequence

from ...space.constraints import Constraint, Table
from ...space.memos import MEMOS
from .conditioning import _PIECES, solve_piece
from .counting import LIST_LIMIT, ROW_LIMIT, SpaceTooLarge, check_size
from ..model import Model
from .solve_plan import make_plan
from .relations import (Relation, derived, domain_ids, filter_rows, filtered_rows, index_rows, key_getter, projection,
                        relation)
from .solutions import SAME_COMPONENTS, Component, Leaf, SolutionSet, interned

__all__ = ["Component", "Leaf", "SolutionSet", "solve", "transient"]


_SOLVED = MEMOS.memo("direct.solved")
_USED = MEMOS.memo("direct.used_axes")
_SAME = MEMOS.memo("direct.same_solutions")  # (kind, empty, fixed values, components' ids) -> (components, memo)


def solve(model: Model) -> SolutionSet:
    """Solve ``model``; models that differ only in the fixed value of an axis no constraint reads share the
    work (``default`` never reads ndim: its three ndims are one solve, each set with its own fixed values).
    """
    key, own = _key(model)
    hit = _SOLVED.get(key)
    if hit is None:
        hit = _solve_listed(model)  # (a solution set is falsy when empty: compare with None)
        if hit is None:
            hit = _solve(model)
        _SOLVED[key] = hit
    memo = hit.memo.get(own_key := tuple(own.items()))
    fixed = {**hit.fixed, **own}
    if memo is None:  # models (archs whose rules agree here) solved to the same fixed values and components share it
        key = (model.kind, hit.empty, tuple(fixed.items()), tuple(map(id, hit.components)))
        memo = hit.memo[own_key] = _SAME.setdefault(key, (hit.components, {}))[1]  # components held: ids stay theirs
    return SolutionSet(model, fixed, hit.components, hit.empty, memo)


@contextmanager
def transient():
    """Solves inside the block leave no solution, component or piece in the process memos when it ends.

    A search solves thousands of models that differ in pinned values: each solution set holds up to
    ``ROW_LIMIT`` joined rows, and memoised they stayed for the process (``search --top 1000`` grew to
    7.5 GB). What was memoised before the block stays; what the block added is dropped at its end (plans,
    relations and tables, which recur, stay).
    """
    memos = (_SOLVED, _SAME, _COMPONENTS, SAME_COMPONENTS, _PIECES)
    sizes = [len(m) for m in memos]
    try:
        yield
    finally:
        for memo, n in zip(memos, sizes):
            for k in list(islice(reversed(memo), len(memo) - n)):  # dicts keep insertion order: the newest
                del memo[k]


def _key(model: Model) -> tuple[tuple, dict]:
    """What a solve depends on, and the fixed values of the axes no constraint reads."""
    constraints = model.constraints
    split = _USED.get((model.axes, constraints))
    if split is None:
        read = set().union(*(c.scope for c in constraints))
        split = _USED[model.axes, constraints] = (tuple(a for a in model.axes if a in read),
                                                  tuple(a for a in model.axes if a not in read))
    used, unused = split
    domains = model.domains
    own = {a: domains[a][0] for a in unused if len(domains[a]) == 1}
    # an unread axis with several values is still expanded by the solve: its domain is part of the key
    key = (model.axes, constraints, tuple(map(domains.__getitem__, used)),
           tuple(domains[a] for a in unused if a not in own))
    return key, own


def _solve_listed(model: Model) -> SolutionSet | None:
    """A model whose allowed table lists complete configs, over a model this process already solved.

    ``full-tests`` and ``tiny`` are ``full``'s constraints plus a table of the
    configs they select; a rule-set file may be a list of kernels over a rule
    set. The solutions of M + T are T's rows that are solutions of M, and when
    M is already solved (``full``, solved to make the selection) that is a
    membership test of each row in M's factorised solutions, instead of
    filtering the rows through every constraint again. Returns None (solve
    as usual) when there is no such table or M was not solved yet: solving M
    only for this could cost far more than the rows (a short list over the
    bare arch space), or when M's solve only counted a component too large to
    join (a rule-set file that leaves axes free): it has no rows to test.
    """
    axes = set(model.axes)
    constraints = model.constraints
    for i, c in enumerate(constraints):
        if isinstance(c, Table) and not c.forbid and set(c.scope) == axes:
            break
    else:
        return None
    base = Model(model.combo, model.kind, model.axes, model.domains, constraints[:i] + constraints[i + 1:])
    base_key, base_own = _key(base)
    solved = _SOLVED.get(base_key)
    if solved is None or any(comp.counted is not None for comp in solved.components):
        return None  # not solved, or only counted (no rows to test membership in): solve as usual
    fixed = {**solved.fixed, **base_own}
    if solved.empty:
        return SolutionSet(model, fixed, (), empty=True)
    rows = solved.rows_among(c.scope, c.rows, fixed)
    if not rows:
        return SolutionSet(model, fixed, (), empty=True)
    free = tuple(a for a in model.axes if a not in fixed)
    if not free:
        return SolutionSet(model, fixed, ())
    return SolutionSet(model, fixed, (Component(free, tuple(map(key_getter(tuple(map(c.scope.index, free))),
                                                                     rows))),))


@MEMOS.cached("direct.kept_values")
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
    ids = domain_ids(domains)
    rels = [relation(c, domains, ids) for c in constraints]
    free_axes = tuple(a for a in model.axes if a not in fixed)

    # 2-3. push-down, components and leaves depend only on which axes each relation
    #      reads, so they are planned once per shape and the plan is reused.
    shape = (free_axes, tuple((r.constraint.name, r.free, r.is_table) for r in rels))
    plan = _PLANS.get(shape)
    if plan is None:
        plan = _PLANS[shape] = make_plan(rels, free_axes)
    pushed = _push_down(rels, plan.pushed)
    components = []
    for axes, members, leaves in plan.components:
        # relations are canonical values: archs whose rules differ only where the push-down
        # absorbed them (an LDS limit no tile reaches, say) meet the same component again
        mine = tuple(pushed[i] for i in members)
        key = (axes, mine, leaves, tuple(map(ids.__getitem__, axes)))
        comp = _COMPONENTS.get(key)
        if comp is None:
            comp = _COMPONENTS[key] = interned(_factorise_or_count(axes, list(mine), leaves, domains))
        if comp.counted == 0 or (comp.counted is None and not comp.rows):
            return SolutionSet(model, fixed, (), empty=True)
        components.append(comp)
    return SolutionSet(model, fixed, tuple(components))


_PLANS = MEMOS.memo("direct.plans")
_COMPONENTS = MEMOS.memo("direct.components")


def _push_down(rels: list[Relation], pushed: tuple) -> list[Relation]:
    out = []
    for i, hosted in pushed:
        rel = rels[i]
        if hosted:
            filters = tuple(rels[j] for j in hosted)
            rel = derived(rel, rel.free, filtered_rows(rel.rows, rel.free, filters))
        out.append(rel)
    return out


def _factorise_or_count(axes: Sequence[str], rels: list[Relation], leaves: tuple, domains: dict) -> Component:
    """The component's rows, or, when joining them would pass ``ROW_LIMIT``, its exact solution tree
    (``conditioning``: counted and sampled without listing).

    A counted component joins its rows only if they are listed after all
    (``enumerate`` under its limit).
    """
    try:
        return _factorise(axes, rels, leaves, domains)
    except SpaceTooLarge:
        tree = solve_piece(tuple(axes), rels, domains, _join_piece)
        return Component(tuple(axes), (), (), counted=tree.count(),
                         join=partial(_factorise, axes, rels, leaves, domains, LIST_LIMIT), tree=tree)


def _join_piece(axes: Sequence[str], rels: list[Relation], domains: dict, limit: float) -> Component:
    """One connected piece of a conditioned component, joined as a component is (push-down, leaves)."""
    plan = make_plan(rels, tuple(axes))
    pushed = _push_down(rels, plan.pushed)
    if len(plan.components) != 1:
        return _join(axes, pushed, domains, limit)
    ((comp_axes, members, leaves),) = plan.components
    return _factorise(comp_axes, [pushed[i] for i in members], leaves, domains, limit)


def _factorise(axes: Sequence[str], rels: list[Relation], leaves: tuple, domains: dict,
               limit: float | None = None) -> Component:
    """Join the coupled core; the planned leaves keep their options per core key."""
    if not leaves:
        return _join(axes, rels, domains, limit)
    in_leaf = {t for t, _own, _reads, _iface in leaves}.union(*(reads for _t, _own, reads, _iface in leaves))
    private = {a for _t, own, _reads, _iface in leaves for a in own}
    core_rels = [r for k, r in enumerate(rels) if k not in in_leaf]
    for t, own, _reads, _iface in leaves:
        table = rels[t]
        shared = tuple(a for a in table.free if a not in own)
        if shared:
            core_rels.append(derived(table, shared, projection(table.rows, tuple(map(table.free.index, shared)))))
    core = _join([a for a in axes if a not in private], core_rels, domains, limit)
    rows, out_axes, out_leaves = core.rows, list(core.axes), []
    for t, own, reads, iface in leaves:
        key = tuple(out_axes.index(a) for a in iface)
        options = _leaf_options(rels[t], own, [rels[k] for k in reads], iface, keys := list(map(key_getter(key), rows)))
        rows = list(compress(rows, map(options.__getitem__, keys)))  # () drops a row
        out_leaves.append(Leaf(own, key, options))
        out_axes.extend(own)
    # options are memos: they may hold keys of other combinations; only the rows' own keys are looked up
    return Component(tuple(out_axes), tuple(rows), tuple(out_leaves))


_LEAF_MEMO = MEMOS.memo("direct.leaf_options")
_LEAF_ROWS = MEMOS.memo("direct.leaf_rows")  # one tuple per distinct option row / list (held by the solutions)


def _leaf_options(table: Relation, own: tuple, filters: list[Relation], iface: tuple, keys: list) -> dict:
    """Core key -> the leaf's value rows its table and filters allow (``()`` if none).

    The answer for a key depends only on the table and the filters, which recur across combinations (every
    arch with the same rules), so it is memoised per (table, filters) and only keys never seen before are
    computed. The memo itself is returned: it may hold more keys than asked for.
    """
    memo = _LEAF_MEMO.setdefault((table.rows, table.free, own, iface, tuple(f.token for f in filters)), {})
    if all(map(memo.__contains__, keys)):  # mostly: the keys' set is made only when one is new
        return memo
    missing = set(keys).difference(memo)
    shared_at = tuple(iface.index(a) for a in table.free if a not in own)
    index = index_rows(table.rows, tuple(i for i, a in enumerate(table.free) if a not in own),
                   tuple(table.free.index(a) for a in own))
    sub = key_getter(shared_at)
    rows = [k + o for k in missing for o in index.get(sub(k), ())]
    if filters:
        pos = {a: i for i, a in enumerate(iface + own)}
        for f in filters:
            rows = filter_rows(rows, f, pos)
    n = len(iface)
    options: dict = {k: [] for k in missing}
    for r in rows:
        options[r[:n]].append(_LEAF_ROWS.setdefault(o := r[n:], o))
    memo.update((k, _LEAF_ROWS.setdefault(o := tuple(v), o)) for k, v in options.items())
    return memo


def _join(axes: Sequence[str], rels: list[Relation], domains: dict, limit: float | None = None) -> Component:
    """The rows of ``rels`` over ``axes``; ``SpaceTooLarge`` past ``limit`` partial rows (default ``ROW_LIMIT``)."""
    limit = ROW_LIMIT if limit is None else limit
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
                rows = filter_rows(rows, r, pos)
                pending.remove(r)
            continue
        tables = [r for r in pending if r.is_table]
        if tables:
            best = min(tables, key=lambda r: (-sum(a in pos for a in r.free), len(r.rows)))
            rows = _join_table(rows, best, pos, bound, limit)
            pending.remove(best)
            continue
        # No table left: expand the unbound axes of the narrowest filter from their domains; the filters the
        # last of them makes ready are applied as it expands (the same rows, none made only to be dropped)
        best = min(pending, key=lambda r: sum(a not in pos for a in r.free))
        unbound = [a for a in best.free if a not in pos]
        unbound = list(dict.fromkeys(unbound))  # an axis twice in a scope is bound once
        for a in unbound[:-1]:
            rows = _expand(rows, a, domains[a], pos, bound, limit)
        last = unbound[-1]
        now = [r for r in pending if all(x in pos or x == last for x in r.free)]
        rows = _expand_filtered(rows, last, domains[last], pos, bound, limit, now)
        for r in now:
            pending.remove(r)
    for a in axes:  # axes only reached through tables already joined are bound; others expand
        if a not in pos:
            rows = _expand(rows, a, domains[a], pos, bound, limit)
    return Component(tuple(bound), tuple(rows))


def _expand(rows: list[tuple], axis: str, values: tuple, pos: dict, bound: list, limit: float) -> list[tuple]:
    """Bind ``axis`` by its whole domain: every row once per value (``SpaceTooLarge`` past ``limit``)."""
    check_size(len(rows) * len(values), limit, bound + [axis])
    pos[axis] = len(bound)
    bound.append(axis)
    return [row + (v,) for row in rows for v in values]


def _expand_filtered(rows: list[tuple], axis: str, values: tuple, pos: dict, bound: list, limit: float,
                     filters: list[Relation]) -> list[tuple]:
    """``_expand`` then ``filter_rows`` of each of ``filters`` (every other axis of theirs bound), in one pass:
    the values a row may take are found once per key of the other axes the filters read. The same rows in
    the same order, and the same ``SpaceTooLarge`` (the size is checked before filtering, as ``_expand`` does)."""
    check_size(len(rows) * len(values), limit, bound + [axis])
    pos[axis] = len(bound)
    bound.append(axis)
    if not filters:
        return [row + (v,) for row in rows for v in values]
    at = pos[axis]
    others = tuple(sorted({pos[a] for f in filters for a in f.free if a != axis}))
    key_of = key_getter(others)
    slots = {p: i for i, p in enumerate(others)}
    plans = [(f, f.verdicts, tuple((True, at) if a == axis else (False, slots[pos[a]]) for a in f.free))
             for f in filters]
    allowed: dict = {}
    out: list[tuple] = []
    for row, key in zip(rows, map(key_of, rows)):
        ok = allowed.get(key)
        if ok is None:
            ok = allowed[key] = tuple((v,) for v in values if _passes(plans, key, v))
        out += map(row.__add__, ok)
    return out


def _passes(plans: list, key: tuple, v) -> bool:
    """Whether the value ``v`` of the new axis, with the other axes at ``key``, passes every filter (memoised
    per filter on its own key, as ``filter_rows``)."""
    for f, verdicts, spec in plans:
        k = tuple(v if new else key[i] for new, i in spec)
        verdict = verdicts.get(k)
        if verdict is None:
            verdict = verdicts[k] = (k in f.rows) if f.is_table else f.holds_free(k)
        if not verdict:
            return False
    return True


def _join_table(rows: list[tuple], rel: Relation, pos: dict, bound: list, limit: float) -> list[tuple]:
    shared = tuple(i for i, a in enumerate(rel.free) if a in pos)
    new = tuple(i for i, a in enumerate(rel.free) if a not in pos)
    index = index_rows(rel.rows, shared, new)
    check_size(len(rows) * max(map(len, index.values()), default=0), limit, bound + [rel.free[i] for i in new])
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
