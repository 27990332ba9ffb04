"""``applicable`` and ``coverage``: which kernels of a rule set can run a problem, or each of a workload's."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .. import query
from ..formats import render, table_text
from ..outputs import write_stdout
from .app import app
from .listing import records_text
from .options import (BuilderOpt, OneArchOpt, OutputOpt, ProblemDtypeOpt, RuleSetOpt, WorkloadArgs, check_format,
                      format_option, load_rule_set, one_arch, refuse_unwritable, workload_options, write)

APPLICABLE_FORMATS = ("names", "jsonl", "table")
COVERAGE_FORMATS = ("table", "jsonl", "csv")


@app.command("applicable")
def applicable_cmd(
    problem: str = typer.Option(..., "--problem", "-p", metavar="PROBLEM",
                                help="FIELD=VALUE,... with CK's field names and defaults."),
    rule_set: str = RuleSetOpt,
    arch: str = OneArchOpt,
    dtype: Optional[List[str]] = ProblemDtypeOpt,
    fmt: str = format_option("names", APPLICABLE_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """List every kernel of a rule set, valid for ARCH, that can run one convolution problem."""
    from .. import workload  # deferred: the workload layer loads only for its commands (start-up of every other)

    check_format(fmt, APPLICABLE_FORMATS)
    arch = one_arch(arch)
    dtypes = query.select(dtypes=dtype).dtypes
    workload.parse_problem(problem)  # a bad spec is reported before the rule set is loaded
    rs = load_rule_set(rule_set, builder_configs)
    write_stdout(records_text(workload.applicable_records(problem, rs, arch, dtypes), fmt))


@app.command("coverage")
@workload_options()
def coverage_cmd(
    wl: WorkloadArgs = None,
    fmt: str = format_option("table", COVERAGE_FORMATS),
    with_kernels: bool = typer.Option(False, "--with-kernels", help="List the applicable kernels of each problem."),
    output: Optional[Path] = OutputOpt,
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """For every problem of a workload, how many kernels of a rule set can run it (and why not)."""
    from .. import workload  # deferred (see above)

    check_format(fmt, COVERAGE_FORMATS)
    refuse_unwritable(output)
    arch, dtypes = wl.one_arch(), wl.dtypes()
    rs = load_rule_set(wl.rule_set, builder_configs)
    write(coverage_text(workload.coverage_records(wl.problems, rs, arch, dtypes), fmt, with_kernels), output)


def coverage_text(records, fmt: str, with_kernels: bool) -> str:
    """``coverage``'s report: jsonl, csv (kernels space-separated in one cell) or the table with its summary."""
    if fmt == "jsonl":
        return render("jsonl", [r.as_dict(with_kernels) for r in records])
    if fmt == "csv":
        rows = [r.as_dict(with_kernels) for r in records]
        if with_kernels:
            for row in rows:
                row["kernels"] = " ".join(row["kernels"])
        return render("csv", rows)
    from .. import workload

    header, rows, summary = workload.coverage_table(records, with_kernels)
    return table_text(header, rows) + "".join(f"{line}\n" for line in summary)
