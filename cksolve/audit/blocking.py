"""Minimal removal sets, found by a deletion filter (not guessed).

Given a predicate that holds when *every* candidate constraint is removed and
fails when none is, the filter puts candidates back one at a time, in order,
and leaves each back whenever the predicate still holds without it. What stays
removed is a set B whose removal makes the predicate hold and from which no
member can be put back: the predicate is monotone (removing more constraints
only adds configs), so a member that had to stay removed when it was tried
still has to at the end.

Two predicates are used. Over the arch rules the proposed configs are known,
each with the set of arch constraints it violates (a bit mask); removing a set
R of constraints brings back exactly the configs whose mask lies within R, so
the question is set arithmetic (``masks_removal``), cheap enough to find
*every* minimal set and keep the one that explains most. Over rule-set
constraints the configs are not known in advance and every test is a solve
(``minimal_removal`` with a counting predicate).
"""

from __future__ import annotations

from itertools import combinations, compress
from typing import Callable, Mapping, Sequence

from ..solver import key_getter

__all__ = ["minimal_removal", "masks_removal", "violation_masks", "EXHAUSTIVE"]

#: Up to this many distinct violated constraints, every minimal removal set is found and the best kept.
EXHAUSTIVE = 14


def minimal_removal(candidates: Sequence, holds_without: Callable[[frozenset], bool]) -> tuple:
    """The members of ``candidates`` (in their order) of a minimal set whose removal makes the predicate hold.

    ``holds_without(removed)`` answers for the model with the constraints of
    ``removed`` taken out. Returns () when the predicate already holds.
    """
    if holds_without(frozenset()):
        return ()
    removed = set(candidates)
    if not holds_without(frozenset(removed)):
        raise ValueError("the predicate fails even with every candidate removed")
    for c in candidates:
        trial = frozenset(removed - {c})
        if holds_without(trial):
            removed = set(trial)
    return tuple(c for c in candidates if c in removed)


def masks_removal(masks: Mapping[int, int], n_bits: int, more_than: float = 0) -> tuple[int, ...]:
    """Bits of a minimal set whose removal brings back more than ``more_than`` configs.

    ``masks`` maps a violation mask to the number of configs that have it.
    Among all minimal sets (found exhaustively over the bits some mask uses,
    when there are at most ``EXHAUSTIVE`` of them) the one that brings back the
    most configs is returned, then the smallest, then the first in constraint
    order: the explanation that accounts for most of the loss. With more bits
    the deletion filter finds one minimal set.
    """
    def back(allowed: int) -> int:
        return sum(n for m, n in masks.items() if m & ~allowed == 0)

    bits = sorted({b for m in masks for b in range(n_bits) if m >> b & 1})
    if len(bits) > EXHAUSTIVE:
        return minimal_removal(range(n_bits), lambda removed: back(sum(1 << b for b in removed)) > more_than)
    if back(0) > more_than:
        return ()
    found: list[int] = []
    for size in range(1, len(bits) + 1):
        for subset in combinations(bits, size):
            allowed = sum(1 << b for b in subset)
            if any(f & allowed == f for f in found):
                continue  # a proper subset already brings them back: not minimal
            if back(allowed) > more_than:
                found.append(allowed)
    best = min(found, key=lambda f: (-back(f), bin(f).count("1"), [b for b in bits if f >> b & 1]))
    return tuple(b for b in bits if best >> b & 1)


def violation_masks(rows: Sequence[tuple], fields: Sequence[str], constraints: Sequence) -> list[int]:
    """For each row (a config as a tuple over ``fields``), the bit mask of the constraints it violates.

    Each constraint is judged once per distinct value of its scope; the per-row
    work runs in C (``map``/``compress``).
    """
    at = {a: i for i, a in enumerate(fields)}
    masks = [0] * len(rows)
    for bit, c in enumerate(constraints):
        keys = list(map(key_getter(tuple(at[a] for a in c.scope)), rows))
        bad = {k for k in set(keys) if not c.holds(k)}
        if bad:
            flag = 1 << bit
            for i in compress(range(len(rows)), map(bad.__contains__, keys)):
                masks[i] |= flag
    return masks
