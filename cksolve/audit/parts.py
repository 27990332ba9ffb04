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

from functools import cached_property

from ..arch.arch_constraints import constraints_for
from ..solver import Model, build_model, solve
from ..space.canonical import space_constraints
from ..space.constraints import Constraint, Table
from ..rulesets import Combo, RuleSet, kind_of

__all__ = ["Parts", "count", "pinned", "is_own"]


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

    @cached_property
    def vocabulary(self) -> dict[str, tuple]:
        """Per axis, the values the rule set's allowed tables use (the whole domain where none covers it).

        Questions that take a rule-set table out are asked over these values:
        without its table an axis would otherwise range over every value cksolve
        knows, and "removing the tile table admits tile 512" says nothing about
        the rule set.
        """
        used: dict[str, set] = {}
        for t in self.rules:
            if isinstance(t, Table) and not t.forbid:
                for i, a in enumerate(t.scope):
                    used.setdefault(a, set()).update(r[i] for r in t.rows)
        # an empty table empties the model anyway; keep the domain so the solver sees no empty axis
        return {a: tuple(v for v in d if v in used.get(a, d)) or d for a, d in self.domains.items()}

    def covered_elsewhere(self, constraint: Constraint) -> bool:
        """Whether every axis of ``constraint`` is bounded by another allowed rule-set table."""
        others = {a for t in self.rules if t is not constraint and isinstance(t, Table) and not t.forbid
                  for a in t.scope}
        return all(a in others or len(self.domains[a]) == 1 for a in constraint.scope)

    @property
    def proposal(self) -> tuple[Constraint, ...]:
        return self.space + self.rules

    @property
    def everything(self) -> tuple[Constraint, ...]:
        return self.space + self.rules + self.arch

    def model(self, constraints, vocabulary: bool = False) -> Model:
        domains = self.vocabulary if vocabulary else self.domains
        return Model(self.combo, self.kind, self.axes, domains, tuple(constraints))


def count(p: Parts, constraints, vocabulary: bool = False) -> int:
    return solve(p.model(constraints, vocabulary)).count()


def pinned(scope: tuple, row: tuple, kind: str) -> Table:
    """A one-row allowed table: the configs that use ``row`` on ``scope``."""
    return Table("audit.pin", scope, frozenset([row]), "audit pin", applies_to=kind)
