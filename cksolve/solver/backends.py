"""The backend seam: one small protocol, a registry of the solvers that implement it.

Every backend answers the same four questions about a :class:`~.model.Model`:

``enumerate(model)``
    every config, sorted by kernel name;
``count(model)``
    how many (a backend that can only count by listing says so:
    :class:`CannotCount`);
``is_feasible(model, pins)``
    whether some config agrees with ``pins`` (axis -> value; a complete config
    is a membership test);
``find_one(model, pins)``
    one such config, or None.

``direct`` (the factorised join, the default) counts without listing and
draws configs by index; ``cpsat`` (OR-Tools CP-SAT) and ``python-constraint``
are independent searches used as cross-checks. A new backend is one module and
one line in :data:`BACKENDS`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Protocol

from ..errors import CksolveError
from .direct import solve
from .model import Model

__all__ = ["Backend", "BACKENDS", "CannotCount", "get_backend", "pinned", "DEFAULT_BACKEND"]


class CannotCount(CksolveError):
    """The backend cannot count without listing every config."""


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


def _by_name(configs) -> list:
    return sorted(configs, key=lambda c: c.name())


class Direct:
    """The factorised join (``direct``): counts as a product, lists only when asked."""

    name = "direct"
    can_count = True

    def enumerate(self, model: Model) -> list:
        return _by_name(solve(model).configs())

    def count(self, model: Model) -> int:
        return solve(model).count()

    def is_feasible(self, model: Model, pins: Mapping[str, object]) -> bool:
        narrowed = pinned(model, pins)
        return all(narrowed.domains[a] for a in narrowed.axes) and solve(narrowed).count() > 0

    def find_one(self, model: Model, pins: Mapping[str, object] | None = None):
        from .sampling import decode  # deferred: sampling imports this package's solutions

        narrowed = pinned(model, pins)
        if not all(narrowed.domains[a] for a in narrowed.axes):
            return None
        solutions = solve(narrowed)
        return decode(solutions, 0) if solutions.count() else None


class CpSat:
    """OR-Tools CP-SAT, single worker (``cpsat``): checks tabulated over pruned domains."""

    name = "cpsat"
    can_count = False

    def enumerate(self, model: Model) -> list:
        from . import cpsat  # deferred, here and below: OR-Tools takes 0.5 s to import, and only this backend uses it

        return cpsat.enumerate_solutions(model)

    def count(self, model: Model) -> int:
        raise CannotCount("the cpsat backend cannot count without listing every config; count with the direct "
                          "backend (the default)")

    def is_feasible(self, model: Model, pins: Mapping[str, object]) -> bool:
        from . import cpsat

        return cpsat.is_feasible(model, dict(pins))

    def find_one(self, model: Model, pins: Mapping[str, object] | None = None):
        from . import cpsat

        return cpsat.find_one(model, dict(pins or {}))


class PythonConstraint:
    """python-constraint's backtracking search (``python-constraint``)."""

    name = "python-constraint"
    can_count = False

    def enumerate(self, model: Model) -> list:
        from . import pyconstraint  # deferred, here and below: only this backend uses it

        return pyconstraint.enumerate_solutions(model)

    def count(self, model: Model) -> int:
        raise CannotCount("the python-constraint backend cannot count without listing every config; count with "
                          "the direct backend (the default)")

    def is_feasible(self, model: Model, pins: Mapping[str, object]) -> bool:
        from . import pyconstraint

        return pyconstraint.find_one(model, dict(pins)) is not None

    def find_one(self, model: Model, pins: Mapping[str, object] | None = None):
        from . import pyconstraint

        return pyconstraint.find_one(model, dict(pins or {}))


#: name -> backend; the first is the default.
BACKENDS: dict[str, Backend] = {b.name: b for b in (Direct(), CpSat(), PythonConstraint())}
DEFAULT_BACKEND = "direct"


def get_backend(name: str | None) -> Backend:
    if name is None:
        return BACKENDS[DEFAULT_BACKEND]
    try:
        return BACKENDS[name]
    except KeyError:
        raise CksolveError(f"unknown backend {name!r}; valid: {', '.join(BACKENDS)}") from None
