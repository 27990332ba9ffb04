"""(problem, kernel) feature rows as column blocks: ten million pairs without a tuple per pair.

A pair row only joins blocks computed elsewhere -- the problem block per
(problem, dtype), the kernel block per kernel, the interactions per (problem,
tile), the hardware block per arch -- so a batch of rows is, per column, the
distinct values its rows use and an index per row. The blocks are the row
maker's (``rows.RowMaker``, one per (arch, dtype)), as every feature row's. A Parquet writer takes
those as they are (``render.write_parquet``); iterating gives the row tuples
(``table._pair_rows``, the definition), which csv and jsonl print.
Applicability comes from the column engine (``coverage.Decisions``), one
answer per verdict class of problems, as in ``table._pair_rows``.
"""

from __future__ import annotations

from functools import partial
from typing import Iterator, Sequence

import numpy as np

from ..workload import Problem, Workspace
from ..workload.coverage import Decisions

__all__ = ["PairRows"]

#: A column of a batch: (distinct values, index of each row's value), or (None, the values as an int array).
Column = tuple


class PairRows:
    """The pair rows of ``table._pair_rows``: iterate for tuples, or ``column_batches`` for column blocks."""

    def __init__(self, rows: Iterator[tuple], combos, problems: Sequence[Problem], makers, ws: Workspace):
        """``makers``: ``table._Makers``, the row maker of each (arch, dtype) and the kernels' names."""
        self._rows, self.combos, self.problems, self.makers, self.ws = rows, combos, problems, makers, ws

    def __iter__(self) -> Iterator[tuple]:
        return self._rows

    def column_batches(self, size: int) -> Iterator[list[Column]]:
        """Batches of exactly ``size`` rows (the last one shorter), the rows ``__iter__`` gives, in its order."""
        pending: list[tuple] = []  # segments: (row, target, distinct problem, kernel ids, local key ids, firsts)
        held = 0
        for segment in self._segments():
            pending.append(segment)
            held += len(segment[3])
            while held >= size:
                batch, pending, held = _cut(pending, size)
                yield self._columns(batch)
        if held:
            yield self._columns(pending)

    def _segments(self):
        wanted = set(self.combos)
        targets = list(dict.fromkeys((c.arch, c.dtype) for c in self.combos))
        self._targets = targets
        self._makers = [self.makers.get(arch, dtype) for arch, dtype in targets]
        self._tails = [m.hw for m in self._makers]
        decisions = [Decisions.of_problems(self.ws, self.problems, arch, [dtype]) for arch, dtype in targets]
        self._decisions = decisions
        self._ids: dict[object, int] = {}  # (target, config) -> kernel id
        self._kernel_of: list[tuple] = []  # kernel id -> (KernelParts, name)
        self._key_of: list[int] = []  # kernel id -> tile key id
        self._keys: dict[tuple, int] = {}
        found_ids: dict[int, tuple] = {}  # the engine's found tuples -> (kernel ids, key ids, ...)

        def ids_of(t: int, found) -> tuple:
            ids = [self._kernel(t, config) for c, config in found if c in wanted]
            return _keyed(np.array(ids, dtype=np.int64), self._key_of)

        id_makers = [partial(ids_of, t) for t in range(len(targets))]
        for row in range(len(self.problems)):
            for t, (arch, dtype) in enumerate(targets):
                d = decisions[t]
                i = int(d.inverse[row])
                got = d.per_found(i, dtype, found_ids, id_makers[t])
                if len(got[0]):
                    yield row, t, i, *got

    def _kernel(self, t: int, config) -> int:
        k = self._ids.get((t, config))
        if k is None:
            got = self._makers[t].kernel(config)
            k = self._ids[(t, config)] = len(self._kernel_of)
            self._kernel_of.append((got, self.makers.name(config)))
            self._key_of.append(self._keys.setdefault(got.key, len(self._keys)))
        return k

    def _columns(self, segments: list[tuple]) -> list[Column]:
        sizes = [len(s[3]) for s in segments]
        rows = np.repeat(np.array([s[0] for s in segments], np.int64), sizes)
        kernel = np.concatenate([s[3] for s in segments])
        heads = {}  # (distinct problem, target) -> head, in first use
        head_of = np.repeat(np.array([heads.setdefault((s[2], s[1]), len(heads)) for s in segments]), sizes)
        # interactions per (problem, target, tile key), from the first kernel of the key in the row's order
        bases: dict[tuple, int] = {}
        mid_values: list[tuple] = []
        mid_parts = []
        for row, t, i, ids, local, firsts in segments:
            base = bases.get((i, t))
            if base is None:
                base = bases[(i, t)] = len(mid_values)
                _, mids = self._makers[t].tiles(self._problem(t, i), [self._kernel_of[k][0] for k in firsts])
                mid_values.extend(mids)
            mid_parts.append(local + base)
        mid_of = np.concatenate(mid_parts)
        head_values = [self._makers[t].problem(self._problem(t, i))[0] for i, t in heads]
        used, kernel_at = np.unique(kernel, return_inverse=True)
        blocks = [self._kernel_of[k][0].block for k in used.tolist()]
        names = [self._kernel_of[k][1] for k in used.tolist()]
        target_of = np.repeat(np.array([s[1] for s in segments], np.int64), sizes)
        tails = self._tails
        columns: list[Column] = []
        columns += _split(head_values, head_of)
        columns += _split(blocks, kernel_at.ravel())
        columns += _split(mid_values, mid_of)
        columns += _split(tails, target_of)
        columns.append((None, rows))
        columns.append((names, kernel_at.ravel()))
        return columns

    def _problem(self, t: int, i: int) -> Problem:
        return self._decisions[t].problem_at(i)


def _keyed(ids: np.ndarray, key_of: list[int]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(kernel ids, each one's tile key as a local index in first-use order, the first kernel of each key)."""
    local: dict[int, int] = {}
    firsts: list[int] = []
    at = []
    for k in ids.tolist():
        key = key_of[k]
        n = local.get(key)
        if n is None:
            n = local[key] = len(firsts)
            firsts.append(k)
        at.append(n)
    return ids, np.array(at, dtype=np.int64), firsts


def _split(values: list[tuple], index: np.ndarray) -> list[Column]:
    """One column per position of the tuples, all indexed by ``index``."""
    return [(list(col), index) for col in zip(*values)]


def _cut(segments: list[tuple], size: int) -> tuple[list, list, int]:
    """(segments of exactly ``size`` rows, the rest, rows in the rest)."""
    out, held = [], 0
    for n, s in enumerate(segments):
        if held + len(s[3]) <= size:
            out.append(s)
            held += len(s[3])
            continue
        take = size - held
        if take:
            out.append((s[0], s[1], s[2], s[3][:take], s[4][:take], s[5]))
        rest = [(s[0], s[1], s[2], s[3][take:], s[4][take:], s[5])] + segments[n + 1:]
        return out, rest, sum(len(r[3]) for r in rest)
    return out, [], 0
