"""``report``: one self-contained HTML page about a rule set and, optionally, a workload (cksolve.report)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import CksolveError
from ..progress import Progress

from .app import app
from .options import (BuilderOpt, OutputOpt, RuleSetOpt, SelectionArgs, one_arch, refuse_unwritable, selection_options,
                      strict, write)


@app.command("report")
@selection_options()
def report_cmd(
    rule_set: str = RuleSetOpt,
    sel: SelectionArgs = None,
    problems: Optional[Path] = typer.Option(None, "--problems", metavar="FILE",
                                            help="A workload (CSV with CK's header, or JSONL): adds the coverage "
                                                 "heat map (problem groups x archs)."),
    minimize: Optional[str] = typer.Option(None, "--minimize", metavar="ARCH",
                                           help="Also the minimum kernel set of the workload for ARCH."),
    keep: Optional[float] = typer.Option(None, "--keep", metavar="KEEP",
                                         help="minimize's --keep (with --minimize; default 0.9)."),
    output: Optional[Path] = OutputOpt,
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Write one HTML page (inline SVG, no script, nothing fetched): kernels per arch/variant/pipeline,
    the audit's empty combinations, and with --problems coverage and --minimize the kept kernels."""
    from .. import report  # deferred: the report loads audit and workload only for its command

    if keep is not None and minimize is None:
        raise CksolveError(f"--keep {keep:g} is minimize's: give --minimize ARCH too "
                           f"(without it the report minimizes nothing)")
    refuse_unwritable(output)
    selection = sel.select()
    arch = None if minimize is None else one_arch(minimize)
    with Progress(f"gathering the report of {rule_set}", ticking=True):  # on a terminal, past 1 s; phases: sections
        data = report.gather(rule_set, selection, builder_configs, strict(), problems, arch,
                             0.9 if keep is None else keep)
    write(report.render(data), output)
