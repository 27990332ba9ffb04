"""``measurements check``: which rows of measurement files can be trusted, and why not (docs/measurements.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import CksolveError
from ..formats import table_text
from ..outputs import write_stdout
from .app import app
from .options import KernelMapOpt, MinWrittenOpt, OneArchOpt, check_format, format_option, hygiene_options, one_arch

CHECK_FORMATS = ("table", "json")
ACTIONS = ("check",)


@app.command("measurements")
def measurements_cmd(
    action: str = typer.Argument(..., metavar="ACTION", help="check: the hygiene report of the files."),
    files: List[Path] = typer.Argument(..., metavar="FILE...", help="Measurement files (CK's CSV, cksolve's CSV/JSONL)."),
    arch: str = OneArchOpt,
    kernel_map: Optional[Path] = KernelMapOpt,
    min_written: float = MinWrittenOpt,
    fmt: str = format_option("table", CHECK_FORMATS),
) -> None:
    """Each row's label resolved to its kernel and checked (the kernel's run-time rules, the share of the output
    written); invalid rows counted by rule; probable aliases. Exit 1 when a row is invalid."""
    from .. import workload  # deferred: the workload layer loads for its commands only

    if action not in ACTIONS:
        raise CksolveError(f"unknown action {action!r}; valid: {', '.join(ACTIONS)}")
    check_format(fmt, CHECK_FORMATS)
    options = hygiene_options(one_arch(arch), kernel_map, min_written, False)
    rows = [m for f in files for m in workload.read_measurement_file(f)]
    _, hygiene = workload.check_rows(rows, options)
    d = hygiene.as_dict()
    del d["kept_invalid"]
    write_stdout(json.dumps(d, indent=2) + "\n" if fmt == "json" else report_text(d))
    raise typer.Exit(1 if hygiene.invalid_rows else 0)


def report_text(d: dict) -> str:
    """The report as text: counts, invalid rows by rule, each label's kernel, probable aliases."""
    inv = d["invalid"]
    out = [f"{_n(d['rows'], 'row')}, {_n(d['problems'], 'problem')}, {_n(len(d['labels']), 'label')} -> "
           f"{_n(d['kernels'], 'kernel')}\n"]
    if inv["rows"]:
        out.append(f"invalid: {_n(inv['rows'], 'row')} of {_n(inv['problems'], 'problem')}\n")
        out.append(table_text(["rule", "rows"], [[k, str(v)] for k, v in inv["by_rule"].items()]))
    else:
        out.append("invalid: none\n")
    out.append(table_text(["label", "kernel", "how"], [[x["label"], x["kernel"] or f"- ({x['why']})", x["how"]]
                                                        for x in d["labels"]]))
    if d["aliases"] is not None:
        if d["aliases"]:
            kernel = {x["label"]: x["kernel"] for x in d["labels"]}
            out.append("probable aliases (timings agree within measurement noise):\n")
            for g in d["aliases"]:
                n = len({kernel[label] for label in g})
                out.append(f"  {', '.join(g)} ({'one kernel' if n == 1 else f'{n} kernels'} as resolved)\n")
        else:
            out.append("probable aliases: none\n")
    return "".join(out)


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
