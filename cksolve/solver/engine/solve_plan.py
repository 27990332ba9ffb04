"""Solve plans: push-down, components and leaves, made once per relation shape.

Which filter a table absorbs, how the free axes split into components and
which tables are leaves depend only on which axes each relation reads, so a
plan made for one combination serves every combination of the same shape
(there are three shapes among all 146 ``full`` solves). Data only steers
heuristics (table sizes, fan-out), never correctness.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from .relations import Relation, index_rows

__all__ = ["Plan", "make_plan", "connected"]


class Plan(NamedTuple):
    """How to solve relations of one shape (positions refer to the relation lists).

    ``pushed``: per relation after push-down, (its position, positions of the
    relations applied to its rows). ``components``: (axes, positions among the
    pushed relations, leaves as (table, own axes, filters, core axes) with
    positions among the component's relations).
    """

    pushed: tuple
    components: tuple


def make_plan(rels: list[Relation], free_axes: tuple) -> Plan:
    pushed = _plan_push_down(rels)
    after = [rels[i] for i, _ in pushed]

    components = []
    for axes, mine in connected(free_axes, after):
        local = [after[k] for k in mine]
        where = {id(r): j for j, r in enumerate(local)}
        leaves = tuple((where[id(t)], own, tuple(where[id(f)] for f in reads), iface)
                       for t, own, reads, iface in _choose_leaves([r for r in local if r.is_table],
                                                                  [r for r in local if not r.is_table]))
        components.append((tuple(axes), tuple(mine), leaves))
    return Plan(tuple(pushed), tuple(components))


def connected(axes: Sequence[str], rels: Sequence[Relation]) -> list[tuple[tuple, list[int]]]:
    """The connected parts of ``axes`` under ``rels`` (two axes are joined when a relation reads both; a
    relation is anything whose ``free`` names the axes it reads, at least one):
    (axes in the given order, positions of the relations reading them), in order of each part's first axis.
    An axis no relation reads is a part of its own; every relation's axes must be among ``axes``."""
    parent = {a: a for a in axes}

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for rel in rels:
        first = find(rel.free[0])
        for a in rel.free[1:]:
            parent[find(a)] = first
    parts: dict[str, tuple[list, list]] = {}
    for a in axes:
        parts.setdefault(find(a), ([], []))[0].append(a)
    for k, rel in enumerate(rels):
        parts[find(rel.free[0])][1].append(k)
    return [(tuple(a), k) for a, k in parts.values()]


def _plan_push_down(rels: list[Relation]) -> list[tuple[int, tuple[int, ...]]]:
    """Assign every filter whose axes one table covers to that table (its rows absorb it).

    Such a filter then costs nothing per solve: the reduced table is cached, and
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


def _host(rels: list[Relation], i: int, tables: Sequence[int]) -> int | None:
    axes = set(rels[i].free)
    for t in tables:
        if t != i and axes.issubset(rels[t].free):
            return t
    return None


def _choose_leaves(tables: list[Relation], filters: list[Relation]) -> list[tuple]:
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
        fan_out = len(t.rows) / len(index_rows(t.rows, shared, ()))
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
