"""Why two sets of configs differ, along their axes (shared by ``diff`` and ``audit``'s containment)."""

from __future__ import annotations

from collections import Counter
from typing import Mapping

__all__ = ["FEATURE_AXES", "axis_breakdown"]

#: Axes whose values name a kernel feature; a diff is broken down along them even
#: when both sides use the same values (e.g. a subset that keeps every pipeline).
FEATURE_AXES = ("pipeline", "scheduler", "specialization", "groups_to_merge", "two_stage", "explicit_gemm",
                "split_image", "streamk", "double_smem_buffer")


def axis_breakdown(only: Mapping[str, object], other: Mapping[str, object]) -> tuple[tuple[str, object, int, bool], ...]:
    """(axis, value, count, exclusive) for the configs only on one side.

    First the axis values the other side never uses (exclusive), most frequent
    first; then the feature axes' values that split the one-sided configs.
    """
    if not only:
        return ()
    present: dict[str, set] = {}
    for c in other.values():
        for k, v in c.as_dict().items():
            present.setdefault(k, set()).add(v)
    exclusive: Counter = Counter()
    features: Counter = Counter()
    for c in only.values():
        for k, v in c.as_dict().items():
            if v not in present.get(k, ()):
                exclusive[(k, v)] += 1
            elif k in FEATURE_AXES:
                features[(k, v)] += 1
    # A feature value every one-sided config shares says nothing about the difference.
    features = Counter({kv: n for kv, n in features.items() if n < len(only)})

    def ranked(counts):
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0], repr(kv[0][1])))

    return tuple((k, v, n, True) for (k, v), n in ranked(exclusive)) + \
        tuple((k, v, n, False) for (k, v), n in ranked(features))
