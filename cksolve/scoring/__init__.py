"""Scorers: how good a kernel is for a problem. One protocol, four kinds, resolved by name on first use.

A scorer scores a batch of (problem, config) pairs of one arch and dtype --
higher is better -- and sees every axis of each config::

    from cksolve.scoring import get_scorer
    s = get_scorer("analytic", device="MI300X")           # the default: a performance model (analytic.py)
    s = get_scorer("model", path="models/fwd_bf16")       # a CK model directory (LightGBM, cksolve[ml])
    s = get_scorer("measured", path="bench.csv")          # a measurement file
    s = get_scorer("padding")                             # minimize's padding score (workload.score)
    s.prepare("gfx942", "fp16")                           # the one place a scorer validates: one error, now
    s.score([(problem, config), ...], "gfx942", "fp16")   # -> list of floats, one per pair
    s.score_grid(problems, configs, "gfx942", "fp16")     # -> (problems, configs) float64 array

``select`` (``ranking.py``) ranks, per problem, the kernels that can run it by a scorer;
``evaluate_scorer`` (``evaluation.py``) measures a scorer's picks against measurement files. ``calibrate``
(``calibration.py``) fits the analytic model's free factors to measurements; ``factorfile.py`` reads factors
files and says where each arch's factors come from.

The registry and the protocol (``protocol.py``) are light and imported with the package, so the command
line names the scorers (``SCORERS``: each with the commands that rank by it) without loading one; the
other names are imported on first use, as ``cksolve``'s own are.
"""

from __future__ import annotations

from ..registry import LazyRegistry, lazy_names
from .protocol import SCORERS, Scorer, get_scorer, scorers_for

__all__ = ["Scorer", "SCORERS", "get_scorer", "scorers_for", "select", "write_select", "names_rule_set", "SelectRecord",
           "evaluate_scorer", "evaluation_text", "calibrate", "calibration_report", "calibration_show"]

#: each public name not imported with the package -> where it is defined, imported on first use
_HOME = LazyRegistry("name", {
    "select": "cksolve.scoring.ranking:select",
    "write_select": "cksolve.scoring.ranking:write_select",
    "names_rule_set": "cksolve.scoring.ranking:names_rule_set",
    "SelectRecord": "cksolve.scoring.ranking:SelectRecord",
    "evaluate_scorer": "cksolve.scoring.evaluation:evaluate_scorer",
    "evaluation_text": "cksolve.scoring.evaluation:evaluation_text",
    "calibrate": "cksolve.scoring.calibration:calibrate",
    "calibration_report": "cksolve.scoring.calibration:calibration_report",
    "calibration_show": "cksolve.scoring.calibration:calibration_show",
})

__getattr__, __dir__ = lazy_names(globals(), _HOME)
del LazyRegistry, lazy_names

