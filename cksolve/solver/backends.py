"""The backend seam: a registry of the solvers that implement one small protocol (:mod:`.backend_protocol`).

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

from ..registry import LazyRegistry
from ..space.memos import MEMOS
from .backend_protocol import Backend, CannotCount, pinned

__all__ = ["Backend", "BACKENDS", "CannotCount", "get_backend", "pinned", "DEFAULT_BACKEND"]


#: name -> the backend's class, "module:Class": each backend is a module of its own, imported the first time
#: it is asked for (OR-Tools takes 0.5 s to load, and only cpsat uses it). The first is the default. A new
#: backend is one module and one line here; tests/test_backends.py runs the same conformance questions over
#: every entry, tests/test_registries.py the registry's.
BACKENDS = LazyRegistry("backend", {
    "direct": "cksolve.solver.direct_backend:Direct",
    "cpsat": "cksolve.solver.cpsat:CpSat",
    "python-constraint": "cksolve.solver.pyconstraint:PythonConstraint",
})
DEFAULT_BACKEND = "direct"
_LOADED = MEMOS.memo("solver.backends")  # name -> the backend, made once


def get_backend(name: str | None) -> Backend:
    """The backend called ``name`` (None: the default), its module imported on first use."""
    if name is None:
        name = DEFAULT_BACKEND
    backend = _LOADED.get(name)
    if backend is None:
        backend = _LOADED[name] = BACKENDS.get(name)()
    return backend
