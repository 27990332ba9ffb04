"""Decoding many draw indices at once: :func:`sampling.decode` over a numpy array of indices.

The same mixed radix, the same sorted orders, the same answer index for index
(tested against ``decode``): a component's core row by a search in its
cumulative weights, each leaf option by an offset into the leaf's options
flattened per row, each branch by a search in the branches' cumulative
counts, the indices under a branch decoded together. Values are Python
objects (object arrays), so the configs are the same tuples. Indices must fit
int64 (totals below ``sampling.BATCH_LIMIT``); the caller decodes one at a time otherwise.
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
    components of rows only (``simple``: (size, axes, sorted rows)), then the other components."""
    n = len(r)
    out: dict = {"#n": n}
    for a, v in fixed:
        _put(out, a, v, None)
    r = r.copy()
    for size, axes, rows in simple:
        j = r % size
        r //= size
        for a, col in zip(axes, _columns(memo, rows, len(axes))):
            out[a] = col[j]
    for comp in nodes:
        j = r % comp.size
        r //= comp.size
        _node(memo, comp, j, out, None)
    del out["#n"]
    return out


def _columns(memo: dict, rows, width: int) -> list:
    key = ("cols", id(rows))
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = ([_objects([row[k] for row in rows]) for k in range(width)], rows)
    return hit[0]


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
    rows, cumulative, leaves = comp.sampling
    n_core = len(comp.axes) - sum(len(axes) for _g, axes, _o in leaves)
    core = comp.axes[:n_core]
    if not leaves:
        j = r
        for a, col in zip(comp.axes, _columns(memo, rows, len(comp.axes))):
            _put(out, a, col[j], where)
        return
    cum = _cumulative(memo, cumulative)
    i = np.searchsorted(cum, r, side="right")
    r = r - np.where(i > 0, cum[np.maximum(i - 1, 0)], 0)
    for a, col in zip(core, _columns(memo, rows, n_core)):
        _put(out, a, col[i], where)
    for counts, offsets, cols, axes in _leaf_tables(memo, comp):
        c = counts[i]
        j = r % c
        r = r // c
        at = offsets[i] + j
        for a, col in zip(axes, cols):
            _put(out, a, col[at], where)


def _leaf_tables(memo: dict, comp: Component) -> list:
    """Per leaf: (options per row, offset of each row's options, value columns of the options flattened in
    row order, the leaf's axes)."""
    key = ("leaves", id(comp))
    hit = memo.get(key)
    if hit is None:
        rows, _cum, leaves = comp.sampling
        tables = []
        for get, axes, options in leaves:
            per_row = [options[get(row)] for row in rows]
            counts = np.array([len(o) for o in per_row], dtype=np.int64)
            offsets = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
            flat = [o for opts in per_row for o in opts]
            tables.append((counts, offsets, [_objects([o[k] for o in flat]) for k in range(len(axes))], axes))
        hit = memo[key] = (tables, comp)
    return hit[0]
