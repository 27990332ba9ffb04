"""The ``direct`` backend: the factorised join (:mod:`.direct`) behind the backend protocol (:mod:`.backends`)."""

from __future__ import annotations

from typing import Mapping

from .backend_protocol import pinned
from .engine.direct import solve
from .model import Model
from .sampling.uniform import decode

__all__ = ["Direct"]


class Direct:
    """The factorised join (``direct``): counts as a product, lists only when asked."""

    name = "direct"
    can_count = True

    def enumerate(self, model: Model) -> list:
        return sorted(solve(model).configs(), key=lambda c: c.name())

    def count(self, model: Model) -> int:
        return solve(model).count()

    def is_feasible(self, model: Model, pins: Mapping[str, object]) -> bool:
        narrowed = pinned(model, pins)
        return all(narrowed.domains[a] for a in narrowed.axes) and solve(narrowed).count() > 0

    def find_one(self, model: Model, pins: Mapping[str, object] | None = None):
        narrowed = pinned(model, pins)
        if not all(narrowed.domains[a] for a in narrowed.axes):
            return None
        solutions = solve(narrowed)
        return decode(solutions, 0) if solutions.count() else None
