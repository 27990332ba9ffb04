"""``features`` and ``pipeline-variants``: CK's ML kernel-selector inputs (docs/ml-features.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from .. import query
from ..formats import render, table_text, value_text
from ..errors import CksolveError
from ..outputs import StdoutStream, atomic_path, atomic_text_stream, write_stdout
from ..progress import Progress, is_terminal
from .app import app
from .completion import values
from .errors import say
from .options import (BuilderOpt, OneArchOpt, OutputOpt, RuleSetOpt, SelectionArgs, check_format, choices,
                      format_option, load_rule_set, one_arch, refuse_unwritable, selection_options)

PIPELINE_VARIANT_FORMATS = ("table", "csv", "jsonl")
#: ``features.FEATURE_FORMATS``, repeated so that help needs no import of the package (a test holds them equal)
FEATURE_FORMATS = ("csv", "jsonl", "parquet")
#: ``features.SEMANTICS``, likewise
SEMANTICS = ("ck", "exact")
_GEMM_VARIANTS = f"{choices(query.VARIANTS)} (default: the GEMM ones)."


@app.command("features")
@selection_options(arch=False, variant_help=_GEMM_VARIANTS)
def features_cmd(
    rule_set: str = RuleSetOpt,
    arch: str = OneArchOpt,
    sel: SelectionArgs = None,
    problems: Optional[Path] = typer.Option(None, "--problems", metavar="FILE",
                                            help="Rows per (problem, applicable kernel) pair: CSV with CK's header, "
                                                 "or JSONL."),
    fmt: str = format_option("csv", FEATURE_FORMATS),
    output: Optional[Path] = OutputOpt,
    semantics: str = typer.Option("ck", "--semantics", metavar="SEMANTICS",
                                  help="ck (what CK's engine computes) or exact (true values).",
                                  autocompletion=values(SEMANTICS)),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Features of CK's ML kernel selector, per kernel or per (problem, kernel) pair that can run."""
    from .. import features  # deferred: ML features load only for their commands (start-up of every other)

    check_format(fmt, FEATURE_FORMATS)
    if fmt == "parquet":
        if output is None:
            raise CksolveError("--format parquet writes a file, not stdout: give --output FILE")
        features.check_parquet()  # one line now, not after the work, when pyarrow is missing
    refuse_unwritable(output)
    selection = sel._replace(arch=[one_arch(arch)]).select(query.gemm_variants(query.VARIANTS))
    rs = load_rule_set(rule_set, builder_configs)
    columns, rows, unread = features.feature_stream(rs, selection, problems, semantics)
    # a bar on a terminal past 1 s, unless the rows themselves go to that terminal
    with Progress("writing feature rows", ticking=output is not None or not is_terminal(sys.stdout)):
        if fmt == "parquet":
            with atomic_path(Path(output)) as target:  # a temporary's path, or a device/FIFO opened
                features.write_features(columns, rows, fmt, path=target)
        elif output is None:
            features.write_features(columns, rows, fmt, StdoutStream())
        else:
            with atomic_text_stream(Path(output)) as out:
                features.write_features(columns, rows, fmt, out)
    if unread():
        n = len(unread())
        say(f"note: {n} {'kernel has a dispatcher name' if n == 1 else 'kernels have dispatcher names'} CK's "
            f"parser does not read (groups_to_merge, "
            f"two_stage, wavelet); their ck kernel columns are CK's defaults but for the pipeline its fallback "
            f"finds in the name")


@app.command("pipeline-variants")
@selection_options(variant_help=_GEMM_VARIANTS, variant_first=True)
def pipeline_variants_cmd(
    sel: SelectionArgs = None,
    fmt: str = format_option("table", PIPELINE_VARIANT_FORMATS),
) -> None:
    """The valid (pipeline, scheduler, double LDS buffer, split image) combinations, from the constraints."""
    from .. import features  # deferred (see above)

    check_format(fmt, PIPELINE_VARIANT_FORMATS)
    selection = sel.select(query.gemm_variants(query.VARIANTS))
    with Progress("deriving pipeline variants", ticking=True):  # on a terminal, past 1 s; a phase per arch and variant
        found = features.selection_pipeline_variants(selection)
    columns = ("arch", "variant", "pipeline", "scheduler", "double_smem_buffer", "split_image", "witness")
    if fmt == "table":
        rows = [[v.arch, v.variant, v.pipeline, v.scheduler, value_text(v.double_smem_buffer),
                 value_text(v.split_image)] for v in found]
        write_stdout(table_text(list(columns[:-1]), rows) + f"{len(found)} combinations\n")
    else:
        write_stdout(render(fmt, [dict(zip(columns, v)) for v in found], columns))
