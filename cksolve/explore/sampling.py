"""Counting and sampling a rule set over a selection, whatever it leaves free (the library side of
``count`` and ``sample``).

Counts come from the solver's factorisation (exact Python integers, never a
listing); draws walk the same factorisation (``solver.sampling``), so both work
on the whole space -- a rule-set file with only ``kind = "gemm"`` has
between 10^9 and 10^13 configs per combination.
"""

from __future__ import annotations

import gc
import random
from bisect import bisect_right
from dataclasses import replace
from functools import partial
from itertools import accumulate
from typing import Iterator

from ..errors import CksolveError
from ..progress import phase
from ..query import Record, Selection
from ..rulesets.rule_set import RuleSet
from ..solver import SolutionSet, SpaceTooLarge, sample_blocks, sample_name_blocks, solve_combo
from ..solver.sampling.draws import randbelow_many
from ..space.memos import MEMOS
from ..space.namesfile import section_line
from ..space.spelling import clear_name_memos
from ..rulesets import takes_rule_set

__all__ = ["sample", "sample_stream", "sample_names", "solution_sets", "arch_shares", "sample_arch_stream",
           "sample_arch_lines"]


def solution_sets(rule_set: RuleSet, selection: Selection) -> list[tuple[object, SolutionSet]]:
    """(combination, its solutions) for every combination of the selection, in selection order."""
    out = []
    for combo in selection.combos():
        try:
            out.append((combo, solve_combo(rule_set, combo)))
        except SpaceTooLarge as exc:
            raise CksolveError(f"{rule_set.name or 'rule set'} is too large to sample for {combo.key} ({exc})") from None
    return out


@takes_rule_set
def sample(rule_set: RuleSet, selection: Selection, n: int, seed: int = 0, distinct: bool = False) -> list[Record]:
    """``n`` records drawn exactly uniformly from every valid config of the selection.

    The same seed gives the same records. ``distinct`` draws without replacement.
    """
    return list(sample_stream(rule_set, selection, n, seed, distinct))


@takes_rule_set
def sample_stream(rule_set: RuleSet, selection: Selection, n: int, seed: int = 0,
                  distinct: bool = False) -> Iterator[Record]:
    """:func:`sample`'s records, in the same order, drawn and decoded in blocks: memory does not grow with
    ``n`` (``distinct`` remembers the indices it drew: O(n)). A bad request is refused before the first."""
    blocks = sample_blocks(solution_sets(rule_set, selection), n, seed, distinct)
    return _records(blocks, rule_set.name)


@takes_rule_set
def sample_names(rule_set: RuleSet, selection: Selection, n: int, seed: int = 0,
                 distinct: bool = False) -> Iterator[str]:
    """The kernel names of :func:`sample_stream`'s records, in the same order, as text blocks (a name a line);
    no record or config is formed (what ``sample`` writes in its default format)."""
    return sample_name_blocks(solution_sets(rule_set, selection), n, seed, distinct)


def _records(blocks, label) -> Iterator[Record]:
    make = partial(tuple.__new__, Record)  # as enumerate: Record's Python __new__ per draw is the cost
    for block in blocks:
        yield from (make((label, combo, config)) for combo, config in block)
        clear_name_memos()  # random draws seldom name a config twice


@takes_rule_set
def arch_shares(rule_set: RuleSet, selection: Selection, n: int, seed: int = 0, distinct: bool = False
                ) -> list[tuple[Selection, int, int]]:
    """(one-arch selection, draws, seed) per arch of the selection, in its order: ``n`` draws split over the
    archs as ``n`` uniform draws over the whole selection fall (``distinct``: without replacement), so each
    arch's ``sample`` of its share, with its seed, is a uniform draw over the union, grouped by arch.

    Only one arch's solves are held at a time (the process's memos are emptied after each): memory is that
    of the largest arch, not of all. Each arch's phase goes to the progress bar, if any."""
    if n < 0:
        raise CksolveError(f"-n {n} must not be negative")
    parts = [replace(selection, archs=(arch,)) for arch in selection.archs]
    counts = [0] * len(parts)
    for i in reversed(range(len(parts))):  # the first arch's solves stay for its draws, counted last
        phase(f"counting configs of {parts[i].archs[0]}: arch", len(parts) - i, len(parts))
        counts[i] = sum(s.count() for _c, s in solution_sets(rule_set, parts[i]))
        if i:
            _release()
    total = sum(counts)
    if n and not total:
        raise CksolveError("the selection has no valid config to sample")
    if distinct and n > total:
        raise CksolveError(f"-n {n:,} distinct configs asked for, but the selection has only {total:,}")
    rnd = random.Random(seed)
    shares = _split(rnd, list(accumulate(counts)), total, n, distinct)
    return [(part, m, rnd.getrandbits(63)) for part, m in zip(parts, shares)]


def _split(rnd: random.Random, cumulative: list, total: int, n: int, distinct: bool, block: int = 1 << 16) -> list:
    """How many of ``n`` uniform indices into ``range(total)`` fall in each part (``cumulative`` ends)."""
    shares = [0] * len(cumulative)
    if distinct:
        drawn = iter(rnd.sample(range(total), n))  # O(n) indices, as sample --distinct holds
    done = 0
    while done < n:
        m = min(block, n - done)
        done += m
        if distinct:
            chunk = [next(drawn) for _ in range(m)]
        elif total.bit_length() <= 64:
            chunk = randbelow_many(rnd, total, m)
        else:
            chunk = [rnd.randrange(total) for _ in range(m)]
        for r in chunk:
            shares[bisect_right(cumulative, r)] += 1
    return shares


def _release() -> None:
    """Forget every solve and memo (the next arch solves afresh): one arch's tables held at a time."""
    MEMOS.clear()
    clear_name_memos()
    gc.collect()


@takes_rule_set
def sample_arch_stream(rule_set: RuleSet, selection: Selection, n: int, seed: int = 0, distinct: bool = False
                       ) -> Iterator[Record]:
    """``n`` records drawn uniformly from the selection, grouped by arch (:func:`arch_shares`): each arch's
    records are :func:`sample_stream` of its share with its seed, and only one arch is held at a time."""
    def draw(_arch, sets, m, arch_seed):
        return _records(sample_blocks(sets, m, arch_seed, distinct), rule_set.name)

    return _by_arch(rule_set, selection, n, seed, distinct, draw)


@takes_rule_set
def sample_arch_lines(rule_set: RuleSet, selection: Selection, n: int, seed: int = 0, distinct: bool = False
                      ) -> Iterator[str]:
    """:func:`sample_arch_stream`'s names as text blocks, each arch's after its ``# arch: A`` line (as
    ``enumerate`` writes a names file over several archs; ``check`` reads it back)."""
    def draw(arch, sets, m, arch_seed):
        yield section_line(arch) + "\n"
        yield from sample_name_blocks(sets, m, arch_seed, distinct)

    return _by_arch(rule_set, selection, n, seed, distinct, draw)


def _by_arch(rule_set, selection, n, seed, distinct, draw) -> Iterator:
    """``draw(arch, its solution sets, its draws, its seed)``'s items per arch: each arch solved (not when it
    has no draw), then every memo emptied, so the solver's tables and the decoder's are not held at once (the
    sets keep what their draws decode), and one arch's sets at a time."""
    shares = arch_shares(rule_set, selection, n, seed, distinct)
    for i, (part, m, arch_seed) in enumerate(shares, 1):
        phase(f"drawing {m:,} configs of {part.archs[0]}: arch", i, len(shares))
        sets = solution_sets(rule_set, part) if m else []
        _release()
        yield from draw(part.archs[0], sets, m, arch_seed)
        del sets
