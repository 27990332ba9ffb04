"""The python-constraint backend: an independent second solver.

It shares nothing with the direct backend but the model: its own search, its
own propagation. Tests compare the two (and CP-SAT) on random selections, so a
bug in one join or compilation shows up as a difference.
"""

from __future__ import annotations

from constraint import FunctionConstraint, Problem

from ..space.constraints import Table
from .model import Model, prune_domains

__all__ = ["enumerate_solutions"]


def _table_test(rows, forbid):
    def test(*values):
        return (values in rows) != forbid

    return test


def _check_test(check):
    def test(*values):
        return check.holds(values)

    return test


def enumerate_solutions(model: Model) -> list:
    domains = prune_domains(model.constraints, {a: tuple(model.domains[a]) for a in model.axes})
    if any(len(d) == 0 for d in domains.values()):
        return []
    problem = Problem()
    for axis in model.axes:
        problem.addVariable(axis, list(domains[axis]))
    for c in model.constraints:
        test = _table_test(c.rows, c.forbid) if isinstance(c, Table) else _check_test(c)
        problem.addConstraint(FunctionConstraint(test), list(c.scope))
    configs = [model.make_config(s) for s in problem.getSolutions()]
    configs.sort(key=lambda c: c.name())
    return configs
