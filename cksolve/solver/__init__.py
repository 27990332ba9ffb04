"""Solving models: the direct join backend, CP-SAT, python-constraint, evaluation.

Public entry points::

    solve_combo(rule_set, combo)      -> SolutionSet (factorised; .count(), .configs())
    enumerate_combo(rule_set, combo)  -> configs of the combo in canonical name order
    evaluate(config, arch, rule_set)  -> violations of one config (see ``evaluate``)
"""

from __future__ import annotations

from .cache import CACHE, SolverCache
from .direct import SolutionSet, solve
from .model import Model, build_model

__all__ = ["CACHE", "Model", "SolutionSet", "SolverCache", "build_model", "solve", "solve_combo", "enumerate_combo"]


def solve_combo(rule_set, combo) -> SolutionSet:
    return solve(build_model(combo, rule_set))


def enumerate_combo(rule_set, combo) -> list:
    """Every config of ``rule_set`` valid for the combo, sorted by kernel name."""
    configs = solve_combo(rule_set, combo).configs()
    configs.sort(key=lambda c: c.name())
    return configs
