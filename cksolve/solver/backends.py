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
are independent searches used as cross-checks. The registry names each
backend's module by a string (:data:`BACKENDS`): naming the backends loads none.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from typing import Mapping, Protocol, runtime_checkable

from ..errors import CksolveError
from ..space.memos import MEMOS
from .model import Model

__all__ = ["Backend", "BACKENDS", "CannotCount", "get_backend", "pinned", "DEFAULT_BACKEND"]


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


#: name -> where the backend is defined, "module:Class" relative to this package: each backend is a module of
#: its own, imported the first time it is asked for (OR-Tools takes 0.5 s to load, and only cpsat uses it).
#: The first is the default. A new backend is one module and one line here; tests/test_backends.py runs the
#: same conformance questions over every entry.
BACKENDS: dict[str, str] = {
    "direct": ".direct_backend:Direct",
    "cpsat": ".cpsat:CpSat",
    "python-constraint": ".pyconstraint:PythonConstraint",
}
DEFAULT_BACKEND = "direct"
_LOADED = MEMOS.memo("solver.backends")  # name -> the backend, made once


def get_backend(name: str | None) -> Backend:
    """The backend called ``name`` (None: the default), its module imported on first use."""
    if name is None:
        name = DEFAULT_BACKEND
    if name not in BACKENDS:
        raise CksolveError(f"unknown backend {name!r}; valid: {', '.join(BACKENDS)}")
    backend = _LOADED.get(name)
    if backend is None:
        module, cls = BACKENDS[name].split(":")
        backend = _LOADED[name] = getattr(importlib.import_module(module, __package__), cls)()
    return backend
