"""The solver's memos: registered with the process's one memo owner, :data:`cksolve.space.memos.MEMOS`.

The direct solver shares work across combinations: equal models, relations, reduced tables,
components and leaf options recur for every arch with the same rules, so each is memoised.
Every memo of every layer is registered with that one object (it lives in the lowest package so
that all layers can register); ``CACHE`` is the same object under the solver's old name, so
``CACHE.clear()`` frees everything the process memoised, not only the solver's part.
"""

from __future__ import annotations

from ..space.memos import MEMOS, Memos

__all__ = ["SolverCache", "CACHE"]

#: The memo owner's class, under the solver's name.
SolverCache = Memos
#: The process's memo owner (``cksolve.space.memos.MEMOS``).
CACHE = MEMOS
