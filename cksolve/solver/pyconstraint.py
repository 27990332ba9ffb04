"""The python-constraint backend: an independent second solver.

It shares nothing with the direct backend but the model: its own search, its
own propagation. Tests compare the two (and CP-SAT) on random selections, so a
bug in one join or compilation shows up as a difference.
"""

from __future__ import annotations

from constraint import FunctionConstraint, Problem

from .model import Model, prune_domains

__all__ = ["enumerate_solutions"]


def _test(constraint):
    def test(*values):
        return constraint.holds(values)

    return test


def enumerate_solutions(model: Model) -> list:
    domains = prune_domains(model.constraints, {a: tuple(model.domains[a]) for a in model.axes})
    if any(len(d) == 0 for d in domains.values()):
        return []
    problem = Problem()
    for axis in model.axes:
        problem.addVariable(axis, list(domains[axis]))
    for c in model.constraints:
        problem.addConstraint(FunctionConstraint(_test(c)), list(c.scope))
    configs = [model.make_config(s) for s in problem.getSolutions()]
    configs.sort(key=lambda c: c.name())
    return configs
