"""Names of a solution set spelled from its structure: each head rendered once, each tail once per value.

A component is core rows each extended by every option of its leaves. Once the
leaves holding head fields (``name_texts``; the scheduler, say) are expanded,
every row under a partial row shares its head text, so a name is that text
joined to its tail's (memoised), and no row is put in field order to be named
(measured on ``enumerate -r full``: 1925 -> 1844 M instructions).
"""

from __future__ import annotations

from itertools import product
from operator import itemgetter

from ...space.memos import MEMOS
from .name_texts import spelling
from ..engine.relations import key_getter

__all__ = ["spelled_rows", "spelled_names"]

_HEADS = MEMOS.memo("spelled.heads")  # per kind: head values -> head text (combinations share heads)
#: per (kind, axes of a tail's prefix, axes of the tail leaves): (the prefix's values, each leaf's options) -> the
#: texts of every tail they make (partial rows and combinations share them)
_TAILS = MEMOS.memo("spelled.tails")
HEADS_HELD = 1 << 14  # heads held per kind at most (a long process lists many combinations: started afresh)


def spelled_rows(solutions) -> tuple[list[str], list[tuple], itemgetter] | None:
    """(names, rows, pick): every solution of a one-component set as a row over the fixed, core and leaf axes,
    its kernel name, and ``pick`` taking a row to its config's values in field order; None when the set is not
    one component or its kind's names have no tail (depthwise: few, named by ``kernel_kind(kind).spell``)."""
    spelled = _spelled(solutions)
    if spelled is None:
        return None
    kind, spell, comp = spelled
    # the leaves with head fields first (few rows: the core rows by those options), then every other leaf's
    # rows under a row keep its head
    leaves = sorted(comp.narrow_first(), key=lambda leaf: spell.head.isdisjoint(leaf.axes))
    n_core = len(comp.axes) - sum(len(leaf.axes) for leaf in comp.leaves)
    fixed_axes = tuple(solutions.fixed)
    flat = [*fixed_axes, *comp.axes[:n_core], *(a for leaf in leaves for a in leaf.axes)]
    offsets = {a: i for i, a in enumerate(flat)}
    head_fields = spell.head_fields
    base = tuple(solutions.fixed[a] for a in fixed_axes)
    n = len(base)
    rows = [base + r for r in comp.rows]
    heads = None
    for leaf in leaves:
        if heads is None and spell.head.isdisjoint(leaf.axes):
            heads = _heads(kind, spell, itemgetter(*(offsets[f] for f in head_fields)), rows)
        opts = list(map(leaf.options.__getitem__, map(key_getter(tuple(i + n for i in leaf.key)), rows)))
        if heads is not None:
            heads = [h for h, os in zip(heads, opts) for _ in os]
        rows = [r + o for r, os in zip(rows, opts) for o in os]
    if heads is None:
        heads = _heads(kind, spell, itemgetter(*(offsets[f] for f in head_fields)), rows)
    _reference(kind, spell)
    tail_of = itemgetter(*(offsets[a] for a in spell.tail_axes))
    names = list(map(str.__add__, heads, map(spell.tails.__getitem__, map(tail_of, rows))))
    return names, rows, itemgetter(*(offsets[f] for f in spell.fields))


def spelled_names(solutions) -> list[str] | None:
    """The names of :func:`spelled_rows` in another order (they are sorted after), without forming the rows.

    Once the leaves holding head fields are expanded, every other leaf holds tail fields only: under a partial
    row, the names are its head joined to the texts of every combination of those leaves' options, which depend
    on the partial row's tail values and the leaves' option lists only: looked up once per partial row, joined
    from C (``enumerate -r full``: 1,794 -> 1,665 M instructions). None as :func:`spelled_rows`.
    """
    spelled = _spelled(solutions)
    if spelled is None:
        return None
    kind, spell, comp = spelled
    head_leaves = [leaf for leaf in comp.leaves if not spell.head.isdisjoint(leaf.axes)]
    tail_leaves = [leaf for leaf in comp.leaves if spell.head.isdisjoint(leaf.axes)]
    n_core = len(comp.axes) - sum(len(leaf.axes) for leaf in comp.leaves)
    fixed_axes = tuple(solutions.fixed)
    flat = [*fixed_axes, *comp.axes[:n_core], *(a for leaf in head_leaves for a in leaf.axes)]
    offsets = {a: i for i, a in enumerate(flat)}
    base = tuple(solutions.fixed[a] for a in fixed_axes)
    n = len(base)
    rows = [base + r for r in comp.rows]
    for leaf in head_leaves:
        opts = map(leaf.options.__getitem__, map(key_getter(tuple(i + n for i in leaf.key)), rows))
        rows = [r + o for r, os in zip(rows, opts) for o in os]
    heads = _heads(kind, spell, itemgetter(*(offsets[f] for f in spell.head_fields)), rows)
    _reference(kind, spell)
    # a tail is the partial row's tail values (``prefix``) and the tail leaves' options, in this order; the
    # tail texts under a partial row depend on those values and the leaves' option lists only (which recur)
    prefix = tuple(a for a in flat if a not in spell.head)
    order = [*prefix, *(a for leaf in tail_leaves for a in leaf.axes)]
    layout = (kind, prefix, tuple(leaf.axes for leaf in tail_leaves))
    known_tails = _held(_TAILS, layout)
    to_tail = itemgetter(*map(order.index, spell.tail_axes))
    tails = spell.tails
    prefix_of = key_getter(tuple(offsets[a] for a in prefix))
    keys = [(leaf.options.__getitem__, key_getter(tuple(i + n for i in leaf.key))) for leaf in tail_leaves]
    names: list[str] = []
    for row, head in zip(rows, heads):
        values = prefix_of(row)
        at = (values, *[get(key(row)) for get, key in keys])
        texts = known_tails.get(at)
        if texts is None:
            texts = known_tails[at] = [tails[to_tail(values + sum(options, ()))] for options in product(*at[1:])]
        names += map(head.__add__, texts)
    return names


def _spelled(solutions) -> tuple | None:
    """(kind, its spelling, the one component joined) of a solution set spelled from its structure, or None."""
    if solutions.empty or len(solutions.components) != 1:
        return None
    spell = spelling(solutions.model.kind)
    if len(spell.tail_axes) < 2:
        return None
    return solutions.model.kind, spell, solutions.components[0].joined()


def _heads(kind: str, spell, head_of, rows: list) -> list[str]:
    """The head text of every row, each distinct head rendered once per process."""
    known = _held(_HEADS, kind)
    heads = []
    for values in map(head_of, rows):
        text = known.get(values)
        if text is None:
            text = known[values] = spell.head_of(values)
        heads.append(text)
    return heads


def _held(memo: dict, key) -> dict:
    """``memo[key]``, a dict started afresh when missing or past ``HEADS_HELD`` entries."""
    known = memo.get(key)
    if known is None or len(known) > HEADS_HELD:
        known = memo[key] = {}
    return known


def _reference(kind: str, spell) -> None:
    """Give the spelling one rendered head of ``kind`` as its reference (never empty here: heads were just
    rendered)."""
    known = _HEADS[kind]
    ref_values = next(iter(known))
    spell.reference(zip(spell.head_fields, ref_values), known[ref_values])
