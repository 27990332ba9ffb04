"""The one adapter between audit and the solver: models of a combination with chosen constraints.

Audit asks "how many configs with these constraints?" many times over, with
constraints removed or rows pinned; everything it needs from the solver goes
through here.
"""

from __future__ import annotations

from ..arch.constraints import constraints_for
from ..space.canonical import space_constraints
from ..space.constraints import Table
from ..space.rulesets import Combo, RuleSet, kind_of
from ..solver import Model, build_model, solve

__all__ = ["Parts", "parts", "count", "configs", "pinned"]


class Parts:
    """A combination's constraints in three groups: the space's, the arch's and the rule set's."""

    def __init__(self, combo: Combo, rule_set: RuleSet):
        self.combo = combo
        self.kind = kind_of(combo.variant)
        base = build_model(combo)  # axes and domains with the selection fixed
        self.axes, self.domains = base.axes, base.domains
        self.space = tuple(c for c in space_constraints(self.kind) if c.applies_to == self.kind)
        self.arch = tuple(c for c in constraints_for(combo.arch, self.kind) if c.applies_to == self.kind)
        self.rules = tuple(c for c in rule_set.constraints(combo) if c.applies_to == self.kind)

    def model(self, constraints) -> Model:
        return Model(self.combo, self.kind, self.axes, self.domains, tuple(constraints))


def parts(combo: Combo, rule_set: RuleSet) -> Parts:
    return Parts(combo, rule_set)


def count(p: Parts, constraints) -> int:
    return solve(p.model(constraints)).count()


def configs(p: Parts, constraints) -> list:
    return solve(p.model(constraints)).configs()


def pinned(scope: tuple, row: tuple, kind: str) -> Table:
    """A one-row allowed table: the configs that use ``row`` on ``scope``."""
    return Table("audit.pin", scope, frozenset([row]), "audit pin", applies_to=kind)
