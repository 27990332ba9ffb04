"""The constraint vocabulary.

Constraints are values, not code paths: each has a stable ``name``, the axes it
touches (``scope``), a message template, the CK rule it encodes (``source``)
and a *form* that every backend can compile:

``Table``
    allowed (or, with ``forbid=True``, forbidden) tuples over the scope. Rule
    sets are mostly tables; CP-SAT gets ``AddAllowedAssignments`` /
    ``AddForbiddenAssignments``, python-constraint a membership test.
``Check``
    a named, parameterised test (a module-level function of the module that
    states it -- :mod:`cksolve.arch.arch_constraints`, :mod:`cksolve.rulesets.full`,
    :mod:`cksolve.workload.checks` -- never a lambda) over the scope values. It is the ground truth for
    the direct evaluator; the solvers compile it into a table over the
    (finite) domains of its scope, so arithmetic such as LDS bytes never becomes
    a multiplication constraint.

Both forms carry ``applies_to``: the config kind ("gemm" or "depthwise") they
constrain. Messages are ``str.format`` templates over the scope values, the
combination (``arch``, ``variant``, ``dtype``, ``ndim``) and whatever a check's
``details`` adds (e.g. the LDS byte count). Keeping the combination out of the
constraint itself lets equal tables of different combinations be one value,
which the solver shares work on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Any, Callable, Iterable, Mapping, Sequence

from .memos import MEMOS

__all__ = ["Constraint", "Table", "Check", "Violation", "interned", "scope_values"]


@dataclass(frozen=True)
class Violation:
    """A constraint a config breaks, and the message saying how."""

    constraint: str
    message: str


def scope_values(config: Any, scope: Sequence[str]) -> tuple:
    return tuple(getattr(config, axis) for axis in scope)


def _safe_format(template: str, values: Mapping[str, Any]) -> str:
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return template


@dataclass(frozen=True)
class Table:
    """Allowed (or, with ``forbid``, forbidden) tuples over ``scope``."""

    name: str
    scope: tuple[str, ...]
    rows: frozenset
    message: str
    source: str = ""
    forbid: bool = False
    applies_to: str = "gemm"
    doc: str = ""

    form = "table"

    def __post_init__(self):
        # Constraint tuples are cache keys for whole solves: hash each value once.
        object.__setattr__(self, "_hash", hash((self.name, self.scope, self.rows, self.forbid, self.applies_to)))

    def __hash__(self) -> int:
        return self._hash

    def holds(self, values: tuple) -> bool:
        return (values in self.rows) != self.forbid

    def explain(self, values: tuple, context: Mapping[str, Any] | None = None) -> str:
        return _safe_format(self.message, {**(context or {}), **dict(zip(self.scope, values))})

    def allowed_rows(self, domains: Mapping[str, Sequence]) -> list[tuple]:
        """Allowed tuples within ``domains`` (only needs enumeration for forbid tables)."""
        if not self.forbid:
            return [r for r in self.rows if all(v in domains[a] for a, v in zip(self.scope, r))]
        return [r for r in _product(domains, self.scope) if r not in self.rows]


@dataclass(frozen=True)
class Check:
    """A named test over ``scope`` (a module-level function with ``params``), memoised per values."""

    name: str
    scope: tuple[str, ...]
    test: Callable[..., bool]
    message: str
    source: str = ""
    params: tuple = ()
    details: Callable[..., Mapping[str, Any]] | None = None
    applies_to: str = "gemm"
    doc: str = ""
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    form = "check"

    def __post_init__(self):
        object.__setattr__(self, "_hash", hash((self.name, self.scope, self.test, self.params, self.applies_to)))

    def __hash__(self) -> int:
        return self._hash

    def holds(self, values: tuple) -> bool:
        cache = self._cache
        try:
            return cache[values]
        except KeyError:
            verdict = bool(self.test(*values, *self.params))
            cache[values] = verdict
            return verdict
        except TypeError:  # unhashable values: evaluate without memo
            return bool(self.test(*values, *self.params))

    def explain(self, values: tuple, context: Mapping[str, Any] | None = None) -> str:
        fields = {**(context or {}), **dict(zip(self.scope, values))}
        if self.details is not None:
            fields.update(self.details(*values, *self.params))
        return _safe_format(self.message, fields)

    def allowed_rows(self, domains: Mapping[str, Sequence]) -> list[tuple]:
        return [r for r in _product(domains, self.scope) if self.holds(r)]


Constraint = Table | Check


def _product(domains: Mapping[str, Sequence], scope: Iterable[str]) -> Iterable[tuple]:
    return product(*(domains[a] for a in scope))


_INTERNED: dict = MEMOS.memo("space.constraints.interned")


def interned(constraint: Constraint) -> Constraint:
    """The one object of the constraint's value.

    Archs with equal facts, and combinations with equal rules, produce equal
    constraints; as one object they compare by identity in the solve caches
    that key on them (equality of two distinct tables compares every row).
    """
    return _INTERNED.setdefault(constraint, constraint)
