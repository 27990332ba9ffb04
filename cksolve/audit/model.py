"""The one adapter between audit and the solver: a combination's constraints in groups.

Audit asks the same questions many times with constraints taken out or a row
pinned ("how many configs?", "which configs?"); everything it needs from the
solver goes through here.

The groups:

* ``space``: what makes a point a well-formed config (never questioned);
* ``arch``: the architecture rules, plus any rule a rule set adds from the arch
  layer (``arch.wmma_k``, which CK applies only to dtype-tagged configs): these
  judge what the rule set *proposes*;
* ``rules``: the rule set's other constraints; together with ``space`` they give
  the proposed configs;
* ``own``: the part of ``rules`` the rule set itself writes (a rule-set file's
  own tables, not its base's; ``tiny``'s selection, not ``full``'s tables):
  only these are audited for dead rows and idle constraints.
"""

from __future__ import annotations

from ..arch.constraints import constraints_for
from ..solver import Model, build_model, solve
from ..space.canonical import space_constraints
from ..space.constraints import Constraint, Table
from ..space.rulesets import Combo, RuleSet, kind_of

__all__ = ["Parts", "count", "configs", "pinned", "is_own"]


def is_own(rule_set: RuleSet, constraint: Constraint) -> bool:
    """Whether ``constraint`` is written by ``rule_set`` itself rather than inherited.

    A rule-set file lists its own constraints (``own``); a built-in rule set names
    its own ``rules.<name>.*``.
    """
    own = getattr(rule_set, "own", None)
    if own is not None:
        return any(c is constraint for c in own)
    return constraint.name.startswith(f"rules.{rule_set.name}.")


class Parts:
    """A combination's constraints in the groups audit reasons about (see the module docstring)."""

    def __init__(self, combo: Combo, rule_set: RuleSet):
        self.combo = combo
        self.kind = kind_of(combo.variant)
        base = build_model(combo)  # axes and domains with the selection fixed
        self.axes, self.domains = base.axes, base.domains
        mine = [c for c in rule_set.constraints(combo) if c.applies_to == self.kind]
        self.space = tuple(c for c in space_constraints(self.kind) if c.applies_to == self.kind)
        self.arch = tuple(c for c in constraints_for(combo.arch, self.kind) if c.applies_to == self.kind) + \
            tuple(c for c in mine if c.name.startswith("arch."))
        self.rules = tuple(c for c in mine if not c.name.startswith("arch."))
        self.own = tuple(c for c in self.rules if is_own(rule_set, c))

    @property
    def proposal(self) -> tuple[Constraint, ...]:
        return self.space + self.rules

    @property
    def everything(self) -> tuple[Constraint, ...]:
        return self.space + self.rules + self.arch

    def model(self, constraints) -> Model:
        return Model(self.combo, self.kind, self.axes, self.domains, tuple(constraints))


def count(p: Parts, constraints) -> int:
    return solve(p.model(constraints)).count()


def configs(p: Parts, constraints) -> list:
    return solve(p.model(constraints)).configs()


def pinned(scope: tuple, row: tuple, kind: str) -> Table:
    """A one-row allowed table: the configs that use ``row`` on ``scope``."""
    return Table("audit.pin", scope, frozenset([row]), "audit pin", applies_to=kind)
