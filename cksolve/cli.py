"""The ``cksolve`` command: parse options, call :mod:`cksolve.query`, print.

Bad input never produces a traceback: every user error becomes one line on
stderr and exit code 2 (see ``main``). Output files are written whole or not at
all (temp file + rename).
"""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.exceptions import Abort, Exit, TyperException

from . import query
from .query import CksolveError, shorten

app = typer.Typer(
    name="cksolve",
    help="Declarative configuration space for CK Tile grouped-convolution kernels.",
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _choices(values) -> str:
    return ", ".join(map(str, values))


# help texts and choices come from the registries (rule sets, axes, archs, formats)
RuleSetOpt = typer.Option(..., "--rule-set", "-r", metavar="RULE_SET",
                          help=f"{_choices(query.RULE_SETS)}, or a rule-set file.")
ArchOpt = typer.Option(None, "--arch", "-a", metavar="ARCH",
                       help=f"Architecture(s), repeatable or comma-separated: {_choices(query.ARCHS)}.")
VariantOpt = typer.Option(None, "--variant", metavar="VARIANT", help=f"{_choices(query.VARIANTS)}.")
DtypeOpt = typer.Option(None, "--dtype", metavar="DTYPE", help=f"{_choices(query.DTYPES)}.")
NdimOpt = typer.Option(None, "--ndim", metavar="NDIM", help=f"{_choices(query.NDIMS)}.")
OneArchOpt = typer.Option(..., "--arch", "-a", metavar="ARCH", help=f"Architecture: {_choices(query.ARCHS)}.")
BuilderOpt = typer.Option(None, "--builder-configs", envvar="CKSOLVE_BUILDER_CONFIGS", metavar="DIR",
                          help="Directory of CK Builder .conf files (for tests, profiler).")


@app.callback()
def _global_options(
    strict: bool = typer.Option(False, "--strict", help="Errors instead of warnings for CK Builder .conf entries "
                                                        "the Builder would drop (same as CKSOLVE_STRICT=1)."),
) -> None:
    """Declarative configuration space for CK Tile grouped-convolution kernels."""
    if strict:
        os.environ[query.STRICT_ENV] = "1"


def _format_opt(default: str, offered) -> typer.Option:
    """``--format``: one of the shared formats (``cksolve.formats``) or a command's own report."""
    return typer.Option(default, "--format", "-f", metavar="FORMAT", help=f"{_choices(offered)}.")


#: formats each listing command offers (names/jsonl/csv/table are the shared writers)
ENUMERATE_FORMATS = ("names", "jsonl", "csv", "table")
COUNT_FORMATS = ("table", "json")
CHECK_FORMATS = ("text", "jsonl")
DIFF_FORMATS = ("table", "jsonl")
ARCHS_FORMATS = ("table", "json")
APPLICABLE_FORMATS = ("names", "jsonl", "table")
COVERAGE_FORMATS = ("table", "jsonl", "csv")


def _write(text: str, output: Optional[Path]) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from .emit.files import write_text_atomic

    write_text_atomic(Path(output), text)


def _outputs(*paths: Optional[Path]) -> None:
    """Refuse an output that cannot be written before the work (and before another output is written)."""
    from .emit.files import check_writable

    for path in paths:
        if path is not None:
            check_writable(Path(path))


@app.command("enumerate")
def enumerate_cmd(
    rule_set: str = RuleSetOpt,
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    fmt: str = _format_opt("names", ENUMERATE_FORMATS),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    builder_configs: Optional[str] = BuilderOpt,
    limit: int = typer.Option(10_000_000, "--limit", metavar="N", help="Refuse to list more configs than this."),
) -> None:
    """List every config of a rule set valid for the selected architectures."""
    query.check_format(fmt, ENUMERATE_FORMATS)
    _outputs(output)
    selection = query.select(arch, variant, dtype, ndim)
    rs = query.load_rule_set(rule_set, builder_configs)
    if fmt == "names":  # the main job: names straight from the solver, no records formed
        _write("".join(f"{n}\n" for n in query.enumerate_names(rs, selection, limit)), output)
        return
    _write(_records_text(query.enumerate_records(rs, selection, limit), fmt), output)


#: the columns a kernel listing shows as a table
RECORD_COLUMNS = (*query.Combo._fields, "name")


def _records_text(records, fmt: str) -> str:
    """Kernel records (``query.Record``) in one of the shared formats."""
    return query.render(fmt, list(records), RECORD_COLUMNS)


@app.command("count")
def count_cmd(
    rule_set: str = RuleSetOpt,
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    by: Optional[str] = typer.Option(None, "--by", metavar="FIELDS", help=f"Group by any of {','.join(query.Combo._fields)}."),
    fmt: str = _format_opt("table", COUNT_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Count configs without listing them."""
    query.check_format(fmt, COUNT_FORMATS)
    keys = query.split_values([by], "--by") if by is not None else []
    for k in keys:
        if k not in query.Combo._fields:
            raise CksolveError(f"unknown --by field {shorten(k)}; valid: {_choices(query.Combo._fields)}")
    selection = query.select(arch, variant, dtype, ndim)
    rs = query.load_rule_set(rule_set, builder_configs)
    counts = query.count_records(rs, selection)
    groups: dict[tuple, int] = {}
    for combo, n in counts.items():
        key = tuple(getattr(combo, k) for k in keys)
        groups[key] = groups.get(key, 0) + n
    total = sum(counts.values())
    if fmt == "json":
        payload = {"total": total, "groups": [dict(zip(keys, key), count=n) for key, n in groups.items()] if keys else []}
        sys.stdout.write(json.dumps(payload) + "\n")
    elif keys:
        rows = [[str(v) for v in key] + [str(n)] for key, n in groups.items()]
        sys.stdout.write(query.table_text(keys + ["count"], rows + [["total"] + [""] * (len(keys) - 1) + [str(total)]]))
    else:
        sys.stdout.write(f"{total}\n")


def _one_arch(arch: str) -> str:
    return query.select(archs=[arch]).archs[0] if "," not in arch else _bad_multi(arch)


def _bad_multi(arch: str) -> str:
    raise CksolveError(f"--arch takes one architecture here, got {shorten(arch)}")


@app.command("check")
def check_cmd(
    source: str = typer.Argument(..., help="File of kernel names, one per line, or - for stdin."),
    arch: str = OneArchOpt,
    rule_set: Optional[str] = typer.Option(None, "--rule-set", "-r", metavar="RULE_SET",
                                           help=f"Also check membership of this rule set: {_choices(query.RULE_SETS)}, "
                                                "or a rule-set file."),
    fmt: str = _format_opt("text", CHECK_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Say for each kernel name whether it is valid for ARCH, and why not (exit 1 if any is not)."""
    query.check_format(fmt, CHECK_FORMATS)
    arch = _one_arch(arch)
    rs = query.load_rule_set(rule_set, builder_configs) if rule_set else None
    all_ok = True
    for r in query.check_names(source, arch, rs):  # streamed: one record out per name in
        all_ok &= r.ok
        if fmt == "jsonl":
            sys.stdout.write(json.dumps(r.as_dict()) + "\n")
            continue
        state = "valid" if r.valid else "invalid"
        if rs is not None:
            state += f", {'in' if r.member else 'not in'} {rs.name}"
        sys.stdout.write(f"{r.name}: {state}\n")
        sys.stdout.writelines(f"  - {constraint}: {message}\n" for constraint, message in r.violations)
    raise typer.Exit(0 if all_ok else 1)


@app.command("explain")
def explain_cmd(
    name: str = typer.Argument(..., help="A kernel name."),
    arch: str = OneArchOpt,
    rule_set: Optional[str] = typer.Option(None, "--rule-set", "-r", metavar="RULE_SET",
                                           help=f"Rule set to explain membership in: {_choices(query.RULE_SETS)}, "
                                                "or a rule-set file."),
    nearest: int = typer.Option(3, "--nearest", metavar="N", help="How many nearest valid configs to show."),
    problem: Optional[str] = typer.Option(None, "--problem", "-p", metavar="PROBLEM",
                                          help="Also explain whether NAME can run this problem (FIELD=VALUE,...)."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Explain in words every constraint NAME violates, and show the nearest valid configs.

    Exit 1 when NAME is not valid for ARCH, not in --rule-set, or cannot run --problem (as check).
    """
    arch = _one_arch(arch)
    rs = query.load_rule_set(rule_set, builder_configs) if rule_set else None
    ok, text = query.explain_name(name, arch, rs, nearest, problem)
    sys.stdout.write(text)
    raise typer.Exit(0 if ok else 1)


@app.command("diff")
def diff_cmd(
    a: str = typer.Argument(..., help="Rule set name, rule-set file, or file of names."),
    b: str = typer.Argument(..., help="Rule set name, rule-set file, or file of names."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    fmt: str = _format_opt("table", DIFF_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Compare two rule sets (or files of names): only-in-A, only-in-B, common, and why."""
    query.check_format(fmt, DIFF_FORMATS)
    selection = query.select(arch, variant, dtype, ndim)
    sa, sb = query.open_source(a, builder_configs), query.open_source(b, builder_configs)
    diffs = query.diff_sources(sa, sb, selection)
    out = []
    if fmt == "jsonl":
        for d in diffs:
            c = d.combo
            base = {"arch": c.arch, "variant": c.variant, "dtype": c.dtype, "ndim": c.ndim}
            out.extend(json.dumps({**base, "side": sa.label, "only_in": "a", "name": n}) + "\n" for n in d.only_a)
            out.extend(json.dumps({**base, "side": sb.label, "only_in": "b", "name": n}) + "\n" for n in d.only_b)
    else:
        ta = tb = tc = 0
        for d in diffs:
            ta, tb, tc = ta + len(d.only_a), tb + len(d.only_b), tc + d.common
            out.append(f"{d.combo.key}: only in {sa.label}: {len(d.only_a)}, only in {sb.label}: {len(d.only_b)}, "
                       f"common: {d.common}\n")
            for label, why in ((sa.label, d.why_a), (sb.label, d.why_b)):
                other = sb.label if label == sa.label else sa.label
                for axis, value, n, exclusive in why[:10]:
                    note = f" (never in {other})" if exclusive else ""
                    out.append(f"  only in {label}: {n} configs with {axis}={query.value_text(value)}{note}\n")
        out.append(f"total: only in {sa.label}: {ta}, only in {sb.label}: {tb}, common: {tc}\n")
    sys.stdout.write("".join(out))


@app.command("emit")
def emit_cmd(
    out: Path = typer.Option(..., "--out", "-o", metavar="DIR",
                             help="Output directory (one subdirectory per arch when several)."),
    rule_set: Optional[str] = typer.Option(None, "--rule-set", "-r", metavar="RULE_SET",
                                           help=f"{_choices(query.RULE_SETS)}, or a rule-set file."),
    names: Optional[Path] = typer.Option(None, "--names", metavar="FILE", help="Emit exactly the kernels named in this file."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", metavar="N", help="Parallel renderers (default: all cores)."),
    builder_configs: Optional[str] = BuilderOpt,
    arch_dirs: Optional[bool] = typer.Option(None, "--arch-dirs/--no-arch-dirs",
                                             help="One tree per arch, OUT/ARCH (default: when several archs)."),
    cmake_list: Optional[Path] = typer.Option(None, "--cmake-list", metavar="FILE",
                                              help="Also write the CMake list of trees, sources and inputs here."),
) -> None:
    """Write a CK Tile kernel instance (header, .cpp, dispatcher wrapper) for every config."""
    from .emit_cli import run_emit  # deferred: the writer loads only when emitting

    code = run_emit(out=out, rule_set=rule_set, names=names, arch=arch, variant=variant, dtype=dtype, ndim=ndim,
                    jobs=jobs, builder_configs=builder_configs, arch_dirs=arch_dirs, cmake_list=cmake_list)
    raise typer.Exit(code)


@app.command("cmake-dir")
def cmake_dir_cmd() -> None:
    """Print the directory holding cksolveConfig.cmake (for -Dcksolve_DIR=... or CMAKE_PREFIX_PATH)."""
    from .emit.cmake import CMAKE_DIR

    sys.stdout.write(f"{CMAKE_DIR}\n")


@app.command("rule-sets")
def rule_sets_cmd(
    show: Optional[str] = typer.Option(None, "--show", metavar="RULE_SET",
                                       help="Print this rule set's (or file's) constraints."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """List the rule sets with a one-line description (--show R: R's constraints)."""
    if show is not None:
        _show_rule_set(show, query.select(arch, variant, dtype, ndim), builder_configs)
        return
    described = query.rule_set_descriptions()
    width = max(len(n) for n in described)
    sys.stdout.write("".join(f"{n.ljust(width)}  {desc}\n" for n, desc in described.items()))


def _show_rule_set(name: str, selection, builder_configs: Optional[str]) -> None:
    rs = query.load_rule_set(name, builder_configs)
    rows = []
    for c in query.rule_set_constraints(rs, selection):
        n = "-" if c.rows is None else (str(c.rows[0]) if c.rows[0] == c.rows[1] else f"{c.rows[0]}..{c.rows[1]}")
        rows.append([c.name, ",".join(c.scope), c.form, c.applies_to, n, str(c.combos), c.source])
    sys.stdout.write(f"{rs.name}: {rs.description}\n")
    sys.stdout.write(query.table_text(["name", "scope", "form", "kind", "rows", "combos", "source"], rows))


@app.command("archs")
def archs_cmd(fmt: str = _format_opt("table", ARCHS_FORMATS)) -> None:
    """List the architectures and their facts."""
    query.check_format(fmt, ARCHS_FORMATS)
    if fmt == "json":
        sys.stdout.write(json.dumps(query.archs_document()) + "\n")
        return
    rows = []
    for f in query.arch_facts_list():
        tiles = "; ".join(f"{k.split('_')[0]}: " + " ".join("x".join(map(str, t)) for t in v) for k, v in f.warp_tiles.items())
        rows.append([f.name, f.family, str(f.warp_size), " ".join("x".join(map(str, w)) for w in f.wave_splits), tiles])
    sys.stdout.write(query.table_text(["arch", "family", "wave", "wave splits", "warp tiles"], rows))


ProblemDtypeOpt = typer.Option(None, "--dtype", metavar="DTYPE", help=f"{_choices(query.DTYPES)} (default: all).")
ProblemsOpt = typer.Option(..., "--problems", metavar="FILE", help="CSV with CK's header, or JSONL with the same keys.")


@app.command("applicable")
def applicable_cmd(
    problem: str = typer.Option(..., "--problem", "-p", metavar="PROBLEM",
                                help="FIELD=VALUE,... with CK's field names and defaults."),
    rule_set: str = RuleSetOpt,
    arch: str = OneArchOpt,
    dtype: Optional[List[str]] = ProblemDtypeOpt,
    fmt: str = _format_opt("names", APPLICABLE_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """List every kernel of a rule set, valid for ARCH, that can run one convolution problem."""
    query.check_format(fmt, APPLICABLE_FORMATS)
    arch = _one_arch(arch)
    dtypes = query.select(dtypes=dtype).dtypes
    query.parse_problem(problem)  # a bad spec is reported before the rule set is loaded
    rs = query.load_rule_set(rule_set, builder_configs)
    sys.stdout.write(_records_text(query.applicable_records(problem, rs, arch, dtypes), fmt))


@app.command("coverage")
def coverage_cmd(
    problems: Path = ProblemsOpt,
    rule_set: str = RuleSetOpt,
    arch: str = OneArchOpt,
    dtype: Optional[List[str]] = ProblemDtypeOpt,
    fmt: str = _format_opt("table", COVERAGE_FORMATS),
    with_kernels: bool = typer.Option(False, "--with-kernels", help="List the applicable kernels of each problem."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """For every problem of a workload, how many kernels of a rule set can run it (and why not)."""
    query.check_format(fmt, COVERAGE_FORMATS)
    _outputs(output)
    arch = _one_arch(arch)
    dtypes = query.select(dtypes=dtype).dtypes
    rs = query.load_rule_set(rule_set, builder_configs)
    records = query.coverage_stream(problems, rs, arch, dtypes, with_kernels, with_rejected=fmt == "table")
    if output is None:
        query.write_coverage(records, fmt, sys.stdout, with_kernels)
    else:
        from .emit.files import atomic_text_stream

        with atomic_text_stream(Path(output)) as out:
            query.write_coverage(records, fmt, out, with_kernels)


@app.command("minimize")
def minimize_cmd(
    problems: Path = ProblemsOpt,
    rule_set: str = RuleSetOpt,
    arch: str = OneArchOpt,
    dtype: Optional[List[str]] = ProblemDtypeOpt,
    keep: float = typer.Option(0.9, "--keep", metavar="KEEP",
                               help="Each problem keeps a kernel scoring at least KEEP x R's best."),
    per_problem: int = typer.Option(1, "--per-problem", metavar="N", help="Kernels each covered problem keeps (at least)."),
    max_kernels: Optional[int] = typer.Option(None, "--max-kernels", metavar="N",
                                              help="Keep at most N kernels; maximise the problems with a good one."),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", metavar="SECONDS",
                                               help="Seconds for the whole search (default: 60); then the best set found, FEASIBLE with its gap."),
    perf: Optional[Path] = typer.Option(None, "--perf", metavar="FILE", help="Measured results (CSV/JSONL: problem fields, kernel, "
                                                             "tflops or time_ms) instead of the analytic score."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the kept names here (else stdout)."),
    output_rule_set: Optional[Path] = typer.Option(None, "--output-rule-set", metavar="FILE",
                                                   help="Also write a rule-set file listing exactly the kept kernels."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """The fewest kernels of a rule set that keep a workload covered and fast (CP-SAT)."""
    request = query.minimize_request(keep=keep, per_problem=per_problem, max_kernels=max_kernels,
                                     time_limit=time_limit)  # checked before anything is loaded
    _outputs(output, output_rule_set)
    arch = _one_arch(arch)
    dtypes = query.select(dtypes=dtype).dtypes
    rs = query.load_rule_set(rule_set, builder_configs)
    result = query.minimize(problems, rs, arch, dtypes, request, perf=perf)
    names = "".join(f"{c.name()}\n" for c in query.canonical_order(result.configs()))
    if output_rule_set is not None:
        desc = f"minimize: {len(result.kept)} kernels of {rs.name} for {problems.name} on {arch}, keep {keep}"
        _write(query.rule_set_file(result.configs(), desc), output_rule_set)
    summary = "".join(f"{line}\n" for line in result.summary())
    if output is not None:
        _write(names, output)
        sys.stdout.write(summary)
    else:
        sys.stdout.write(names)
        sys.stderr.write(summary)


# --- features: CK's ML kernel-selector inputs (docs/ml-features.md) -------------------------


@app.command("features")
def features_cmd(
    rule_set: str = RuleSetOpt,
    arch: str = OneArchOpt,
    variant: Optional[List[str]] = typer.Option(None, "--variant", metavar="VARIANT",
                                                help=f"{_choices(query.VARIANTS)} (default: the GEMM ones)."),
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    problems: Optional[Path] = typer.Option(None, "--problems", metavar="FILE",
                                            help="Rows per (problem, applicable kernel) pair: CSV with CK's header, "
                                                 "or JSONL."),
    fmt: str = _format_opt("csv", query.FEATURE_FORMATS),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    semantics: str = typer.Option("ck", "--semantics", metavar="SEMANTICS",
                                  help="ck (what CK's engine computes) or exact (true values)."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Features of CK's ML kernel selector, per kernel or per (problem, kernel) pair that can run."""
    query.check_format(fmt, query.FEATURE_FORMATS)
    _outputs(output)
    selection = query.select([_one_arch(arch)], variant or query.gemm_variants(query.VARIANTS), dtype, ndim)
    rs = query.load_rule_set(rule_set, builder_configs)
    table = query.feature_table(rs, selection, problems, semantics)
    _write(query.feature_text(table, fmt), output)
    if table.unread:
        sys.stderr.write(f"cksolve: note: {len(table.unread)} kernels have dispatcher names CK's parser does not "
                         f"read (groups_to_merge, two_stage, wavelet); their ck kernel columns are CK's defaults\n")


PIPELINE_VARIANT_FORMATS = ("table", "csv", "jsonl")


@app.command("pipeline-variants")
def pipeline_variants_cmd(
    variant: Optional[List[str]] = typer.Option(None, "--variant", metavar="VARIANT",
                                                help=f"{_choices(query.VARIANTS)} (default: the GEMM ones)."),
    arch: Optional[List[str]] = ArchOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    fmt: str = _format_opt("table", PIPELINE_VARIANT_FORMATS),
) -> None:
    """The valid (pipeline, scheduler, double LDS buffer, split image) combinations, from the constraints."""
    query.check_format(fmt, PIPELINE_VARIANT_FORMATS)
    found = query.pipeline_variants(query.select(arch, variant or query.gemm_variants(query.VARIANTS), dtype, ndim))
    columns = ("arch", "variant", "pipeline", "scheduler", "double_smem_buffer", "split_image", "witness")
    if fmt == "table":
        rows = [[v.arch, v.variant, v.pipeline, v.scheduler, query.value_text(v.double_smem_buffer),
                 query.value_text(v.split_image)] for v in found]
        sys.stdout.write(query.table_text(list(columns[:-1]), rows) + f"{len(found)} combinations\n")
    else:
        sys.stdout.write(query.render(fmt, [dict(zip(columns, v)) for v in found], columns))


# --- audit (issue 15) ------------------------------------------------------------------


@app.command("audit")
def audit_cmd(
    rule_set: str = typer.Option(..., "--rule-set", "-r", metavar="RULE_SET",
                                 help=f"{_choices(query.RULE_SETS)}, a rule-set file, or '{query.AUDIT_ALL}' "
                                      "(every built-in set and CK's hierarchy)."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    against: Optional[List[str]] = typer.Option(None, "--against", metavar="R2[:RELATION]",
                                                help="R2, R2:subset or R2:superset; repeatable. Default relation: subset."),
    fmt: str = _format_opt("text", query.AUDIT_FORMATS),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="CATEGORIES",
                                          help="Exit 1 if any of these has findings: empty,invalid,containment,dead,idle."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Explain what a rule set proposes that the arch rules reject: empty combinations, dead rows, idle rules."""
    query.check_format(fmt, query.AUDIT_FORMATS)
    _outputs(output)
    gates = query.split_values([fail_on] if fail_on is not None else [], "--fail-on")
    reports, checks, failed = query.audit(rule_set, query.select(arch, variant, dtype, ndim), against or (),
                                          builder_configs, gates)
    _write(query.audit_text(reports, checks, fmt, rule_set), output)
    raise typer.Exit(1 if failed else 0)


# --- bad input as one line (issue 11) ------------------------------------------------------


def _empty_option(command, argv: list[str]) -> Optional[str]:
    """The first option given an empty value (``--out ''``, ``--arch=``): click would read it as
    "." or "everything", so it is refused before parsing."""
    commands = getattr(command, "commands", {})
    at = next((i for i, arg in enumerate(argv) if arg in commands), None)  # after global options (--strict)
    if at is None:
        return None
    takes = {o for p in commands[argv[at]].params if getattr(p, "opts", None) and not getattr(p, "is_flag", True)
             for o in p.opts + p.secondary_opts}
    for i, arg in enumerate(argv[at + 1:], at + 1):
        if arg == "--":
            return None
        name, eq, value = arg.partition("=")
        if eq and name in takes and not value:
            return name
        if arg in takes and i + 1 < len(argv) and argv[i + 1] == "":
            return arg
    return None


def _finish_output() -> None:
    """Flush stdout inside ``main`` so that a full disk (/dev/full) is an error line, not a traceback at exit."""
    if sys.stdout is None:
        raise CksolveError("cannot write output: stdout is closed")
    sys.stdout.flush()


def _output_error(exc: OSError) -> str:
    if exc.filename is not None:  # not stdout: a file the library did not wrap
        return f"{shorten(str(exc.filename), quote=False)}: {exc.strerror or exc}"
    return f"cannot write output: {exc.strerror or exc}"


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning every user error into one line and exit 2."""
    command = typer.main.get_command(app)
    argv = sys.argv[1:] if argv is None else list(argv)
    strict_env = os.environ.get(query.STRICT_ENV)  # --strict sets it for this run only
    try:
        _run(command, argv)
    finally:
        if strict_env is None:
            os.environ.pop(query.STRICT_ENV, None)
        else:
            os.environ[query.STRICT_ENV] = strict_env


def _run(command, argv: list[str]) -> None:
    try:
        empty = _empty_option(command, argv)
        if empty is not None:
            raise CksolveError(f"empty value for {empty}")
        if sys.stdout is None:
            raise CksolveError("cannot write output: stdout is closed")
        if hasattr(sys.stdout, "reconfigure"):  # a non-UTF-8 locale escapes what it cannot print
            sys.stdout.reconfigure(errors="backslashreplace")
        rv = command.main(args=argv, prog_name="cksolve", standalone_mode=False)
        _finish_output()
    except Exit as exc:
        _exit_after_flush(exc.exit_code)
    except Abort:
        sys.stderr.write("cksolve: aborted\n")
        sys.exit(130)
    except TyperException as exc:  # usage errors: unknown option, missing argument, ...
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.stdout.write(exc.format_message() + "\n")
            sys.exit(0)
        sys.stderr.write(f"cksolve: error: {' '.join(exc.format_message().split())}\n")
        sys.exit(2)
    except CksolveError as exc:
        sys.stderr.write(f"cksolve: error: {' '.join(str(exc).split())}\n")
        sys.exit(2)
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(0)
    except OSError as exc:  # stdout on a full disk, or closed under us
        _quiet_stdout()
        sys.stderr.write(f"cksolve: error: {_output_error(exc)}\n")
        sys.exit(2)
    except KeyboardInterrupt:
        sys.stderr.write("cksolve: interrupted\n")
        sys.exit(130)
    sys.exit(rv if isinstance(rv, int) else 0)


def _exit_after_flush(code: int) -> None:
    try:
        _finish_output()
    except (OSError, CksolveError) as exc:
        _quiet_stdout()
        message = _output_error(exc) if isinstance(exc, OSError) else str(exc)
        sys.stderr.write(f"cksolve: error: {message}\n")
        sys.exit(2)
    sys.exit(code)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's own flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass


# --- the console script (issue 16) ----------------------------------------------------


def run() -> None:
    """The ``cksolve`` process: one command, then exit -- with the cyclic garbage collector off.

    What a command builds (tables, solutions, configs, names) is acyclic and
    lives until the process ends, so collections only walk it: measured, they
    cost 0.03-0.1 s of CPU in ``enumerate`` of full, full-tests and tiny,
    and peak memory is the same without them for enumerate, emit and minimize.
    :func:`main`, which tests and other long-lived callers use, leaves the
    collector alone.
    """
    gc.disable()
    main()


if __name__ == "__main__":  # pragma: no cover
    run()
