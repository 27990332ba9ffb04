"""Listing a solved combination in kernel-name order, in blocks, never holding the listing.

A solve is a product of components, each joined rows with leaves or an exact
solution tree (``conditioning``). A GEMM kernel name is a *head* -- the fields
CK always writes (pipeline, epilogue, scheduler, tile, waves, warp tile, after
the fixed prefix) -- followed by a *tail*: the optional parts (vectors, flags,
specialization, ...), empty at their defaults (the kind's ``head_axes``: ``spelling.GEMM_HEAD_AXES``).
Walking the solution once gives every distinct head with the set of tails it
takes, as a sum of products of factors (a leaf's options, a free axis's
domain): no config is formed. Each distinct tail set is rendered and sorted
once, and each head is written as ``head + ("\\n" + head).join(tails)``, one C
call per head.

Names sort as the pair (head, tail) when no head is a prefix of another; a run
of heads where one is (never seen in CK's name format, but checked) is listed
by sorting its full names. Groups: the walk is repeated per value of the
leading head axes (pipeline, epilogue, scheduler), pruned to that value, so
that memory holds one group's heads, not the combination's; groups are
ordered by their names and each group boundary is checked to increase.
Depthwise names have no optional part: every axis is a head.

Memory: one group's heads (at most the core rows of the solve times the
values of the head axes free outside it) and the rendered tail sets, a memo
dropped past ``TAIL_MEMO`` strings. Never the listing.
"""

from __future__ import annotations

from itertools import product
from math import prod
from operator import itemgetter
from typing import Iterator

from ..engine.conditioning import Branches, Part
from .name_texts import PARTS_FROM, Spelling, spelling
from ..engine.relations import key_getter
from ..engine.solutions import Component, SolutionSet, gc_paused

__all__ = ["name_blocks", "config_blocks", "TAIL_MEMO", "BLOCK_CHARS", "GROUP_CONFIGS"]

#: Rendered tail strings kept for reuse; past this the memo is dropped (memory bound).
TAIL_MEMO = 500_000
#: Characters of names collected before a block is handed out.
BLOCK_CHARS = 1 << 20
#: Tails of one head written per block.
RUN_CHUNK = 8192
#: Configs a group of heads is walked for at most (about: by the group's share of the count), see ``_groups``.
GROUP_CONFIGS = 10_000_000


class _Walk:
    """Distinct heads of a solution set, each with its tails as a sum of products of factors.

    A head is a frozenset of (axis, value); a product is a tuple of factors ``(axes, rows)`` over tail axes
    (together every tail axis once). ``want`` prunes to given values of some head axes (a group).
    """

    def __init__(self, head: frozenset, want: dict):
        self.head = head
        self.want = want
        self.memo: dict = {}

    def node(self, node) -> list:
        key = id(node)
        hit = self.memo.get(key)
        if hit is None:
            if isinstance(node, Component):
                hit = self.node(node.tree) if node.counted is not None else self.component(node)
            elif isinstance(node, Part):
                hit = self.part(node.fixed, node.free, node.parts)
            elif isinstance(node, Branches):
                hit = self.branches(node)
            else:  # pragma: no cover - the solver makes only these
                raise TypeError(f"unknown solution node {type(node).__name__}")
            self.memo[key] = (hit, node)  # the node is kept: its id stays its own while the memo lives
            return hit
        return hit[0]

    def _split(self, axes: tuple, rows) -> tuple:
        """``rows`` over ``axes`` as (head positions, tail axes, [(head, tail rows)]) honouring ``want``."""
        head, want = self.head, self.want
        hp = tuple(i for i, a in enumerate(axes) if a in head)
        tail_axes = tuple(a for a in axes if a not in head)
        if not hp:
            return (), tail_axes, [(frozenset(), rows)]
        tp = tuple(i for i, a in enumerate(axes) if a not in head)
        checks = [(i, want[a]) for i, a in enumerate(axes) if a in want]
        by_head: dict = {}
        head_axes = tuple(axes[i] for i in hp)
        for r in rows:
            if checks and any(r[i] != v for i, v in checks):
                continue
            h = frozenset(zip(head_axes, (r[i] for i in hp)))
            by_head.setdefault(h, []).append(tuple(r[i] for i in tp))
        return hp, tail_axes, [(h, tuple(t)) for h, t in by_head.items()]

    def component(self, comp: Component) -> list:
        n_core = len(comp.axes) - sum(len(leaf.axes) for leaf in comp.leaves)
        core_axes = comp.axes[:n_core]
        head, want = self.head, self.want
        hp = tuple(i for i, a in enumerate(core_axes) if a in head)
        tp = tuple(i for i, a in enumerate(core_axes) if a not in head)
        head_axes = tuple(core_axes[i] for i in hp)
        tail_axes = tuple(core_axes[i] for i in tp)
        checks = [(i, want[a]) for i, a in enumerate(core_axes) if a in want]
        head_of = key_getter(hp) if hp else None
        tail_of = key_getter(tp) if tp else None
        leaves = []
        for leaf in comp.leaves:
            mixed = any(a in head for a in leaf.axes)
            leaves.append((key_getter(leaf.key), leaf.axes, leaf.options, mixed, {}))
        out: dict = {}
        empty = frozenset()
        for row in comp.rows:
            if checks and any(row[i] != v for i, v in checks):
                continue
            h = frozenset(zip(head_axes, head_of(row))) if hp else empty
            alts = [(h, ((tail_axes, (tail_of(row),)),) if tp else ())]
            for get, axes, options, mixed, splits in leaves:
                opts = options[get(row)]
                if not mixed:
                    alts = [(hh, f + ((axes, opts),)) for hh, f in alts]
                    continue
                split = splits.get(id(opts))
                if split is None:
                    _hp, t_axes, parts = self._split(axes, opts)
                    split = splits[id(opts)] = (t_axes, parts, opts)
                t_axes, parts, _keep = split
                alts = [(hh | h2, f + ((t_axes, rows),)) for hh, f in alts for h2, rows in parts if rows]
            for hh, f in alts:
                got = out.get(hh)
                if got is None:
                    out[hh] = [f]
                else:
                    got.append(f)
        return list(out.items())

    def part(self, fixed, free, parts) -> list:
        head, want = self.head, self.want
        h0, tail_fixed = [], []
        for a, v in fixed:
            if a in want and want[a] != v:
                return []
            (h0 if a in head else tail_fixed).append((a, v))
        factors = []
        if tail_fixed:
            factors.append((tuple(a for a, _ in tail_fixed), (tuple(v for _, v in tail_fixed),)))
        heads = [frozenset(h0)]
        for a, values in free:
            if a in head:
                if a in want:
                    values = tuple(v for v in values if v == want[a])
                    if not values:
                        return []
                heads = [h | {(a, v)} for h in heads for v in values]
            else:
                factors.append(((a,), tuple((v,) for v in values)))
        acc = [(h, [tuple(factors)]) for h in heads]
        for p in parts:
            sub = self.node(p)
            if not sub:
                return []
            if len(sub) == 1 and not sub[0][0]:  # tail only: extend every product
                _h, sums = sub[0]
                acc = [(h, [x + y for x in s for y in sums]) for h, s in acc]
                continue
            acc = [(h | h2, [x + y for x in s for y in s2]) for h, s in acc for h2, s2 in sub]
        return acc

    def branches(self, node: Branches) -> list:
        head, want = self.head, self.want
        out: dict = {}
        for values, part in node.options:
            pairs = tuple(zip(node.axes, values))
            if any(a in want and want[a] != v for a, v in pairs):
                continue
            hb = frozenset((a, v) for a, v in pairs if a in head)
            tb = tuple((a, v) for a, v in pairs if a not in head)
            factor = ((tuple(a for a, _ in tb), (tuple(v for _, v in tb),)),) if tb else ()
            for h, sums in self.node(part):
                hh = h | hb if hb else h
                more = [p + factor for p in sums] if factor else sums
                got = out.get(hh)
                if got is None:
                    out[hh] = list(more)
                else:
                    got.extend(more)
        return list(out.items())


class _Tails:
    """Sorted tail texts (and values) of a sum of products, rendered once per distinct sum."""

    def __init__(self, spelling: Spelling, ref_assign: tuple, with_values: bool):
        self.sp = spelling
        self.ref = ref_assign
        self.ref_text = spelling.head_text(ref_assign)
        self.with_values = with_values
        self.memo: dict = {}
        self.held = 0
        self.order = {a: i for i, a in enumerate(spelling.tail_axes)}

    def get(self, sums: list):
        key = tuple(sums) if len(sums) > 1 else sums[0]  # by content: equal options recur under other keys
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        # the same options come in other orders (join order): one rendering per set of options
        canon = tuple(frozenset(tuple((axes, frozenset(rows)) for axes, rows in p) for p in sums))
        got = self.memo.get(canon)
        if got is None:
            if self.held > TAIL_MEMO:
                self.memo.clear()
                self.held = 0
            with gc_paused():
                got = self.memo[canon] = self._render(sums)
            self.held += len(got)
        self.memo[key] = got
        return got

    def _render(self, sums: list) -> list:
        values, texts = [], []  # names only: each product's values are dropped once their texts are made
        order = self.order
        by_parts = sum(prod(len(r) for _a, r in p) for p in sums) >= PARTS_FROM
        for p in sums:
            p = sorted(p, key=lambda f: len(f[1]) > 1)  # one-row factors first: one constant prefix
            axes = tuple(a for f_axes, _r in p for a in f_axes)
            base = sum((r[0] for _a, r in p if len(r) == 1), ())
            rows = [r for _a, r in p if len(r) > 1]
            if not rows:
                flats = [base]
            elif len(rows) == 1:
                flats = [base + x for x in rows[0]] if base else rows[0]
            elif len(rows) == 2:
                flats = [base + x + y for x in rows[0] for y in rows[1]]
            else:
                flats = [base + sum(c, ()) for c in product(*rows)]
            if len(axes) > 1:
                # canonical order; an axis twice (a branch's value, fixed again in the piece under it) once
                first = {a: i for i, a in reversed(list(enumerate(axes)))}
                perm = sorted(first.values(), key=lambda i: order[axes[i]])
                if len(perm) == 1:
                    flats = [(f[perm[0]],) for f in flats]
                elif perm != list(range(len(axes))):
                    flats = list(map(itemgetter(*perm), flats))
            texts += self.sp.tail_texts(self.ref, self.ref_text, flats, by_parts)
            if self.with_values:
                values.extend(flats)
        if not self.with_values:
            texts.sort()
            return texts
        pairs = sorted(zip(texts, values))
        return pairs


def _groups(solutions: SolutionSet, sp: Spelling) -> list[dict]:
    """The values of the leading head axes to list one at a time, in name order.

    A large space is split further by the head axes that follow in the name (tile_m, then tile_n, ...) until
    a group holds about ``GROUP_CONFIGS`` configs: a group's heads are walked before its first name is
    written (the whole space of a combination: 10^10 configs a group, a minute to the first line).
    """
    domains = solutions.model.domains
    free = [a for a in sp.group_axes if a not in solutions.fixed and len(domains[a]) > 1]
    size = solutions.count() / prod(len(domains[a]) for a in free)
    more = []
    for a in sp.more_axes:
        if size <= GROUP_CONFIGS:
            break
        if a not in solutions.fixed and len(domains[a]) > 1:
            more.append(a)
            size /= len(domains[a])
    ref = dict(_reference(solutions, sp))
    # the order of the further axes' values is that of their text, whatever the leading values: sorted once
    return [{**want, **sub} for want in _ordered(sp, ref, free, domains) for sub in _ordered(sp, ref, more, domains)]


def _ordered(sp: Spelling, ref: dict, axes: list, domains: dict) -> list[dict]:
    """Every assignment of ``axes`` in the order of the head text it gives ``ref``."""
    if not axes:
        return [{}]
    groups = []
    for values in product(*(domains[a] for a in axes)):
        want = dict(zip(axes, values))
        groups.append((sp.head_text(tuple({**ref, **want}.items())), want))
    groups.sort(key=lambda g: g[0])
    return [w for _t, w in groups]


def _reference(solutions: SolutionSet, sp: Spelling) -> tuple:
    """Head values of some config of the kind (the fixed ones and each axis's first value): what tails are
    measured against."""
    domains = solutions.model.domains
    return tuple((a, solutions.fixed[a] if a in solutions.fixed else domains[a][0])
                 for a in sp.fields if a in sp.head)


def _heads(solutions: SolutionSet, sp: Spelling, want: dict) -> list:
    """(head text, head, sums) of one group, sorted by head text (GC paused: see ``gc_paused``)."""
    with gc_paused():
        walk = _Walk(sp.head, want)
        root = walk.part(tuple(solutions.fixed.items()), (), solutions.components)
        out = [(sp.head_text(h), h, s) for h, s in root]
        out.sort(key=itemgetter(0))
    return out


def _runs(heads: list) -> Iterator[list]:
    """Heads in runs: a run longer than one holds heads that are prefixes of the next (sorted by full name)."""
    run = []
    for item in heads:
        if run and item[0].startswith(run[0][0]):
            run.append(item)
            continue
        if run:
            yield run
        run = [item]
    if run:
        yield run


def _run_blocks(run: list, tails: _Tails) -> Iterator[str]:
    """A run's names (see ``_runs``); one head's in slices of ``RUN_CHUNK`` tails (a head of the whole space
    takes a million)."""
    if len(run) == 1:
        text, _h, sums = run[0]
        ts = tails.get(sums)
        for i in range(0, max(len(ts), 1), RUN_CHUNK):
            yield text + ("\n" + text).join(ts[i:i + RUN_CHUNK]) + "\n"
        return
    yield "".join(sorted(f"{text}{t}\n" for text, _h, sums in run for t in tails.get(sums)))


def name_blocks(solutions: SolutionSet) -> Iterator[str]:
    """The names of ``solutions`` in name order, as blocks of lines (each ends in a newline)."""
    if solutions.empty:
        return
    sp = spelling(solutions.model.kind)
    tails = _Tails(sp, _reference(solutions, sp), False)
    last = ""
    buf, size = [], 0
    for want in _groups(solutions, sp):
        heads = _heads(solutions, sp, want)
        if not heads:
            continue
        first = True
        block = ""
        for run in _runs(heads):
            for block in _run_blocks(run, tails):
                if first:
                    if block[:block.index("\n")] <= last:  # pragma: no cover - a name format that breaks the grouping
                        raise RuntimeError(f"name order broken between groups at {block[:200]!r}")
                    first = False
                buf.append(block)
                size += len(block)
                if size >= BLOCK_CHARS:
                    yield "".join(buf)
                    buf, size = [], 0
        last = block[block.rfind("\n", 0, len(block) - 1) + 1:-1]
    if buf:
        yield "".join(buf)


def config_blocks(solutions: SolutionSet, size: int = 4096) -> Iterator[list]:
    """The configs of ``solutions`` in name order, as lists of at most about ``size``."""
    if solutions.empty:
        return
    sp = spelling(solutions.model.kind)
    tails = _Tails(sp, _reference(solutions, sp), True)
    out = []
    for want in _groups(solutions, sp):
        for run in _runs(_heads(solutions, sp, want)):
            made = [(text + t, sp.config(h, values)) for text, h, sums in run for t, values in tails.get(sums)]
            if len(run) > 1:
                made.sort(key=itemgetter(0))
            out.extend(c for _n, c in made)
            if len(out) >= size:
                yield out
                out = []
    if out:
        yield out
