"""Counting and sampling a rule set over a selection, whatever it leaves free (the library side of
``count`` and ``sample``).

Counts come from the solver's factorisation (exact Python integers, never a
listing); draws walk the same factorisation (``solver.sampling``), so both work
on the whole space -- a rule-set file with only ``kind = "gemm"`` has
between 10^9 and 10^13 configs per combination.
"""

from __future__ import annotations

from functools import partial
from typing import Iterator

from ..errors import CksolveError
from ..query import Record, Selection, count_records
from ..rulesets.base import RuleSet
from ..solver import SolutionSet, SpaceTooLarge, sample_blocks, sample_name_blocks, solve_combo
from ..space.spelling import clear_name_memos

__all__ = ["count", "sample", "sample_stream", "sample_names", "solution_sets"]


def count(rule_set: RuleSet, selection: Selection) -> dict:
    """Configs per combination of the selection (exact), as ``count`` prints them."""
    return count_records(rule_set, selection)


def solution_sets(rule_set: RuleSet, selection: Selection) -> list[tuple[object, SolutionSet]]:
    """(combination, its solutions) for every combination of the selection, in selection order."""
    out = []
    for combo in selection.combos():
        try:
            out.append((combo, solve_combo(rule_set, combo)))
        except SpaceTooLarge as exc:
            raise CksolveError(f"{rule_set.name or 'rule set'} is too large to sample for {combo.key} ({exc})") from None
    return out


def sample(rule_set: RuleSet, selection: Selection, n: int, seed: int = 0, distinct: bool = False) -> list[Record]:
    """``n`` records drawn exactly uniformly from every valid config of the selection.

    The same seed gives the same records. ``distinct`` draws without replacement.
    """
    return list(sample_stream(rule_set, selection, n, seed, distinct))


def sample_stream(rule_set: RuleSet, selection: Selection, n: int, seed: int = 0,
                  distinct: bool = False) -> Iterator[Record]:
    """:func:`sample`'s records, in the same order, drawn and decoded in blocks: memory does not grow with
    ``n`` (``distinct`` remembers the indices it drew: O(n)). A bad request is refused before the first."""
    blocks = sample_blocks(solution_sets(rule_set, selection), n, seed, distinct)
    return _records(blocks, rule_set.name)


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
