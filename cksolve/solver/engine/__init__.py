"""The direct engine: one model solved into a factorised product of components, never listing it.

Re-export only; the modules are the engine's steps::

    direct        propagate, push down, factorise, join: solve(model) -> SolutionSet
    relations     constraints reduced by a combination's fixed axes, and the row operations on them
    solve_plan    push-down, components and leaves, made once per relation shape
    solutions     what a solve returns: components of core rows extended by leaves
    counting      counting a component too large to list (SpaceTooLarge past the bounds)
    conditioning  a component too large to join: tabulate, split, condition, join the pieces
    verdicts      a filter's verdicts over a product of domains (what conditioning tabulates)

Below the listing, the sampling and the questions on a model (``cksolve.solver``'s other rooms), above the
model (:mod:`cksolve.solver.model`).
"""

from .counting import SpaceTooLarge
from .direct import SolutionSet, solve
from .relations import key_getter
from .solve_plan import connected

__all__ = ["SolutionSet", "solve", "SpaceTooLarge", "key_getter", "connected"]
