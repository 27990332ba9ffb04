"""Splitting a plan into shards of about equal estimated GPU time (longest-processing-time first).

The unit is a problem's pairs of one trait combination (they are one problem of one tile-engine run,
``tile_engine``), weighted by its estimated GPU time: the analytic latency estimates times the
runner's repeats. Units go, heaviest first (ties: plan order), to the shard with the least time so
far (ties: the lowest number); a shard's time is then within the heaviest unit of the mean, so with
many small units the largest shard is close to it (``imbalance``: largest / mean).
"""

from __future__ import annotations

import heapq
from typing import Sequence

from ..errors import CksolveError

__all__ = ["balance", "imbalance"]


def balance(weights: Sequence[float], shards: int) -> list[int]:
    """The shard of each unit (``weights[i]``: unit i's estimated GPU time)."""
    if shards < 1:
        raise CksolveError(f"{{opt:shards}} {shards} must be at least 1")
    if shards > len(weights):
        raise CksolveError(f"{{opt:shards}} {shards} is more than the plan's {len(weights)} runs of a problem "
                           f"(a shard would be empty)")
    heap = [(0.0, k) for k in range(shards)]
    out = [0] * len(weights)
    for i in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        load, s = heapq.heappop(heap)
        out[i] = s
        heapq.heappush(heap, (load + weights[i], s))
    return out


def imbalance(weights: Sequence[float], shard_of: Sequence[int], shards: int) -> float:
    """The largest shard's time over the mean (1.0: perfectly even)."""
    load = [0.0] * shards
    for w, s in zip(weights, shard_of):
        load[s] += w
    mean = sum(load) / shards
    return max(load) / mean if mean > 0 else 1.0
