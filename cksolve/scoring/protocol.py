"""The scorer protocol and its registry: ``get_scorer`` resolves a scorer kind by name on first use."""

from __future__ import annotations

from typing import Protocol, Sequence

from ..registry import LazyRegistry

__all__ = ["Scorer", "SCORERS", "get_scorer"]


class Scorer(Protocol):
    """Scores (problem, config) pairs: higher is better; equal scores tie (callers break ties by name)."""

    kind: str

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        ...

    def describe(self) -> str:
        """One line saying what ranks (shown by the commands)."""
        ...

    def prepare(self, arch: str, dtype: str) -> None:
        """Fail now (one error) if the scorer cannot score kernels of ``arch`` and ``dtype``."""
        ...


#: kind -> the scorer's class, "module:Class", imported when asked for (a model scorer loads lightgbm);
#: one line each. A scorer defined elsewhere joins with ``SCORERS.register(kind, "package.module:Class")``
#: (or the class itself).
SCORERS = LazyRegistry("scorer", {
    "analytic": "cksolve.scoring.analytic:AnalyticScorer",
    "model": "cksolve.scoring.model:ModelScorer",
    "measured": "cksolve.scoring.measured:MeasuredScorer",
})


def get_scorer(kind: str = "analytic", **options) -> Scorer:
    """The scorer ``kind`` built with ``options`` (analytic: device; model, measured: path)."""
    return SCORERS.get(kind)(**options)
