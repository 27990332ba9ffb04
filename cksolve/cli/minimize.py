"""``minimize``: the fewest kernels of a rule set that keep a workload covered and fast (CP-SAT)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .. import query
from ..outputs import write_stdout
from ..progress import Progress
from ..scoring import scorers_for
from .app import app
from .errors import to_stderr
from .options import (BuilderOpt, KeepInvalidOpt, KernelMapOpt, MinWrittenOpt, WorkloadArgs, check_format,
                      hygiene_options, load_rule_set, refuse_unwritable, say_hygiene, stdout_dash, workload_options,
                      scorer_kind, scorer_option, write)

SUMMARY_FORMATS = ("text", "json")
#: what minimize ranks by: the padding score, or measurements (``--perf``)
MINIMIZE_SCORERS = scorers_for("minimize")


@app.command("minimize")
@workload_options()
def minimize_cmd(
    wl: WorkloadArgs = None,
    keep: float = typer.Option(0.9, "--keep", metavar="KEEP",
                               help="Each problem keeps a kernel scoring at least KEEP x R's best."),
    per_problem: int = typer.Option(1, "--per-problem", metavar="N", help="Kernels each covered problem keeps (at least)."),
    max_kernels: Optional[int] = typer.Option(None, "--max-kernels", metavar="N",
                                              help="Keep at most N kernels; maximise the problems with a good one."),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", metavar="SECONDS",
                                               help="Seconds for the whole search (default: 60); then the best set found, FEASIBLE with its gap."),
    perf: Optional[Path] = typer.Option(None, "--perf", metavar="FILE",
                                        help="Measured results (CSV/JSONL: problem fields, kernel, tflops or time_ms): "
                                             "rank by them (--scorer measured) instead of the padding score."),
    scorer: Optional[str] = scorer_option(MINIMIZE_SCORERS, "padding", "--perf implies measured"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", callback=stdout_dash,
                                          help="Write the kept names here (else, or with -, stdout)."),
    output_rule_set: Optional[Path] = typer.Option(None, "--output-rule-set", metavar="FILE",
                                                   help="Also write a rule-set file listing exactly the kept kernels."),
    summary_format: str = typer.Option("text", "--summary-format", metavar="FORMAT",
                                       help=f"The summary (stderr, or stdout with --output): {', '.join(SUMMARY_FORMATS)}."),
    builder_configs: Optional[str] = BuilderOpt,
    kernel_map: Optional[Path] = KernelMapOpt,
    min_written: float = MinWrittenOpt,
    keep_invalid: bool = KeepInvalidOpt,
) -> None:
    """The fewest kernels of a rule set that keep a workload covered and fast (CP-SAT)."""
    from .. import workload  # deferred: the workload layer loads only for its commands

    check_format(summary_format, SUMMARY_FORMATS, "summary format")
    scorer_kind(scorer, MINIMIZE_SCORERS, "padding", measured=perf, command="minimize", measured_option="--perf")
    request = workload.minimize_request(keep=keep, per_problem=per_problem, max_kernels=max_kernels,
                                        time_limit=time_limit)  # checked before anything is loaded
    refuse_unwritable(output, output_rule_set)
    arch, dtypes = wl.one_arch(), wl.dtypes()
    hygiene = hygiene_options(arch, kernel_map, min_written, keep_invalid) if perf is not None else None
    rs = load_rule_set(wl.rule_set, builder_configs)
    with Progress(f"minimizing {rs.name} for {wl.problems.name} on {arch}", ticking=True):  # a terminal, past 1 s
        result = workload.minimize_kernels(wl.problems, rs, arch, dtypes, request, perf=perf,
                                           scorer=_measured_scorer(perf, hygiene), hygiene=hygiene)
    say_hygiene(result.hygiene)
    names = "".join(f"{c.name()}\n" for c in query.canonical_order(result.configs()))
    if output_rule_set is not None:
        desc = f"minimize: {len(result.kept)} kernels of {rs.name} for {wl.problems.name} on {arch}, keep {keep}"
        write(query.rule_set_file(result.configs(), desc), output_rule_set)
    if summary_format == "json":
        summary = json.dumps(workload.minimize_summary(result, wl.problems)) + "\n"
    else:
        summary = "".join(f"{line}\n" for line in result.summary())
    if output is not None:
        write(names, output)
        write_stdout(summary)
    else:
        write_stdout(names)
        to_stderr(summary)
    if not result.result.covered:  # a verdict, as check's invalid name: the rule set runs none of the problems
        raise typer.Exit(1)


def _measured_scorer(perf: Optional[Path], hygiene=None):
    """``--perf``'s scores come from the ``measured`` scorer (``cksolve.scoring``), as ``select``'s and
    ``search``'s ``--measurements`` do; the file is read once and checked by minimize, so the scorer is made
    (a function of the rows read) after that check."""
    if perf is None:
        return None

    def made(rows):
        from .. import scoring  # deferred: the scorers load for --perf only

        return scoring.get_scorer("measured", path=perf, rows=rows, hygiene=hygiene)

    return made
