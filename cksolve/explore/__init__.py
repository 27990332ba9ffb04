"""The whole valid space: count it, draw from it uniformly, search it (re-exports only).

``count`` and ``sample`` work on any rule set, including a rule-set file that
constrains nothing, without listing its configs; ``*_with`` ask a chosen solver
backend (``BACKENDS``: direct, cpsat, python-constraint).
"""

from .backends import BACKENDS, check_with, count_with, enumerate_with
from .sampling import count, sample, solution_sets
from .search import SearchResult, search

__all__ = ["count", "sample", "solution_sets", "BACKENDS", "check_with", "count_with", "enumerate_with",
           "SearchResult", "search"]
