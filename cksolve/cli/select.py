"""``train``, ``evaluate`` and ``select``: which kernel is best (docs/selection.md).

Model commands need the optional extra ``cksolve[ml]`` (lightgbm, scikit-learn)
and say so in one line (exit 2) without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from .. import query
from ..errors import CksolveError, did_you_mean
from ..outputs import StdoutStream, atomic_text_stream, write_stdout
from ..progress import Progress, phase
from ..scoring import scorers_for
from .app import app
from .errors import say
from .options import (AllowUnmeasuredOpt, BuilderOpt, FactorsOpt, KeepInvalidOpt, KernelMapOpt, MinWrittenOpt,
                      OneArchOpt, OutputOpt, arch_option, check_format, choices, format_option, hygiene_options,
                      load_rule_set, one_arch, refuse_unwritable, say_hygiene, scorer_kind, scorer_option)

EVALUATE_FORMATS = ("table", "json")
#: the scorers evaluate compares (the registry says which)
EVALUATE_SCORERS = scorers_for("evaluate")
#: the scorers select ranks by (default: the performance model)
SELECT_SCORERS = scorers_for("select")
SELECT_FORMATS = ("table", "jsonl", "csv")
#: ``ml.MODEL_SEMANTICS`` repeated so that help needs no import of the ML package (a test holds them equal)
MODEL_SEMANTICS = ("ck", "ck-names", "exact")
#: ``ml.selector.OBJECTIVES`` repeated for the same reason (the same test holds them equal)
OBJECTIVES = ("efficiency", "lambdarank", "log-tflops")
_GEMM_VARIANTS = ("forward", "bwd_data", "bwd_weight")

DtypeOpt = typer.Option(..., "--dtype", metavar="DTYPE", help=f"{choices(query.DTYPES)}.")
MeasurementsOpt = typer.Option(..., "--measurements", metavar="FILE",
                               help="CK's tile-engine benchmark CSV or cksolve's measurement CSV/JSONL (repeatable).")


def _dtype(dtype: str) -> str:
    if dtype not in query.DTYPES:
        raise CksolveError(f"unknown --dtype {dtype!r}; valid: {choices(query.DTYPES)}")
    return dtype


@app.command("train")
def train_cmd(
    measurements: List[Path] = MeasurementsOpt,
    arch: str = OneArchOpt,
    dtype: str = DtypeOpt,
    variant: str = typer.Option(..., "--variant", metavar="VARIANT", help=f"{choices(_GEMM_VARIANTS)}."),
    out: Path = typer.Option(..., "--out", metavar="DIR", help="The model directory to write (CK's layout)."),
    like_ck: bool = typer.Option(False, "--like-ck",
                                 help="CK's trainer: its target, parameters and format (a directory CK's Predictor "
                                      "loads)."),
    objective: str = typer.Option("auto", "--objective", metavar="OBJECTIVE",
                                  help=f"auto (the one that wins on CK's folds), {choices(OBJECTIVES)}."),
    seed: int = typer.Option(42, "--seed", metavar="S", help="LightGBM's seed (CK's: 42)."),
    folds: int = typer.Option(5, "--folds", metavar="N", help="Cross-validation folds by problem group: 0 (none) or at least 2."),
    trees: Optional[int] = typer.Option(None, "--trees", metavar="N",
                                        help="Trees of the final model (default 500; --like-ck: CK's 2000)."),
    semantics: Optional[str] = typer.Option(None, "--semantics", metavar="SEMANTICS",
                                            help=f"Feature semantics: {choices(MODEL_SEMANTICS)} (default exact; "
                                                 f"--like-ck: ck-names)."),
    gz: bool = typer.Option(False, "--gzip", help="Write model_tflops.lgbm.gz (as CK ships its models)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", metavar="N",
                                       help="Fits (folds, final model) run side by side (default: all cores); "
                                            "the model does not depend on it."),
    kernel_map: Optional[Path] = KernelMapOpt,
    min_written: float = MinWrittenOpt,
    keep_invalid: bool = KeepInvalidOpt,
) -> None:
    """Train a kernel selector on measurements into a model directory (--like-ck: CK's trainer and defaults)."""
    from .. import ml  # deferred: the ML package loads only for its commands

    arch = one_arch(arch)
    if variant not in _GEMM_VARIANTS:
        raise CksolveError(f"unknown --variant {variant!r}; valid: {choices(_GEMM_VARIANTS)}")
    hygiene = hygiene_options(arch, kernel_map, min_written, keep_invalid)
    with Progress(f"training a {variant} model for {arch}", ticking=True):  # a terminal, past 1 s; phases: the fits
        result = ml.train([str(p) for p in measurements], arch, _dtype(dtype), variant, out, seed, folds, trees,
                          semantics, gz, jobs, hygiene, like_ck=like_ck, objective=objective)
    say_hygiene(result["hygiene"])
    write_stdout(train_text(result, out))


def train_text(result: dict, out) -> str:
    """``train``'s report: what it trained on, its cross-validation, and whether CK's Predictor can use it."""
    cv = result["cv"]
    skipped = f", {result['skipped']} rows with tflops <= 0 skipped" if result["skipped"] else ""
    pct = lambda v: f"{100 * v:.1f}%"  # noqa: E731
    made_up = (f" (MADE-UP data: {result['made_up']} rows from cksolve.ml.madeup, no GPU measured them)"
               if result.get("made_up") else "")
    if result["like_ck"]:
        line = f"trained on {result['rows']} rows ({result['problems']} problems, {result['kernels']} kernels{skipped}) -> {out}{made_up}"
        if cv:
            line += (f"\ncross-validation ({len(result['folds'])} folds by problem group): mean efficiency "
                     f"{pct(cv['mean_efficiency'])}, p10 {pct(cv['p10_efficiency'])}, rmse {cv['rmse']:.3f} (log)")
        return line + "\n"
    line = (f"trained on {result['rows']} rows ({result['problems']} problems, {result['kernels']} kernels from "
            f"{result['labels']} labels{skipped}) -> {out}{made_up}")
    if cv:
        others = [c for c in result["candidates"] if c["objective"] != result["objective"]]
        line += (f"\ncross-validation ({result['folds']} folds by problem group, CK's): {result['objective']}: "
                 f"mean efficiency {pct(cv['mean'])}, p10 {pct(cv['p10'])}, top-1 {pct(cv['top1'])}"
                 + "".join(f"; {c['objective']}: {pct(c['mean'])}, {pct(c['p10'])}, {pct(c['top1'])}" for c in others))
    note = result["ck_predictor_note"]
    if note:
        line += f"\nnote: CK's Predictor cannot use this model: {note} (--like-ck trains one it can)"
    return line + "\n"


@app.command("evaluate")
def evaluate_cmd(
    measurements: List[Path] = MeasurementsOpt,
    scorer_kind: Optional[str] = typer.Option(None, "--scorer", metavar="SCORER",
                                              help=f"{choices(EVALUATE_SCORERS)} (default: model with --model, "
                                                   "else analytic)."),
    model: Optional[Path] = typer.Option(None, "--model", metavar="DIR", help="A model directory (CK's or cksolve's)."),
    device: Optional[str] = typer.Option(None, "--device", metavar="DEVICE",
                                         help="The analytic model's device (default: the arch's, see `archs`)."),
    arch: Optional[str] = arch_option(None, " (default: the model's)"),
    dtype: Optional[str] = typer.Option(None, "--dtype", metavar="DTYPE",
                                        help=f"{choices(query.DTYPES)} (default: the model's, else the kernels')."),
    factors: Optional[Path] = FactorsOpt,
    fmt: str = format_option("table", EVALUATE_FORMATS),
    kernel_map: Optional[Path] = KernelMapOpt,
    min_written: float = MinWrittenOpt,
    keep_invalid: bool = KeepInvalidOpt,
) -> None:
    """A scorer's pick among each problem's measured kernels, its efficiency against the measured best, beside
    the best single kernel's and a random pick's."""
    from .. import scoring, workload  # deferred: the scorers load only for their commands

    check_format(fmt, EVALUATE_FORMATS)
    kind = scorer_kind or ("model" if model is not None else "analytic")
    if kind not in EVALUATE_SCORERS:
        raise CksolveError(f"unknown --scorer {kind!r}; valid: {choices(EVALUATE_SCORERS)}"
                           f"{did_you_mean(kind, EVALUATE_SCORERS)}")
    if (kind == "model") != (model is not None):
        raise CksolveError("--scorer model needs --model DIR" if model is None else
                           f"--model is for --scorer model, not {kind}")
    if device is not None and kind != "analytic":
        raise CksolveError(f"--device is for --scorer analytic, not {kind}")
    if factors is not None and kind != "analytic":
        raise CksolveError(f"--factors is for --scorer analytic, not {kind}")
    paths = [str(p) for p in measurements]
    # on a terminal, past 1 s: reading the model, then the evaluation's steps (n of N)
    with Progress(f"evaluating the {kind} scorer", ticking=True):
        if model is not None:
            phase("reading the model")
        scorer = scoring.get_scorer("model", path=model) if kind == "model" else None
        if scorer is not None:
            made_arch, made_dtype = scorer.made_for()
            arch, dtype = arch or made_arch, dtype or made_dtype
        if not arch:
            raise CksolveError(f"--scorer {kind} needs --arch" + (" (the model's spec names none)" if model else ""))
        arch = one_arch(arch)
        hygiene = hygiene_options(arch, kernel_map, min_written, keep_invalid)
        read = None
        if kind == "measured":  # the truth and the scorer are the same rows, read once
            read = [workload.read_measurement_file(p) for p in paths]
            scorer = scoring.get_scorer("measured", path=", ".join(paths), rows=[m for rows in read for m in rows],
                                        hygiene=hygiene)
        elif kind == "analytic":
            scorer = scoring.get_scorer("analytic", device=device, factors=factors)  # prepared once the dtype is known
        elif kind == "padding":
            scorer = scoring.get_scorer("padding")
        result, verdict = scoring.evaluate_scorer(scorer, paths, arch, _dtype(dtype) if dtype else None, hygiene, read)
    say_hygiene(verdict)
    write_stdout(json.dumps(result, indent=2) + "\n" if fmt == "json" else scoring.evaluation_text(result, kind))


@app.command("select")
def select_cmd(
    problem: Optional[str] = typer.Option(None, "--problem", "-p", metavar="PROBLEM", help="FIELD=VALUE,..."),
    problems: Optional[Path] = typer.Option(None, "--problems", metavar="FILE",
                                            help="CSV with CK's header, or JSONL with the same keys."),
    rule_set: Optional[str] = typer.Option(None, "--rule-set", "-r", metavar="RULE_SET",
                                           help=f"{choices(query.RULE_SETS)}, or a rule-set file."),
    names: Optional[Path] = typer.Option(None, "--names", metavar="FILE", help="Rank the kernels this file lists."),
    arch: str = OneArchOpt,
    dtype: str = DtypeOpt,
    model: Optional[Path] = typer.Option(None, "--model", metavar="DIR", help="Score with this model directory."),
    measured: Optional[Path] = typer.Option(None, "--measurements", metavar="FILE",
                                            help="Score with measured TFLOPS (unmeasured kernels score 0)."),
    device: Optional[str] = typer.Option(None, "--device", metavar="DEVICE",
                                         help="The analytic model's device (default: the arch's, see `archs`)."),
    scorer_name: Optional[str] = scorer_option(SELECT_SCORERS, "analytic"),
    allow_unmeasured: bool = AllowUnmeasuredOpt,
    factors: Optional[Path] = FactorsOpt,
    top: int = typer.Option(5, "--top", metavar="K", help="Kernels per problem."),
    fmt: str = format_option("table", SELECT_FORMATS),
    output: Optional[Path] = OutputOpt,
    builder_configs: Optional[str] = BuilderOpt,
    kernel_map: Optional[Path] = KernelMapOpt,
    min_written: float = MinWrittenOpt,
    keep_invalid: bool = KeepInvalidOpt,
) -> None:
    """Per problem, the K best kernels that can run it (CK Tile's run-time rules), by a scorer."""
    from .. import scoring, workload  # deferred: the workload and scoring layers load only for their commands

    check_format(fmt, SELECT_FORMATS)
    if (problem is None) == (problems is None):
        raise CksolveError("give one of --problem and --problems")
    if (rule_set is None) == (names is None):
        raise CksolveError("give one of --rule-set and --names")
    if model is not None and measured is not None:
        raise CksolveError("give at most one of --model and --measurements")
    if factors is not None and (model is not None or measured is not None):
        raise CksolveError("--factors sets the analytic model's factors: not with --model or --measurements")
    kind = scorer_kind(scorer_name, SELECT_SCORERS, "analytic", model, measured, "select")
    for given, option in ((device, "--device"), (factors, "--factors")):
        if given is not None and kind == "padding":
            raise CksolveError(f"{option} is for --scorer analytic, not padding")
    if top < 1:
        raise CksolveError(f"--top {top} must be at least 1")
    if allow_unmeasured and measured is None:
        raise CksolveError("--allow-unmeasured goes with --measurements")
    refuse_unwritable(output)
    arch, dtype = one_arch(arch), _dtype(dtype)
    plist = [workload.parse_problem(problem)] if problem is not None else workload.read_problems(problems)
    rs = load_rule_set(rule_set, builder_configs) if rule_set is not None else scoring.names_rule_set(names)
    if kind == "model":
        scorer = scoring.get_scorer("model", path=model)
    elif kind == "measured":
        scorer = scoring.get_scorer("measured", path=measured,
                                    hygiene=hygiene_options(arch, kernel_map, min_written, keep_invalid))
    else:
        scorer = scoring.get_scorer(kind, device=device, factors=factors)
    scorer.prepare(arch, dtype)  # a device of another arch, a model of another dtype: one error before any output
    say_hygiene(scorer.hygiene)
    note = scorer.unmeasured_note(plist, dtype, allow_unmeasured)
    say(f"ranking by {scorer.describe()}")
    if note:
        say(note)
    records = scoring.select(plist, rs, arch, dtype, scorer, top)
    if output is None:
        blocked = scoring.write_select(records, fmt, StdoutStream())
    else:
        with atomic_text_stream(Path(output)) as out:
            blocked = scoring.write_select(records, fmt, out)
    if blocked:
        say(f"note: no kernel can run {blocked} of {len(plist)} problems (see blocked_by)")
