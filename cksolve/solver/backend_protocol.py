"""What a solver backend is: the protocol every backend implements (``Backend``), the refusal of one that
cannot count without listing (``CannotCount``), and a model with axes pinned (``pinned``).

Below the registry of backends (:mod:`.backends`), so that each backend's module imports these and the
registry names the backends' modules without a cycle.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Protocol, runtime_checkable

from ..errors import CksolveError
from .model import Model

__all__ = ["Backend", "CannotCount", "pinned"]


class CannotCount(CksolveError):
    """The backend cannot count without listing every config."""

    @classmethod
    def backend(cls, name: str) -> "CannotCount":
        """The refusal of the listing-only backend ``name`` (one sentence for every such backend)."""
        return cls(f"the {name} backend cannot count without listing every config; count with the direct backend "
                   f"(the default)")


@runtime_checkable
class Backend(Protocol):
    name: str
    can_count: bool

    def enumerate(self, model: Model) -> list: ...

    def count(self, model: Model) -> int: ...

    def is_feasible(self, model: Model, pins: Mapping[str, object]) -> bool: ...

    def find_one(self, model: Model, pins: Mapping[str, object] | None = None): ...


def pinned(model: Model, pins: Mapping[str, object] | None) -> Model:
    """The model with each pinned axis's domain cut to its value (empty if outside the domain)."""
    if not pins:
        return model
    domains = dict(model.domains)
    for axis, value in pins.items():
        domains[axis] = tuple(v for v in domains[axis] if v == value and type(v) is type(value))
    return replace(model, domains=domains)
