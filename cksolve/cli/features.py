"""``features`` and ``pipeline-variants``: CK's ML kernel-selector inputs (docs/ml-features.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .. import query
from ..formats import render, table_text, value_text
from ..outputs import write_stdout
from .app import app
from .completion import values
from .errors import say
from .options import (BuilderOpt, OneArchOpt, OutputOpt, RuleSetOpt, SelectionArgs, check_format, choices,
                      format_option, load_rule_set, one_arch, refuse_unwritable, selection_options, write)

PIPELINE_VARIANT_FORMATS = ("table", "csv", "jsonl")
#: ``features.FEATURE_FORMATS``, repeated so that help needs no import of the package (a test holds them equal)
FEATURE_FORMATS = ("csv", "jsonl")
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
    refuse_unwritable(output)
    selection = sel._replace(arch=[one_arch(arch)]).select(query.gemm_variants(query.VARIANTS))
    rs = load_rule_set(rule_set, builder_configs)
    table = features.feature_table(rs, selection, problems, semantics)
    write(features.feature_text(table, fmt), output)
    if table.unread:
        say(f"note: {len(table.unread)} kernels have dispatcher names CK's parser does not read (groups_to_merge, "
            f"two_stage, wavelet); their ck kernel columns are CK's defaults")


@app.command("pipeline-variants")
@selection_options(variant_help=_GEMM_VARIANTS, variant_first=True)
def pipeline_variants_cmd(
    sel: SelectionArgs = None,
    fmt: str = format_option("table", PIPELINE_VARIANT_FORMATS),
) -> None:
    """The valid (pipeline, scheduler, double LDS buffer, split image) combinations, from the constraints."""
    from .. import features  # deferred (see above)

    check_format(fmt, PIPELINE_VARIANT_FORMATS)
    found = features.selection_pipeline_variants(sel.select(query.gemm_variants(query.VARIANTS)))
    columns = ("arch", "variant", "pipeline", "scheduler", "double_smem_buffer", "split_image", "witness")
    if fmt == "table":
        rows = [[v.arch, v.variant, v.pipeline, v.scheduler, value_text(v.double_smem_buffer),
                 value_text(v.split_image)] for v in found]
        write_stdout(table_text(list(columns[:-1]), rows) + f"{len(found)} combinations\n")
    else:
        write_stdout(render(fmt, [dict(zip(columns, v)) for v in found], columns))
