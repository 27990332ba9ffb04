"""The process's memos, owned by one object: every cache cksolve keeps, registered by name.

cksolve memoises at every layer: parsed data files and arch facts, names of configs, rule sets
and their tables, interned constraints, the solver's models, relations and solutions, derived
selections, rendered skeletons, applicability rules, audit results. A long-lived process (a
notebook, a service) must be able to see and free all of it, so none is a bare module-level dict
or ``lru_cache``: each is registered here -- by the module that owns it, at import -- and
``MEMOS.clear()`` empties every one (results stay the same; the next calls recompute them),
``sizes()`` says what each holds. It lives in the lowest package so every layer can register.
Only state that is not a memo stays outside (the set of live temporary output files, which
its signal handlers need).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

__all__ = ["Memos", "MEMOS"]


class Memos:
    """Named memos: plain containers (``memo``) and memoised functions (``cached``)."""

    def __init__(self) -> None:
        self._containers: dict[str, dict | set] = {}
        self._functions: dict[str, Callable] = {}

    def _claim(self, name: str) -> None:
        if name in self._containers or name in self._functions:
            raise ValueError(f"memo {name!r} is registered twice")

    def memo(self, name: str, kind: type = dict):
        """A new empty container (``dict`` or ``set``) owned under ``name``."""
        self._claim(name)
        container = kind()
        self._containers[name] = container
        return container

    def cached(self, name: str, maxsize: int | None = None):
        """Decorator: ``functools.lru_cache`` whose entries are owned under ``name`` (methods too)."""
        self._claim(name)

        def wrap(fn: Callable) -> Callable:
            memoised = lru_cache(maxsize=maxsize)(fn)
            self._functions[name] = memoised
            return memoised

        return wrap

    def clear(self) -> None:
        """Forget everything; later calls recompute (same results, slower)."""
        for c in self._containers.values():
            c.clear()
        for fn in self._functions.values():
            fn.cache_clear()

    def sizes(self) -> dict[str, int]:
        """Entries per memo, by name (sorted)."""
        out = {name: len(c) for name, c in self._containers.items()}
        out.update((name, fn.cache_info().currsize) for name, fn in self._functions.items())
        return dict(sorted(out.items()))

    def names(self) -> tuple[str, ...]:
        return tuple(sorted((*self._containers, *self._functions)))

    def __len__(self) -> int:
        return sum(self.sizes().values())

    def report(self) -> str:
        """One line per non-empty memo: ``name: entries``."""
        return "".join(f"{name}: {n}\n" for name, n in self.sizes().items() if n)


#: The process's memos (one object: models, relations and rule sets are shared values).
MEMOS = Memos()
