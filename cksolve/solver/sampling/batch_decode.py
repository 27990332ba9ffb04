"""Decoding many draw indices at once: :func:`sampling.decode` over a numpy array of indices.

The same mixed radix, the same sorted orders, the same answer index for index
(tested against ``decode``): a component's core row by a search in its
cumulative weights, each leaf option by an offset into the leaf's options
flattened per row, each branch by a search in the branches' cumulative
counts, the indices under a branch decoded together. Values are Python
objects (object arrays), so the configs are the same tuples. Indices must fit
int64 (totals below ``uniform.BATCH_LIMIT``); the caller decodes one at a time otherwise.
"""

from __future__ import annotations

import numpy as np

from ..engine.conditioning import Branches, Part
from ..engine.solutions import Component

__all__ = ["decode_many"]


class _Column:
    """A column of values held as small integer codes into its distinct values: ``col[j]`` is the object
    array of the values at ``j``, the same objects an object array would give, in an eighth of its memory
    or less (a sampled space's tables have hundreds of thousands of rows and few distinct values a column)."""

    __slots__ = ("codes", "uniques")

    def __init__(self, values) -> None:
        index: dict = {}
        # keyed with the type: 1, 1.0 and True are equal keys but spell differently
        codes = [index.setdefault((type(v), v), len(index)) for v in values]
        self.uniques = np.empty(len(index), dtype=object)
        self.uniques[:] = [v for _t, v in index] if index else []
        self.codes = np.array(codes, dtype=np.min_scalar_type(max(len(index) - 1, 0)))

    def __getitem__(self, j):
        return self.uniques[self.codes[j]]


def _objects(values) -> _Column:
    return _Column(values)


def decode_many(memo: dict, fixed: tuple, simple: tuple, nodes: tuple, r: np.ndarray) -> dict:
    """axis -> object array of values for each index of ``r`` (int64), as ``decode`` walks: fixed values,
    the components of rows only (``simple``), then the other components (one mixed radix: ``decode``'s
    table of the ``simple`` components' product is the same digits)."""
    n = len(r)
    out: dict = {"#n": n}
    for a, v in fixed:
        _put(out, a, v, None)
    r = r.copy()
    for comp in simple + nodes:
        j = r % comp.size
        r //= comp.size
        _node(memo, comp, j, out, None)
    del out["#n"]
    return out


def _put(out: dict, axis: str, values, where) -> None:
    """Values (an array, or one value for all) at the positions ``where`` (an index array; None: all)."""
    if where is None:
        if not isinstance(values, np.ndarray):
            col = np.empty(out["#n"], dtype=object)
            col.fill(values)
            values = col
        out[axis] = values
        return
    col = out.get(axis)
    if col is None:
        col = out[axis] = np.empty(out["#n"], dtype=object)
    col[where] = values


def _node(memo: dict, node, r: np.ndarray, out: dict, where) -> None:
    """Decode ``r`` under ``node`` into ``out`` at the positions ``where`` (an index array; None: all)."""
    if isinstance(node, Component):
        if node.counted is not None:
            _node(memo, node.tree, r, out, where)
        else:
            _component(memo, node, r, out, where)
        return
    if isinstance(node, Part):
        for a, v in node.fixed:
            _put(out, a, v, where)
        r = r.copy()
        for a, values in node.free:
            j = r % len(values)
            r //= len(values)
            _put(out, a, _values(memo, values)[j], where)
        for p in node.parts:
            j = r % p.size
            r //= p.size
            _node(memo, p, j, out, where)
        return
    if isinstance(node, Branches):
        cum = _cumulative(memo, node.cumulative)
        i = np.searchsorted(cum, r, side="right")
        rest = r - np.where(i > 0, cum[np.maximum(i - 1, 0)], 0)
        order = np.argsort(i, kind="stable")  # the indices under each branch, as one group each
        cuts = np.flatnonzero(np.diff(i[order])) + 1
        for idx in np.split(order, cuts):
            values, part = node.options[int(i[idx[0]])]
            sub = idx if where is None else where[idx]
            for a, v in zip(node.axes, values):
                _put(out, a, v, sub)
            _node(memo, part, rest[idx], out, sub)
        return
    raise TypeError(f"unknown solution node {type(node).__name__}")  # pragma: no cover


def _values(memo: dict, values: tuple) -> np.ndarray:
    key = ("vals", id(values))
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = (_objects(values), values)
    return hit[0]


def _cumulative(memo: dict, cumulative: tuple) -> np.ndarray:
    key = ("cum", id(cumulative))
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = (np.array(cumulative, dtype=np.int64), cumulative)
    return hit[0]


def _component(memo: dict, comp: Component, r: np.ndarray, out: dict, where) -> None:
    core, columns, cum, leaves = _tables(memo, comp)
    if cum is None:  # rows only
        for a, col in zip(core, columns):
            _put(out, a, col[r], where)
        return
    i = np.searchsorted(cum, r, side="right")
    r = r - np.where(i > 0, cum[np.maximum(i - 1, 0)], 0)
    for a, col in zip(core, columns):
        _put(out, a, col[i], where)
    for which, counts, starts, cols, axes in leaves:
        k = which[i]
        c = counts[k]
        j = r % c
        r = r // c
        at = starts[k] + j
        for a, col in zip(axes, cols):
            _put(out, a, col[at], where)


def _tables(memo: dict, comp: Component) -> tuple:
    """(core axes, their value columns over the sorted rows, cumulative configs per row or None without
    leaves, per leaf (which option list each row takes, each list's length and start, the lists' value
    columns flattened, the leaf's axes)), made once from ``comp.sampling_tables()`` (not kept as tuples).

    Rows whose keys allow the same options share one option list: its values are held once, not once per row
    (gfx942's whole space: a few thousand lists under hundreds of thousands of rows)."""
    key = ("comp", id(comp))
    hit = memo.get(key)
    if hit is None:
        rows, cumulative, leaves = comp.sampling_tables()
        n_core = len(comp.axes) - sum(len(axes) for _g, axes, _o in leaves)
        columns = [_objects([row[k] for row in rows]) for k in range(n_core)]
        tables = []
        for get, axes, options in leaves:
            number: dict = {}  # an option list (by value) -> its number, in first-seen order
            by_id: dict = {}  # the same, by the identity of ``options``' tuples (one per key)
            which = []
            for row in rows:
                opts = options[get(row)]
                at = by_id.get(id(opts))
                if at is None:
                    at = by_id[id(opts)] = number.setdefault(opts, len(number))
                which.append(at)
            lists = list(number)
            counts = np.array([len(o) for o in lists], dtype=np.min_scalar_type(max(map(len, lists), default=0)))
            starts = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)[:-1])).astype(np.int64)
            flat = [o for opts in lists for o in opts]
            tables.append((np.array(which, dtype=np.min_scalar_type(max(len(lists) - 1, 0))), counts, starts,
                           [_objects([o[k] for o in flat]) for k in range(len(axes))], axes))
        cum = np.array(cumulative, dtype=np.int64) if leaves else None
        hit = memo[key] = (comp.axes[:n_core], columns, cum, tuple(tables), comp)
    return hit[:4]
