"""The whole valid space: count it, draw from it uniformly, search it (re-exports only).

``count`` and ``sample`` work on any rule set, including a rule-set file that
constrains nothing, without listing its configs (``count`` is ``query.count_records``,
the one count; it and ``query.enumerate_records`` take ``backend=``); ``check_with``
asks a chosen solver backend (``solver.backends.BACKENDS``: direct, cpsat, python-constraint);
``search`` searches with one of ``SEARCH_BACKENDS`` by one of ``SEARCH_OBJECTIVES``
(the performance model by default; the padding score with CP-SAT).
"""

from ..query import count_records as count  # the one count (re-exported: explore counts the whole space)
from .backend_check import BACKENDS, check_with
from .sampling import arch_shares, sample, sample_arch_lines, sample_arch_stream, sample_names, sample_stream
from .search import RANK_POOL, SEARCH_BACKENDS, SEARCH_OBJECTIVES, TIME_LIMIT, search, tie_note, cost_notes

__all__ = ["count", "sample", "sample_names", "sample_stream", "arch_shares", "sample_arch_lines", "sample_arch_stream", "search", "check_with", "BACKENDS", "SEARCH_BACKENDS", "SEARCH_OBJECTIVES",
           "TIME_LIMIT", "RANK_POOL", "tie_note", "cost_notes"]
