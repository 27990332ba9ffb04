"""Scorers: how good a kernel is for a problem. One protocol, three kinds, resolved by name on first use.

A scorer scores a batch of (problem, config) pairs of one arch and dtype --
higher is better -- and sees every axis of each config::

    from cksolve.scoring import get_scorer
    s = get_scorer("analytic", device="MI300X")           # the default: a performance model (analytic.py)
    s = get_scorer("model", path="models/fwd_bf16")       # a CK model directory (LightGBM, cksolve[ml])
    s = get_scorer("measured", path="bench.csv")          # a measurement file
    s.score([(problem, config), ...], "gfx942", "fp16")   # -> list of floats, one per pair

``select`` (``select.py``) ranks, per problem, the kernels that can run it by a scorer.
"""

from __future__ import annotations

import importlib
from typing import Protocol, Sequence

from ..errors import CksolveError
from .select import SelectRecord, names_rule_set, select, write_select

__all__ = ["Scorer", "SCORERS", "get_scorer", "select", "write_select", "names_rule_set", "SelectRecord"]


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
    return getattr(importlib.import_module(f".{module}", __name__), cls)(**options)
