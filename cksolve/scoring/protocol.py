"""The scorer protocol and its registry: ``get_scorer`` resolves a scorer kind by name on first use.

Light on purpose (no scorer, no numpy): the command line reads the registry for its help."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence

from ..registry import LazyRegistry

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Scorer", "SCORERS", "get_scorer", "scorers_for"]


class Scorer(Protocol):
    """Scores (problem, config) pairs: higher is better; equal scores tie (callers break ties by name).

    ``prepare`` is the one place a scorer validates (its device, factors, model, file against the arch and
    dtype): a caller prepares once, before any output, and the scores follow. ``score_grid`` is the batch
    over problems x configs (``ScorerBase`` gives it from ``score``; a scorer with a faster way overrides it).
    """

    kind: str
    #: whether the scorer is given each measured label as CK reads its name (``features.read_kernel_name``: a
    #: model of CK's feature semantics) rather than the kernel the label resolved to (``evaluate_scorer``)
    scores_labels: bool
    #: what the hygiene check found in the rows the scorer reads (``workload.hygiene``), once prepared; None for
    #: a scorer that reads no measurements
    hygiene: object | None

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        ...

    def score_grid(self, problems: Sequence, configs: Sequence, arch: str, dtype: str) -> np.ndarray:
        """Every (problem, config) pair's score as a (problems, configs) float64 array."""
        ...

    def describe(self) -> str:
        """One line saying what ranks (shown by the commands)."""
        ...

    def prepare(self, arch: str, dtype: str) -> None:
        """Fail now (one error) if the scorer cannot score kernels of ``arch`` and ``dtype``."""
        ...

    def made_for(self) -> tuple[str | None, str | None]:
        """The arch and dtype the scorer was made for (a model's spec), each None when it does not say."""
        ...

    def unmeasured_note(self, problems: Sequence, dtype: str, allow: bool) -> str | None:
        """The line to say when ``problems`` have no measurement the scorer can read (an error unless
        ``allow``); None when all have one, or the scorer reads no measurements."""
        ...


#: kind -> the scorer's class, "module:Class", imported when asked for (a model scorer loads lightgbm), with
#: the commands that take it by ``--scorer`` (``commands``: read by help, nothing imported); one line each, in the
#: order the commands list them. A scorer defined elsewhere joins with
#: ``SCORERS.register(kind, "package.module:Class")`` (or the class itself).
SCORERS = LazyRegistry("scorer")
for _kind, _target, _commands in (
    ("analytic", "cksolve.scoring.analytic:AnalyticScorer", ("select", "search", "evaluate")),
    ("padding", "cksolve.scoring.padding:PaddingScorer", ("minimize", "select", "search", "evaluate")),
    ("model", "cksolve.scoring.model_scorer:ModelScorer", ("select", "search", "evaluate")),
    ("measured", "cksolve.scoring.measured:MeasuredScorer", ("minimize", "select", "search", "evaluate")),
):
    SCORERS.register(_kind, _target, commands=_commands)
del _kind, _target, _commands


def scorers_for(command: str) -> tuple[str, ...]:
    """The scorers ``command`` ranks by (``--scorer``), in the registry's order."""
    return tuple(kind for kind in SCORERS if command in SCORERS.info(kind).get("commands", ()))


def get_scorer(kind: str = "analytic", **options) -> Scorer:
    """The scorer ``kind`` built with ``options`` (analytic: device, factors; model, measured: path; padding:
    none)."""
    return SCORERS.get(kind)(**options)
