"""The python-constraint backend: an independent second solver.

It shares nothing with the direct backend but the model: its own search, its
own propagation. Tests compare the two (and CP-SAT) on random selections, so a
bug in one join or compilation shows up as a difference.
"""

from __future__ import annotations

from typing import Mapping

from constraint import FunctionConstraint, Problem

from .backend_protocol import CannotCount
from .model import Model, prune_domains

__all__ = ["enumerate_solutions", "find_one", "PythonConstraint"]


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


def find_one(model: Model, pins: dict | None = None):
    """One config of the model agreeing with ``pins``, or None: a witness, found by backtracking.

    Existence questions (is this pipeline/scheduler pair possible at all?) need
    one solution, not all of them; a full solve of the unrestricted space joins
    millions of core rows, while the search stops at the first.
    """
    domains = {a: tuple(model.domains[a]) for a in model.axes}
    for axis, value in (pins or {}).items():
        domains[axis] = tuple(v for v in domains[axis] if v == value)
    domains = prune_domains(model.constraints, domains)
    if any(len(d) == 0 for d in domains.values()):
        return None
    problem = Problem()
    for axis in model.axes:
        # The search tries a domain's last value first; reversed, the witness takes the first
        # values (CK's defaults: no feature flags, the nhwgc layout) wherever it can.
        problem.addVariable(axis, list(reversed(domains[axis])))
    for c in model.constraints:
        problem.addConstraint(FunctionConstraint(_test(c)), list(c.scope))
    solution = problem.getSolution()
    return None if solution is None else model.make_config(solution)


class PythonConstraint:
    """The ``python-constraint`` backend (:mod:`.backends`): python-constraint's backtracking search."""

    name = "python-constraint"
    can_count = False

    def enumerate(self, model: Model) -> list:
        return enumerate_solutions(model)

    def count(self, model: Model) -> int:
        raise CannotCount.backend(self.name)

    def is_feasible(self, model: Model, pins: Mapping[str, object]) -> bool:
        return find_one(model, dict(pins)) is not None

    def find_one(self, model: Model, pins: Mapping[str, object] | None = None):
        return find_one(model, dict(pins or {}))
