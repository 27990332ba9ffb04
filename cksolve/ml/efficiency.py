"""Efficiency of a model's picks against the measured best, per problem (CK's validation measure).

For each problem (keyed by its dimensions, never a row index), the pick is the
measured kernel the model scores highest (ties: the first by name), and its
efficiency is its measured TFLOPS over the problem's best measured TFLOPS.
``top<k>``: fewer than k measured kernels of the problem are strictly faster than the pick
(CK's compare_ml_vs_oracle: the pick is among the oracle's k best).
"""

from __future__ import annotations

import numpy as np

__all__ = ["picks", "summary"]


def picks(problem_ids: np.ndarray, measured: np.ndarray, predicted: np.ndarray, name_rank: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(problem id, efficiency, pick's rank among the measured: 1 = fastest, the pick's row) per problem, by
    problem id."""
    order = np.lexsort((name_rank, -predicted, problem_ids))
    ids = problem_ids[order]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    ends = np.r_[starts[1:], len(ids)]
    effs, ranks = np.empty(len(starts)), np.empty(len(starts), dtype=np.int64)
    m = measured[order]
    for g, (s, e) in enumerate(zip(starts, ends)):
        group = m[s:e]
        pick = group[0]  # sorted by prediction (descending), then name
        effs[g] = pick / group.max()
        ranks[g] = 1 + int(np.count_nonzero(group > pick))
    return ids[starts], effs, ranks, order[starts]


def summary(effs: np.ndarray, ranks: np.ndarray) -> dict:
    """mean, median, p10 (numpy's linear percentile), top1, top5 and the number of problems."""
    if len(effs) == 0:
        return {"mean": None, "median": None, "p10": None, "top1": None, "top5": None, "problems": 0}
    return {"mean": float(np.mean(effs)), "median": float(np.median(effs)), "p10": float(np.percentile(effs, 10)),
            "top1": float(np.mean(ranks == 1)), "top5": float(np.mean(ranks <= 5)), "problems": int(len(effs))}
