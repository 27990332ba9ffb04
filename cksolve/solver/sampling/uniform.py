"""Drawing configs exactly uniformly from solved combinations, without listing them.

A solve is a product of independent components (``solutions``); a component is
joined rows with leaves, or, when too large to join, a conditioning tree
(``conditioning``). Every config of a selection therefore has an index in
``range(total)``: the combination by cumulative counts, then a mixed radix over
the components, a core row by cumulative numbers of leaf options, a branch by
cumulative counts, a leaf option or a free value by position. A draw is one
uniform index (``random.Random.randrange`` on Python integers: exact past
2^53), decoded; ``distinct`` draws indices without replacement
(``Random.sample`` over the range, which never lists it).

Every order the decoding walks is sorted (rows, options, branches), never the
hash order of a join, so a seed gives the same configs whatever PYTHONHASHSEED.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from itertools import accumulate, islice, repeat
from math import prod
from functools import partial
from operator import itemgetter
from typing import Iterator, Sequence

from ...errors import CksolveError
from ...space.config import config_fields
from ...space.kinds import kernel_kind
from .draws import randbelow_many
from ..model import config_class
from ..engine.solutions import SolutionSet

__all__ = ["sample_solutions", "sample_blocks", "sample_name_blocks", "decode", "MERGE_LIMIT", "SAMPLE_BLOCK"]

#: Components without leaves are merged into one table of their product up to this many rows.
MERGE_LIMIT = 1_000_000
#: Totals below this are decoded vectorised (``batch_decode``: int64 arithmetic, products of radices below
#: 2^63); larger one at a time.
BATCH_LIMIT = 1 << 62
#: Draws decoded per block (vectorised, ``batch_decode``): memory does not grow with ``n`` (``distinct`` aside, see
#: ``sample_blocks``).
SAMPLE_BLOCK = 16_384


def decode(solutions: SolutionSet, r: int):
    """The ``r``-th config of ``solutions`` (0 <= r < count), in the fixed order the draw uses."""
    fixed, _simple, nodes, make = _decoder(solutions)
    values = dict(fixed)
    for size, axes, rows in _merged(solutions):  # components that are rows only: no call per component
        r, j = divmod(r, size)
        values.update(zip(axes, rows[j]))
    for comp in nodes:
        r, j = divmod(r, comp.size)
        comp.decode(j, values)
    return make(values)


def _decoder(solutions: SolutionSet) -> tuple:
    """(fixed values, the components without leaves, the other components, config maker), kept in the set's
    shared memo. A draw's index is a mixed radix over the components without leaves, then the others."""
    hit = solutions.memo.get("decoder")
    if hit is None:
        simple = tuple(c for c in solutions.components if c.counted is None and not c.leaves)
        nodes = tuple(c for c in solutions.components if c.counted is not None or c.leaves)
        cls = config_class(solutions.model.kind)
        pick = itemgetter(*config_fields(cls))
        hit = solutions.memo["decoder"] = (tuple(solutions.fixed.items()), simple, nodes,
                                           lambda values: tuple.__new__(cls, pick(values)))
    return hit


def _merged(solutions: SolutionSet) -> tuple:
    """(size, axes, sorted rows) of the components without leaves, for ``decode`` one index at a time: one
    table of their product up to ``MERGE_LIMIT`` rows, one step per draw instead of one per component (the
    same order: the first component varies fastest, as in the mixed radix). Vectorised decoding
    (``batch_decode``) steps through them instead and never forms this table (1 million tuples)."""
    hit = solutions.memo.get("decoder.merged")
    if hit is None:
        simple = [(c.size, c.axes, c.sampling[0]) for c in _decoder(solutions)[1]]
        if 1 < len(simple) and prod(size for size, _a, _r in simple) <= MERGE_LIMIT:
            rows = [()]
            for _size, _axes, part in simple:
                rows = [r + p for p in part for r in rows]
            simple = [(len(rows), tuple(a for _s, axes, _r in simple for a in axes), rows)]
        hit = solutions.memo["decoder.merged"] = tuple(simple)
    return hit


def sample_solutions(sets: Sequence[tuple[object, SolutionSet]], n: int, seed: int,
                     distinct: bool = False) -> list[tuple[object, object]]:
    """``n`` (key, config) drawn uniformly from the union of the solution sets (``(key, SolutionSet)``,
    keys e.g. the combination, in a fixed order); ``distinct`` draws without replacement (refused when
    ``n`` exceeds the total). :func:`sample_blocks`, held in one list."""
    return [draw for block in sample_blocks(sets, n, seed, distinct) for draw in block]


def sample_blocks(sets: Sequence[tuple[object, SolutionSet]], n: int, seed: int, distinct: bool = False,
                  block: int = SAMPLE_BLOCK) -> Iterator[list[tuple[object, object]]]:
    """:func:`sample_solutions`'s draws, in the same order, as lists of at most ``block``: drawn and decoded
    block by block, so memory does not grow with ``n``. ``distinct`` is the exception: drawing without
    replacement remembers every index drawn (``random.Random.sample``: O(n) integers, about 12 n at
    most), so ``--distinct`` is bounded by ``n``, not by the space. Bad requests are refused here, before
    the first block."""
    counts, total = _checked(sets, n, distinct)
    return _blocks(sets, counts, total, n, seed, distinct, block)


def sample_name_blocks(sets: Sequence[tuple[object, SolutionSet]], n: int, seed: int, distinct: bool = False,
                       block: int = SAMPLE_BLOCK) -> Iterator[str]:
    """The kernel names of :func:`sample_blocks`'s draws, in the same order, as text blocks (a name a line):
    no config is formed when the draws decode vectorised (the kind's ``spell_values`` over the columns)."""
    counts, total = _checked(sets, n, distinct)
    return _name_blocks(sets, counts, total, n, seed, distinct, block)


def _checked(sets, n: int, distinct: bool) -> tuple[list, int]:
    if n < 0:
        raise CksolveError(f"-n {n} must not be negative")
    counts = [s.count() for _k, s in sets]
    total = sum(counts)
    if n and not total:
        raise CksolveError("the selection has no valid config to sample")
    if distinct and n > total:
        raise CksolveError(f"-n {n:,} distinct configs asked for, but the selection has only {total:,}")
    return counts, total


def _name_blocks(sets, counts, total, n, seed, distinct, block) -> Iterator[str]:
    cumulative = list(accumulate(counts))
    for chunk in _chunks(total, n, seed, distinct, block):
        if total >= BATCH_LIMIT:
            yield "".join(f"{config.name()}\n" for _k, config in _decode_each(sets, cumulative, chunk))
            continue
        out: list = [None] * len(chunk)
        for at, _key, kind, lists in _decoded(sets, cumulative, chunk):
            value = kernel_kind(kind)  # its own speller over the columns: no config, record or name memo
            names = list(map(value.spell_values, *(lists[f] for f in value.fields)))
            if at is None:
                out = names
                break
            for i, name in zip(at, names):
                out[i] = name
        out.append("")
        yield "\n".join(out)


def _chunks(total: int, n: int, seed: int, distinct: bool, block: int) -> Iterator[list]:
    """The draws, ``block`` at a time: the same calls in the same order as one list of n draws (the same
    draws whatever the block)."""
    rnd = random.Random(seed)
    indices = iter(rnd.sample(range(total), n)) if distinct else None
    done = 0
    while done < n:
        m = min(block, n - done)
        done += m
        if distinct:
            yield list(islice(indices, m))
        elif total.bit_length() <= 64:
            yield randbelow_many(rnd, total, m)
        else:
            yield [rnd.randrange(total) for _ in range(m)]


def _blocks(sets, counts, total, n, seed, distinct, block) -> Iterator[list]:
    cumulative = list(accumulate(counts))
    for chunk in _chunks(total, n, seed, distinct, block):
        yield _decode_block(sets, cumulative, chunk) if total < BATCH_LIMIT else _decode_each(sets, cumulative, chunk)


def _decode_each(sets, cumulative: list, chunk: list) -> list:
    """``decode`` of every index of ``chunk``, one at a time (totals past ``BATCH_LIMIT``)."""
    out = []
    for r in chunk:
        i = bisect_right(cumulative, r)
        if i:
            r -= cumulative[i - 1]
        key, solutions = sets[i]
        out.append((key, decode(solutions, r)))
    return out


def _decode_block(sets, cumulative: list, chunk: list) -> list:
    """``decode`` of every index of ``chunk``, vectorised per solution set (``batch_decode``), in order."""
    out: list = [None] * len(chunk)
    for at, key, kind, lists in _decoded(sets, cumulative, chunk):
        cls = config_class(kind)
        configs = map(partial(tuple.__new__, cls), zip(*(lists[f] for f in config_fields(cls))))
        if at is None:
            return list(zip(repeat(key), configs))
        for i, config in zip(at, configs):
            out[i] = (key, config)
    return out


def _decoded(sets, cumulative: list, chunk: list):
    """(positions in ``chunk``, None for all; key; kind; field -> list of values) per solution set drawn in
    ``chunk``, decoded vectorised (``batch_decode``)."""
    import numpy as np  # deferred, as batch_decode: numpy's import would cost every command's start-up

    from .batch_decode import decode_many  # deferred: numpy, only for a block of draws

    r = np.array(chunk, dtype=np.int64)
    cum = np.array(cumulative, dtype=np.int64)
    which = np.searchsorted(cum, r, side="right")
    present = np.unique(which)
    for s in present:
        mask = which == s
        key, solutions = sets[s]
        sub = r[mask] - (cum[s - 1] if s else 0)
        fixed, simple, nodes, _make = _decoder(solutions)
        cols = decode_many(solutions.memo.setdefault("batch", {}), fixed, simple, nodes, sub)
        kind = solutions.model.kind
        lists = {f: cols[f].tolist() for f in config_fields(config_class(kind))}
        yield (None if len(present) == 1 else np.flatnonzero(mask).tolist()), key, kind, lists
