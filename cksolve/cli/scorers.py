"""``--scorer NAME``: which scorer a command ranks by, said once for ``minimize``, ``select`` and ``search``.

A command names the scorers it can rank by (``padding`` is minimize's, the analytic performance model is
``select``'s and ``search``'s default); ``--model DIR`` implies ``model`` and a measurement file
(``--measurements``, ``--perf``) implies ``measured``, so ``--scorer`` is only needed to pick ``padding`` or to
say it again. A name no scorer has is refused with the valid ones and the nearest (exit 2).
"""

from __future__ import annotations

from typing import Optional, Sequence

import typer

from ..errors import CksolveError, did_you_mean
from .options import choices

__all__ = ["SCORER_NAMES", "scorer_option", "scorer_kind"]

#: every scorer's name (``scoring.SCORERS`` repeated so that help needs no import of the scoring package; a test
#: holds them equal)
SCORER_NAMES = ("padding", "analytic", "model", "measured")


def scorer_option(valid: Sequence[str], default: str):
    """``--scorer NAME`` for a command that ranks by one of ``valid``."""
    return typer.Option(None, "--scorer", metavar="SCORER",
                        help=f"{choices(valid)} (default: {default}; --model implies model, a measurement file "
                             "measured).")



def scorer_kind(given: Optional[str], valid: Sequence[str], default: str, model=None, measured=None,
                command: str = "", measured_option: str = "--measurements") -> str:
    """The scorer's name: ``given`` (checked against ``valid``), else the one ``model``/``measured`` imply, else
    ``default``. One error line for a name no scorer has, a scorer this command does not rank by, a scorer
    without its file, and a file for another scorer."""
    implied = "model" if model is not None else "measured" if measured is not None else None
    if given is None:
        return implied or default
    if given not in SCORER_NAMES:
        raise CksolveError(f"unknown --scorer {given!r}; valid: {choices(valid)}{did_you_mean(given, valid)}")
    if given not in valid:
        raise CksolveError(f"--scorer {given}: {command} ranks by {' or '.join(valid)}")
    if given == "model" and model is None:
        raise CksolveError("--scorer model needs --model DIR")
    if given == "measured" and measured is None:
        raise CksolveError(f"--scorer measured needs {measured_option} FILE")
    if implied is not None and implied != given:
        raise CksolveError(f"{'--model' if implied == 'model' else measured_option} is for --scorer {implied}, "
                           f"not {given}")
    return given
