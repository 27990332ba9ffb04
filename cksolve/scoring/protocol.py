"""The scorer protocol and its registry: ``get_scorer`` resolves a scorer kind by name on first use."""

from __future__ import annotations

import importlib
from typing import Protocol, Sequence

from ..errors import CksolveError

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


#: kind -> (module, class): imported when asked for (a model scorer loads lightgbm)
SCORERS = {"analytic": ("analytic", "AnalyticScorer"), "model": ("model", "ModelScorer"),
           "measured": ("measured", "MeasuredScorer")}


def get_scorer(kind: str = "analytic", **options) -> Scorer:
    """The scorer ``kind`` built with ``options`` (analytic: device; model, measured: path)."""
    if kind not in SCORERS:
        raise CksolveError(f"unknown scorer {kind!r}; valid: {', '.join(SCORERS)}")
    module, cls = SCORERS[kind]
    return getattr(importlib.import_module(f".{module}", __package__), cls)(**options)
