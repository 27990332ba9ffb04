"""Selections derived from solved rule sets (``full-tests``, ``tiny``): above the solver, below workloads.

The rule-set registry (:mod:`cksolve.rulesets.builtin`) names their module by an import
string and loads it the first time one of them is asked for; importing this package loads only the
minimum cover (:mod:`.cover`, plain Python: tiny's selection), which it re-exports.
"""

from .cover import CoverError, minimum_cover

__all__ = ["minimum_cover", "CoverError"]
