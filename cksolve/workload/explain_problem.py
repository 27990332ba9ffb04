"""``explain --problem``: why a kernel can or cannot run one problem, in words."""

from __future__ import annotations

from ..solver import Explanation, explanation
from ..space.constraints import scope_values
from ..rulesets import RuleSet, candidate_rule_sets
from .problem import Problem
from .rules import applicability_constraints

__all__ = ["explain_on_problem", "runs"]


def runs(config, arch: str, problem: Problem) -> bool:
    """Whether ``config`` meets every applicability rule of the problem (arch validity aside)."""
    rules = applicability_constraints(problem.facts(), arch, config.dtype, config.kind)
    return all(c.holds(scope_values(config, c.scope)) for c in rules)


def explain_on_problem(config, arch: str, problem: Problem, rule_set: RuleSet | None = None,
                       how_many: int = 3) -> Explanation:
    """The usual explanation, then every applicability rule the kernel fails for the problem.

    The nearest configs offered are ones that can run the problem.
    """
    extra = applicability_constraints(problem.facts(), arch, config.dtype, config.kind)
    return explanation(config, arch, rule_set, how_many, extra=extra,
                   keep=lambda c: runs(c, arch, problem), problem=problem.spec(),
                   candidates=candidate_rule_sets() if rule_set is None else ())
