"""Counting a component too large to list: a join that sums out axes as soon as nothing reads them.

The direct join keeps every partial row, which is right for listing and for the
rule sets CK ships (tables bound the core), but a user's rule-set file with no
base and few pins leaves the arch rules alone over a space of 10^11 configs
per combination. Counting does not need the rows: each partial row carries a
multiplicity, an axis that no pending relation reads is summed out (rows that
then agree merge), and an axis nothing reads at all only multiplies. The peak
is the widest set of axes some relation still couples, not the space.

Both joins raise :class:`SpaceTooLarge` instead of growing past their bound,
so memory stays bounded whatever the rule set leaves free.
"""

from __future__ import annotations

from typing import Sequence

from ...errors import CksolveError
from .relations import Relation, filter_rows, index_rows, key_getter

__all__ = ["SpaceTooLarge", "count_join", "check_size", "ROW_LIMIT", "COUNT_LIMIT", "LIST_LIMIT"]

#: Partial rows the listing join may hold before a component is counted instead. CK's rule
#: sets stay under 100,000 (measured: every set, every combination); a bound near that keeps
#: the work spent before falling back small.
ROW_LIMIT = 200_000
#: Weighted partial rows ``count_join`` may hold (about 200 MB).
COUNT_LIMIT = 1_000_000
#: Partial rows when a component only counted so far is listed after all (``enumerate``).
LIST_LIMIT = 8_000_000


class SpaceTooLarge(CksolveError):
    """A join would hold more partial rows than its bound."""


def count_join(axes: Sequence[str], rels: list[Relation], domains: dict, limit: int = COUNT_LIMIT) -> int:
    """Solutions over ``axes`` of ``rels`` (every relation reads only these axes), counted.

    Relations are joined in the direct join's order (most selective table first,
    filters as soon as their axes are bound); after each step the bound axes no
    pending relation reads are summed out.
    """
    bound: list[str] = []
    rows: dict[tuple, int] = {(): 1}
    pending = list(rels)
    factor = 1
    for a in axes:
        if not any(a in r.free for r in rels):
            factor *= len(domains[a])
    while pending:
        pos = {a: i for i, a in enumerate(bound)}
        ready = [r for r in pending if all(a in pos for a in r.free)]
        if ready:
            keys = list(rows)
            for r in ready:
                keys = filter_rows(keys, r, pos)
                pending.remove(r)
            rows = {k: rows[k] for k in keys}
        else:
            tables = [r for r in pending if r.is_table]
            if tables:
                best = min(tables, key=lambda r: (-sum(a in pos for a in r.free), len(r.rows)))
                rows = _extend_table(rows, best, pos, bound, limit)
                pending.remove(best)
            else:
                best = min(pending, key=lambda r: _width(r, pos, domains))
                for a in best.free:
                    if a not in pos:
                        check_size(len(rows) * len(domains[a]), limit, bound + [a])
                        rows = {k + (v,): n for k, n in rows.items() for v in domains[a]}
                        pos[a] = len(bound)
                        bound.append(a)
        rows, bound = _sum_out(rows, bound, pending)
    return factor * sum(rows.values())


def _width(rel: Relation, pos: dict, domains: dict) -> int:
    n = 1
    for a in rel.free:
        if a not in pos:
            n *= len(domains[a])
    return n


def check_size(n: int, limit: int, axes: list[str]) -> None:
    """Refuse a join step that would hold ``n`` partial rows (before it allocates them)."""
    if n > limit:
        raise SpaceTooLarge(f"more than {limit:,} partial configs over {', '.join(axes)}")


def _extend_table(rows: dict, rel: Relation, pos: dict, bound: list, limit: int) -> dict:
    shared = tuple(i for i, a in enumerate(rel.free) if a in pos)
    new = tuple(i for i, a in enumerate(rel.free) if a not in pos)
    index = index_rows(rel.rows, shared, new)
    widest = max(map(len, index.values()), default=0)
    check_size(len(rows) * widest, limit, bound + [rel.free[i] for i in new])
    key_of = key_getter(tuple(pos[rel.free[i]] for i in shared))
    for i in new:
        pos[rel.free[i]] = len(bound)
        bound.append(rel.free[i])
    out: dict[tuple, int] = {}
    for k, n in rows.items():
        for e in index.get(key_of(k), ()):
            out[k + e] = n
    return out


def _sum_out(rows: dict, bound: list[str], pending: list[Relation]) -> tuple[dict, list[str]]:
    needed = {a for r in pending for a in r.free}
    keep = tuple(i for i, a in enumerate(bound) if a in needed)
    if len(keep) == len(bound):
        return rows, bound
    key_of = key_getter(keep)
    out: dict[tuple, int] = {}
    for k, n in rows.items():
        kk = key_of(k)
        out[kk] = out.get(kk, 0) + n
    return out, [bound[i] for i in keep]

