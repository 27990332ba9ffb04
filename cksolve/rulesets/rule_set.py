"""What a rule set is: a name, a description and extra constraints per combination.

A rule set never filters or prints anything itself. For one
(arch, variant, dtype, ndim) it returns constraints -- mostly tables -- which
the solver intersects with the arch constraints. Axes a rule set does not pin
are free over their whole domain, so every rule set pins all of them
(``pin_defaults`` helps with the ones it leaves at CK's defaults).
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ..errors import CksolveError
from ..space.axes import AXES, kind_axes
from ..space.combo import Combo, kind_of
from ..space.config import KernelConfig
from ..space.constraints import Constraint, Table, interned, scope_values
from ..space.kinds import GEMM

__all__ = ["Combo", "RuleSet", "RuleSetError", "pin", "pin_defaults", "nothing", "table", "configs_table",
           "GEMM_DEFAULTS", "kind_of"]


class RuleSetError(CksolveError, ValueError):
    """A rule set cannot be loaded (missing or malformed data)."""


class RuleSet:
    """Base class; subclasses implement :meth:`constraints`."""

    name: str = ""

    #: one line: a built-in rule set's lives in the registry, which lists it before its module loads, and
    #: :func:`.named.named_rule_set` gives it to the rule set it builds; a file's is the file's own
    description: str = ""

    #: problems met while loading that did not stop it (e.g. a .conf line the Builder drops)
    warnings: Sequence[str] = ()
    #: the user files it was read from (a rule-set file and what it extends): what a build must watch
    files: tuple = ()

    def constraints(self, combo: Combo) -> Sequence[Constraint]:  # pragma: no cover - interface
        raise NotImplementedError


#: CK's defaults for the axes most rule sets do not vary: a config's field defaults (one
#: place for them) and CK's default scheduler, in the order rule sets pin them.
GEMM_DEFAULTS: Mapping[str, object] = {
    "layout": KernelConfig._field_defaults["layout"],
    "scheduler": "intrawave",
    **KernelConfig._field_defaults,
}


def table(name: str, scope: Sequence[str], rows: Iterable[tuple], message: str, source: str,
          applies_to: str = GEMM.name, doc: str = "") -> Table:
    # interned: equal tables of different combinations are one object, so the solve
    # caches keyed on them compare by identity; a frozenset of rows is kept as it is (its hash too)
    rows = rows if type(rows) is frozenset else frozenset(map(tuple, rows))
    return interned(Table(name, tuple(scope), rows, message, source, applies_to=applies_to, doc=doc))


def configs_table(name: str, kind: str, configs: Iterable, message: str, source: str, doc: str = "") -> Table:
    """An allowed table over every axis of the kind, one row per config: exactly these kernels."""
    axes = kind_axes(kind)
    return table(name, axes, (scope_values(c, axes) for c in configs), message, source, applies_to=kind, doc=doc)


def pin(rule_set: str, axis: str, values: Iterable, source: str, applies_to: str = GEMM.name) -> Table:
    """A unary table: ``axis`` takes one of ``values`` in this rule set."""
    values = tuple(values)
    return table(
        f"rules.{rule_set}.{axis}", (axis,), ((v,) for v in values),
        f"{rule_set}: {axis}={{{axis}}} is not one of {list(values)}", source, applies_to,
    )


def nothing(rule_set: str, kind: str, source: str) -> Table:
    """An empty table: the rule set has no kernels of this kind for the combination."""
    return table(f"rules.{rule_set}.no_{kind}", ("variant",), (), f"{rule_set} has no {kind} kernels for {{variant}}",
                 source, applies_to=kind)


def pin_defaults(rule_set: str, source: str, skip: Iterable[str] = ()) -> list[Table]:
    skip = set(skip)
    return [pin(rule_set, axis, (value,), source) for axis, value in GEMM_DEFAULTS.items() if axis not in skip]


def _check_axes() -> None:
    missing = set(GEMM_DEFAULTS) - set(AXES)
    if missing:  # pragma: no cover - guards the data files
        raise RuleSetError(f"defaults name unknown axes: {sorted(missing)}")


_check_axes()
