"""Building the model for one (arch, variant, dtype, ndim): axes, domains, constraints.

The model is built here and solved elsewhere (``direct``, ``cpsat``,
``pyconstraint``), as in OR-Tools' own examples: every backend sees the same
variables, domains and constraint values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from ..arch.arch_constraints import constraints_for
from ..space.axes import AXES, SELECTION_AXES, kind_axes
from ..space.canonical import space_constraints
from ..space.combo import Combo, ConstraintSource, kind_of
from ..space.kinds import kernel_kind
from ..space.constraints import Constraint, Table

__all__ = ["Model", "build_model", "config_class", "kind_axes", "prune_domains"]


def config_class(kind: str):
    return kernel_kind(kind).config


@dataclass(frozen=True)
class Model:
    """One combination's axes, domains and constraints, as every backend sees them."""

    combo: Combo
    kind: str
    axes: tuple[str, ...]
    domains: Mapping[str, tuple]
    constraints: tuple[Constraint, ...]

    def make_config(self, values: Mapping[str, object]):
        return config_class(self.kind)(**{a: values[a] for a in self.axes})


def build_model(combo: Combo, rule_set: ConstraintSource | None = None, extra: Iterable[Constraint] = ()) -> Model:
    """Space and arch constraints for the combo's kernel kind, ``rule_set``'s for the combo, and ``extra``.

    ``rule_set`` is any source of constraints per combination (a rule set is one);
    the solver never imports the rule sets themselves.
    """
    kind = kind_of(combo.variant)
    axes = kind_axes(kind)
    domains = {a: AXES[a].domain for a in axes}
    for axis in SELECTION_AXES:
        domains[axis] = (getattr(combo, axis),)
    constraints = [*space_constraints(kind), *constraints_for(combo.arch, kind)]
    if rule_set is not None:
        constraints.extend(rule_set.constraints(combo))
    constraints.extend(extra)
    # equal constraints once: a rule-set file extending two files that both extend `full` brings full's
    # tables twice, and the solve plan maps relations by identity (a repeated one would be joined twice)
    constraints = tuple(dict.fromkeys(c for c in constraints if c.applies_to == kind))
    return Model(combo, kind, axes, domains, constraints)


def prune_domains(constraints, domains: dict) -> dict:
    """Shrink domains to a fixpoint: unary tests, and projections of allowed tables.

    Backends that tabulate checks over domain products (CP-SAT, python-constraint)
    need this so that a check's table covers only values some rule-set row uses.
    """
    domains = {a: tuple(d) for a, d in domains.items()}
    changed = True
    while changed:
        changed = False
        for c in constraints:
            if any(len(domains[a]) == 0 for a in c.scope):
                return domains
            if isinstance(c, Table) and not c.forbid:
                live = c.allowed_rows(domains)
                for i, a in enumerate(c.scope):
                    seen = {r[i] for r in live}
                    kept = tuple(v for v in domains[a] if v in seen)
                    if kept != domains[a]:
                        domains[a], changed = kept, True
                continue
            free = [a for a in c.scope if len(domains[a]) > 1]
            if len(free) != 1:
                if not free and not c.holds(tuple(domains[a][0] for a in c.scope)):
                    domains[c.scope[0]], changed = (), True
                continue
            axis = free[0]
            kept = tuple(
                v for v in domains[axis]
                if c.holds(tuple(v if a == axis else domains[a][0] for a in c.scope))
            )
            if kept != domains[axis]:
                domains[axis], changed = kept, True
    return domains
