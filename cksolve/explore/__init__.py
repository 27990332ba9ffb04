"""The whole valid space: count it and draw from it uniformly (re-exports only).

``count`` and ``sample`` work on any rule set, including a rule-set file that
constrains nothing, without listing its configs.
"""

from .sampling import count, sample, solution_sets

__all__ = ["count", "sample", "solution_sets"]
