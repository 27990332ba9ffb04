"""Questions on one config and one model: its verdict, its explanation, the valid configs near it.

Re-export only::

    evaluate      every constraint tested on one config: the ground truth the solvers are tested against
    explain       every violated constraint and the nearest valid configs, as a record and in words
    neighborhood  valid configs near one config, found by testing candidates against the model

Above the listing (:mod:`cksolve.solver.listing`: ``explain`` ranks a small source's configs).
"""

from .evaluate import Verdict, evaluate
from .explain import Explanation, Nearest, explanation

__all__ = ["evaluate", "Verdict", "explanation", "Explanation", "Nearest"]
