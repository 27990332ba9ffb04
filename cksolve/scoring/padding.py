"""The padding scorer: ``minimize``'s score (``workload.score``), a scorer of its own name.

It does not predict TFLOPS: it is the product of four shares in (0, 1] -- the useful work in the padded
tiles, how evenly the tiles fill the default device's compute units, the reuse a tile's shape allows and
how wide its vectors are against the widest the problem allows (``workload/score.py`` says each). It is
what ``minimize`` keeps kernels by and what ``search --backend cpsat`` ranks by; the performance model is
the ``analytic`` scorer (``analytic.py``). This class only delegates: the numbers are ``workload.score``'s.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..workload.score import analytic_scores, cu_count
from .scorer_base import ScorerBase

__all__ = ["PaddingScorer", "PADDING_DESCRIPTION"]

#: what ranks, as the commands say it
PADDING_DESCRIPTION = "the padding score (tile padding x occupancy x reuse x vectors)"


class PaddingScorer(ScorerBase):
    kind = "padding"

    def __init__(self, **_ignored):
        pass

    def describe(self) -> str:
        return PADDING_DESCRIPTION

    def prepare(self, arch: str, dtype: str) -> None:
        cu_count(arch)  # an arch without a default device: one error before any output

    def score_grid(self, problems: Sequence, configs: Sequence, arch: str, dtype: str) -> np.ndarray:
        """Every (problem, config) pair's score as a (problems, configs) float64 array (``analytic_scores``)."""
        self.prepare(arch, dtype)
        return analytic_scores(list(problems), list(configs), arch)

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        """Pairs grouped by problem and scored as grids (the values are the grid's, bit for bit)."""
        out = [0.0] * len(pairs)
        by_problem: dict = {}
        for i, (problem, _) in enumerate(pairs):
            by_problem.setdefault(problem, []).append(i)
        for problem, rows in by_problem.items():
            got = self.score_grid([problem], [pairs[i][1] for i in rows], arch, dtype)[0]
            for i, v in zip(rows, got.tolist()):
                out[i] = v
        return out
