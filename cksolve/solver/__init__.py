"""Solving models: the direct join backend, CP-SAT, python-constraint, evaluation.

Public entry points::

    solve_combo(rule_set, combo)      -> SolutionSet (factorised; .count(), .configs())
    enumerate_combo(rule_set, combo)  -> configs of the combo in canonical name order
    evaluate(config, arch, rule_set)  -> violations of one config (see ``evaluate``)
"""

from __future__ import annotations

from .direct import SolutionSet, solve
from .model import Model, build_model
from .solutions import gc_paused

__all__ = ["Model", "SolutionSet", "build_model", "solve", "solve_combo", "enumerate_combo"]


def solve_combo(rule_set, combo) -> SolutionSet:
    return solve(build_model(combo, rule_set))


def enumerate_combo(rule_set, combo) -> list:
    """Every config of ``rule_set`` valid for the combo, sorted by kernel name.

    Combinations whose solutions are equal (archs with equal facts as far as
    the rule set reads them: half of ``full``'s 288) share one sorted list, so
    configs are formed and names sorted once per distinct solution set.
    """
    solutions = solve_combo(rule_set, combo)
    memo = solutions.memo
    ordered = memo.get("name_order")
    if ordered is None:
        with gc_paused():  # naming allocates as much as forming the configs
            configs = solutions.configs()
            configs.sort(key=_name)
            ordered = memo["name_order"] = tuple(configs)
    return list(ordered)


def _name(config) -> str:
    return config.name()
