"""The solver's memos, owned by one object.

The direct solver shares work across combinations: equal models, relations,
reduced tables, components and leaf options recur for every arch with the same
rules, so each is memoised. Those memos used to be a dozen module-level dicts
and ``lru_cache``s nobody could empty or measure; now every one is registered
here by name, so a long-lived process (a notebook, a service) can ``clear()``
them all and ``sizes()`` says what they hold.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

__all__ = ["SolverCache", "CACHE"]


class SolverCache:
    """Named memos: plain dicts (``memo``) and memoised functions (``cached``)."""

    def __init__(self) -> None:
        self._dicts: dict[str, dict] = {}
        self._functions: dict[str, Callable] = {}

    def memo(self, name: str) -> dict:
        """A new empty dict owned by the cache under ``name``."""
        if name in self._dicts or name in self._functions:
            raise ValueError(f"solver cache {name!r} is registered twice")
        d: dict = {}
        self._dicts[name] = d
        return d

    def cached(self, name: str, maxsize: int | None = None):
        """Decorator: ``functools.lru_cache`` whose entries the cache owns under ``name``."""
        if name in self._dicts or name in self._functions:
            raise ValueError(f"solver cache {name!r} is registered twice")

        def wrap(fn: Callable) -> Callable:
            memoised = lru_cache(maxsize=maxsize)(fn)
            self._functions[name] = memoised
            return memoised

        return wrap

    def clear(self) -> None:
        """Forget everything; the next solves recompute (same results, slower)."""
        for d in self._dicts.values():
            d.clear()
        for fn in self._functions.values():
            fn.cache_clear()

    def sizes(self) -> dict[str, int]:
        """Entries per memo, by name (sorted)."""
        out = {name: len(d) for name, d in self._dicts.items()}
        out.update((name, fn.cache_info().currsize) for name, fn in self._functions.items())
        return dict(sorted(out.items()))

    def __len__(self) -> int:
        return sum(self.sizes().values())

    def report(self) -> str:
        """One line per non-empty memo: ``name: entries``."""
        return "".join(f"{name}: {n}\n" for name, n in self.sizes().items() if n)


#: The process's solver cache (models and relations are shared values, so one cache serves every solve).
CACHE = SolverCache()
