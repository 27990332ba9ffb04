"""``calibrate``: the analytic model's free factors fitted to measured TFLOPS (docs/calibration.md)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .. import query
from ..errors import CksolveError
from ..outputs import write_stdout
from ..progress import Progress
from .app import app
from .options import (KeepInvalidOpt, KernelMapOpt, MinWrittenOpt, arch_option, check_format, choices, format_option,
                      hygiene_options, one_arch, refuse_unwritable, say_hygiene, write)

CALIBRATE_FORMATS = ("table", "json")
#: ``scoring.calibration.OBJECTIVES`` and ``DEFAULT_FOLDS`` repeated so that help needs no import of the fit (a test
#: holds them equal)
OBJECTIVES = ("rank", "log")
DEFAULT_FOLDS = 5


@app.command("calibrate")
def calibrate_cmd(
    measurements: Optional[List[Path]] = typer.Option(
        None, "--measurements", metavar="FILE",
        help="CK's tile-engine benchmark CSV or cksolve's measurement CSV/JSONL (repeatable)."),
    arch: Optional[str] = arch_option(None, " (--show: default all)"),
    dtype: Optional[str] = typer.Option(None, "--dtype", metavar="DTYPE", help=f"{choices(query.DTYPES)}."),
    out: Optional[Path] = typer.Option(None, "--out", metavar="FACTORS",
                                       help="The factors file to write (TOML; give it to --factors)."),
    folds: int = typer.Option(DEFAULT_FOLDS, "--folds", metavar="K",
                              help="Cross-validation folds by problem group: 0 (none) or at least 2."),
    objective: str = typer.Option(OBJECTIVES[0], "--objective", metavar="OBJECTIVE",
                                  help=f"{choices(OBJECTIVES)}: a within-problem ranking loss, or log-TFLOPS "
                                       "regression centred per problem."),
    device: Optional[str] = typer.Option(None, "--device", metavar="DEVICE",
                                         help="The analytic model's device (default: the arch's, see `archs`)."),
    show: bool = typer.Option(False, "--show", help="Say where each arch's factors come from, and exit."),
    fmt: str = format_option("table", CALIBRATE_FORMATS),
    kernel_map: Optional[Path] = KernelMapOpt,
    min_written: float = MinWrittenOpt,
    keep_invalid: bool = KeepInvalidOpt,
) -> None:
    """Fit the analytic model's free factors to measured TFLOPS, with problem-grouped cross-validation."""
    from .. import scoring  # deferred: the scoring layer loads for its commands only

    check_format(fmt, CALIBRATE_FORMATS)
    if show:
        if measurements or out is not None:
            raise CksolveError("--show takes no --measurements or --out")
        write_stdout(scoring.calibration_show([one_arch(arch)] if arch else query.archs(), fmt))
        return
    if not measurements or arch is None or dtype is None or out is None:
        raise CksolveError("give --measurements, --arch, --dtype and --out (or --show)")
    if dtype not in query.DTYPES:
        raise CksolveError(f"unknown --dtype {dtype!r}; valid: {choices(query.DTYPES)}")
    refuse_unwritable(out)
    arch = one_arch(arch)
    hygiene = hygiene_options(arch, kernel_map, min_written, keep_invalid)
    with Progress(f"calibrating {arch} {dtype}", ticking=True):  # on a terminal, past 1 s; the phases from the fit
        result = scoring.calibrate([str(p) for p in measurements], arch, dtype, folds, objective, device, hygiene)
    say_hygiene(result["verdict"])
    write(result["text"], out)
    write_stdout(scoring.calibration_report(result, fmt, str(out)))
