"""Minimal blocking sets, found by a deletion filter (not guessed).

Given a predicate that holds when *every* candidate constraint is removed and
fails when none is, the filter puts candidates back one at a time and keeps
each back whenever the predicate still holds without it. What remains is a set
B whose removal makes the predicate hold, and from which no member can be kept
back: the predicate is monotone (removing more constraints only adds configs),
so a member that had to stay removed when tested still has to at the end.
"""

from __future__ import annotations

from typing import Callable, Sequence

__all__ = ["minimal_removal"]


def minimal_removal(candidates: Sequence, holds_without: Callable[[frozenset], bool]) -> tuple:
    """The members of ``candidates`` (in their order) of a minimal set whose removal makes the predicate hold.

    ``holds_without(removed)`` answers for the model with the constraints of
    ``removed`` taken out. Returns () when the predicate already holds.
    """
    removed = set(candidates)
    if holds_without(frozenset()):
        return ()
    if not holds_without(frozenset(removed)):
        raise ValueError("the predicate fails even with every candidate removed")
    for c in candidates:
        trial = frozenset(removed - {c})
        if holds_without(trial):
            removed = set(trial)
    return tuple(c for c in candidates if c in removed)
