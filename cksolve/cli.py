"""The ``cksolve`` command: parse options, call :mod:`cksolve.query`, print.

Bad input never produces a traceback: every user error becomes one line on
stderr and exit code 2 (see ``main``). Output files are written whole or not at
all (temp file + rename).
"""

from __future__ import annotations

import csv
import gc
import io
import json
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.exceptions import Abort, Exit, TyperException

from .errors import CksolveError, shorten

app = typer.Typer(
    name="cksolve",
    help="Declarative configuration space for CK Tile grouped-convolution kernels.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

RuleSetOpt = typer.Option(..., "--rule-set", "-r", help="default, full, full-tests, tiny, tests, profiler, or a rule-set file.")
ArchOpt = typer.Option(None, "--arch", "-a", help="Architecture(s), repeatable or comma-separated.")
VariantOpt = typer.Option(None, "--variant", help="forward, bwd_data, bwd_weight, forward_depthwise.")
DtypeOpt = typer.Option(None, "--dtype", help="fp16, bf16, fp32.")
NdimOpt = typer.Option(None, "--ndim", help="1, 2, 3.")
BuilderOpt = typer.Option(None, "--builder-configs", envvar="CKSOLVE_BUILDER_CONFIGS",
                          help="Directory of CK Builder .conf files (for tests, profiler).")


@app.callback()
def _global_options(
    strict: bool = typer.Option(False, "--strict", help="Errors instead of warnings for CK Builder .conf entries "
                                                        "the Builder would drop (same as CKSOLVE_STRICT=1)."),
) -> None:
    """Declarative configuration space for CK Tile grouped-convolution kernels."""
    if strict:
        from .query import STRICT_ENV

        os.environ[STRICT_ENV] = "1"


def _write(text: str, output: Optional[Path]) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from .emit.files import write_text_atomic

    write_text_atomic(Path(output), text)


def _selection(arch, variant, dtype, ndim):
    from . import query

    return query.select(arch, variant, dtype, ndim)


@app.command("enumerate")
def enumerate_cmd(
    rule_set: str = RuleSetOpt,
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    fmt: str = typer.Option("names", "--format", "-f", help="names, jsonl, csv or table."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write here instead of stdout."),
    builder_configs: Optional[str] = BuilderOpt,
    limit: int = typer.Option(10_000_000, "--limit", help="Refuse to list more configs than this."),
) -> None:
    """List every config of a rule set valid for the selected architectures."""
    from . import query

    if fmt not in ("names", "jsonl", "csv", "table"):
        raise CksolveError(f"unknown format {shorten(fmt)}; valid: names, jsonl, csv, table")
    selection = _selection(arch, variant, dtype, ndim)
    rs = query.load_rule_set(rule_set, builder_configs)
    if limit < 0:
        raise CksolveError(f"--limit {limit} must not be negative")
    if fmt == "names":  # the main job: names straight from the solver, no records formed
        _write("".join(f"{n}\n" for n in query.enumerate_names(rs, selection, limit)), output)
        return
    _write(_records_text(query.enumerate_records(rs, selection, limit), fmt), output)


def _records_text(records, fmt: str) -> str:
    """Kernel records (``query.Record``) as names, jsonl, csv or a table."""
    if fmt == "names":
        return "".join(f"{r.name}\n" for r in records)
    if fmt == "jsonl":
        return "".join(json.dumps(r.as_dict(), sort_keys=False) + "\n" for r in records)
    if fmt == "csv":
        return _csv_text([r.as_dict() for r in records])
    return _table_text(["arch", "variant", "dtype", "ndim", "name"],
                       [[r.combo.arch, r.combo.variant, r.combo.dtype, str(r.combo.ndim), r.name] for r in records])


def _csv_text(rows: list[dict]) -> str:
    buf = io.StringIO()
    columns = list(dict.fromkeys(k for row in rows for k in row))
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue() if rows else ""


def _table_text(header: list[str], rows: list[list[str]]) -> str:
    from rich.console import Console
    from rich.table import Table

    table = Table(*header, box=None, pad_edge=False)
    for row in rows:
        table.add_row(*row)
    buf = io.StringIO()
    Console(file=buf, width=400, color_system=None).print(table)
    return buf.getvalue()


@app.command("count")
def count_cmd(
    rule_set: str = RuleSetOpt,
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    by: Optional[str] = typer.Option(None, "--by", help="Group by any of arch,variant,dtype,ndim."),
    fmt: str = typer.Option("table", "--format", "-f", help="table or json."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Count configs without listing them."""
    from . import query

    if fmt not in ("table", "json"):
        raise CksolveError(f"unknown format {shorten(fmt)}; valid: table, json")
    keys = query.split_values([by], "--by") if by is not None else []
    for k in keys:
        if k not in ("arch", "variant", "dtype", "ndim"):
            raise CksolveError(f"unknown --by field {shorten(k)}; valid: arch, variant, dtype, ndim")
    selection = _selection(arch, variant, dtype, ndim)
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
        sys.stdout.write(_table_text(keys + ["count"], rows + [["total"] + [""] * (len(keys) - 1) + [str(total)]]))
    else:
        sys.stdout.write(f"{total}\n")


def _one_arch(arch: str) -> str:
    from . import query

    return query.select(archs=[arch]).archs[0] if "," not in arch else _bad_multi(arch)


def _bad_multi(arch: str) -> str:
    raise CksolveError(f"--arch takes one architecture here, got {shorten(arch)}")


@app.command("check")
def check_cmd(
    source: str = typer.Argument(..., help="File of kernel names, one per line, or - for stdin."),
    arch: str = typer.Option(..., "--arch", "-a", help="Architecture to check against."),
    rule_set: Optional[str] = typer.Option(None, "--rule-set", "-r", help="Also check membership of this rule set."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or jsonl."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Say for each kernel name whether it is valid for ARCH, and why not."""
    from . import query

    if fmt not in ("text", "jsonl"):
        raise CksolveError(f"unknown format {shorten(fmt)}; valid: text, jsonl")
    arch = _one_arch(arch)
    rs = query.load_rule_set(rule_set, builder_configs) if rule_set else None
    all_ok = True
    for record in query.check_names(source, arch, rs):  # streamed: one line out per name in
        all_ok &= record["valid"] and record.get("member", True)
        if fmt == "jsonl":
            sys.stdout.write(json.dumps(record) + "\n")
            continue
        state = "valid" if record["valid"] else "invalid"
        if rs is not None:
            state += f", {'in' if record['member'] else 'not in'} {rs.name}"
        sys.stdout.write(f"{record['name']}: {state}\n")
        sys.stdout.writelines(f"  - {v['constraint']}: {v['message']}\n" for v in record["violations"])
    raise typer.Exit(0 if all_ok else 1)


@app.command("explain")
def explain_cmd(
    name: str = typer.Argument(..., help="A kernel name."),
    arch: str = typer.Option(..., "--arch", "-a"),
    rule_set: Optional[str] = typer.Option(None, "--rule-set", "-r", help="Rule set to explain membership in."),
    nearest: int = typer.Option(3, "--nearest", help="How many nearest valid configs to show."),
    problem: Optional[str] = typer.Option(None, "--problem", "-p",
                                          help="Also explain whether NAME can run this problem (FIELD=VALUE,...)."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Explain in words every constraint NAME violates, and show the nearest valid configs."""
    from . import query

    from .solver.explain import explain
    from .space.naming import parse_name

    if nearest < 0:
        raise CksolveError(f"--nearest {nearest} must not be negative")
    arch = _one_arch(arch)
    rs = query.load_rule_set(rule_set, builder_configs) if rule_set else None
    if problem is None:
        sys.stdout.write(explain(parse_name(name), arch, rs, nearest))
        return
    from .workload import parse_problem
    from .workload.explain import explain_on_problem

    sys.stdout.write(explain_on_problem(parse_name(name), arch, parse_problem(problem), rs, nearest))


@app.command("diff")
def diff_cmd(
    a: str = typer.Argument(..., help="Rule set name, rule-set file, or file of names."),
    b: str = typer.Argument(..., help="Rule set name, rule-set file, or file of names."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    fmt: str = typer.Option("table", "--format", "-f", help="table or jsonl."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Compare two rule sets (or files of names): only-in-A, only-in-B, common, and why."""
    from . import query

    if fmt not in ("table", "jsonl"):
        raise CksolveError(f"unknown format {shorten(fmt)}; valid: table, jsonl")
    selection = _selection(arch, variant, dtype, ndim)
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
                    out.append(f"  only in {label}: {n} configs with {axis}={_fmt_value(value)}{note}\n")
        out.append(f"total: only in {sa.label}: {ta}, only in {sb.label}: {tb}, common: {tc}\n")
    sys.stdout.write("".join(out))


def _fmt_value(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


@app.command("emit")
def emit_cmd(
    out: Path = typer.Option(..., "--out", "-o", help="Output directory (one subdirectory per arch when several)."),
    rule_set: Optional[str] = typer.Option(None, "--rule-set", "-r"),
    names: Optional[Path] = typer.Option(None, "--names", help="Emit exactly the kernels named in this file."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Parallel renderers (default: all cores)."),
    builder_configs: Optional[str] = BuilderOpt,
    arch_dirs: Optional[bool] = typer.Option(None, "--arch-dirs/--no-arch-dirs",
                                             help="One tree per arch, OUT/<arch> (default: when several archs)."),
    cmake_list: Optional[Path] = typer.Option(None, "--cmake-list",
                                              help="Also write the CMake list of trees, sources and inputs here."),
) -> None:
    """Write a CK Tile kernel instance (header, .cpp, dispatcher wrapper) for every config."""
    from .emit_cli import run_emit

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
    show: Optional[str] = typer.Option(None, "--show", help="Print this rule set's (or file's) constraints."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """List the rule sets with a one-line description (--show R: R's constraints)."""
    from .space.rulesets import RULE_SETS

    if show is not None:
        _show_rule_set(show, _selection(arch, variant, dtype, ndim), builder_configs)
        return
    width = max(len(n) for n in RULE_SETS)
    sys.stdout.write("".join(f"{n.ljust(width)}  {desc}\n" for n, (_, _, desc) in RULE_SETS.items()))


def _show_rule_set(name: str, selection, builder_configs: Optional[str]) -> None:
    from . import query

    rs = query.load_rule_set(name, builder_configs)
    rows = []
    for c in query.rule_set_constraints(rs, selection):
        n = "-" if c.rows is None else (str(c.rows[0]) if c.rows[0] == c.rows[1] else f"{c.rows[0]}..{c.rows[1]}")
        rows.append([c.name, ",".join(c.scope), c.form, c.applies_to, n, str(c.combos), c.source])
    sys.stdout.write(f"{rs.name}: {rs.description}\n")
    sys.stdout.write(_table_text(["name", "scope", "form", "kind", "rows", "combos", "source"], rows))


@app.command("archs")
def archs_cmd(fmt: str = typer.Option("table", "--format", "-f", help="table or json.")) -> None:
    """List the architectures and their facts."""
    from .arch.facts import ARCHS, arch_facts, common_facts

    if fmt not in ("table", "json"):
        raise CksolveError(f"unknown format {shorten(fmt)}; valid: table, json")
    facts = [arch_facts(a) for a in ARCHS]
    if fmt == "json":
        payload = [{"arch": f.name, "family": f.family, "warp_size": f.warp_size,
                    "wave_splits": [list(w) for w in f.wave_splits],
                    "warp_tiles": {k: [list(t) for t in v] for k, v in f.warp_tiles.items()}} for f in facts]
        c = common_facts()
        sys.stdout.write(json.dumps({"archs": payload, "lds_capacity": dict(c.lds_capacity),
                                     "element_size": dict(c.element_size)}) + "\n")
        return
    rows = []
    for f in facts:
        tiles = "; ".join(f"{k.split('_')[0]}: " + " ".join("x".join(map(str, t)) for t in v) for k, v in f.warp_tiles.items())
        rows.append([f.name, f.family, str(f.warp_size), " ".join("x".join(map(str, w)) for w in f.wave_splits), tiles])
    sys.stdout.write(_table_text(["arch", "family", "wave", "wave splits", "warp tiles"], rows))


ProblemDtypeOpt = typer.Option(None, "--dtype", help="fp16, bf16, fp32 (default: all).")


@app.command("applicable")
def applicable_cmd(
    problem: str = typer.Option(..., "--problem", "-p", help="FIELD=VALUE,... with CK's field names and defaults."),
    rule_set: str = RuleSetOpt,
    arch: str = typer.Option(..., "--arch", "-a", help="Architecture."),
    dtype: Optional[List[str]] = ProblemDtypeOpt,
    fmt: str = typer.Option("names", "--format", "-f", help="names, jsonl or table."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """List every kernel of a rule set, valid for ARCH, that can run one convolution problem."""
    from . import query
    from .workload import Workspace, parse_problem

    if fmt not in ("names", "jsonl", "table"):
        raise CksolveError(f"unknown format {shorten(fmt)}; valid: names, jsonl, table")
    arch = _one_arch(arch)
    dtypes = query.select(dtypes=dtype).dtypes
    p = parse_problem(problem)
    rs = query.load_rule_set(rule_set, builder_configs)
    ws = Workspace(rs)
    records = [query.Record(rs.name, combo, c) for d in dtypes for combo, c in ws.decide(p, arch, d)[0]]
    sys.stdout.write(_records_text(records, fmt))


@app.command("coverage")
def coverage_cmd(
    problems: Path = typer.Option(..., "--problems", help="CSV with CK's header, or JSONL with the same keys."),
    rule_set: str = RuleSetOpt,
    arch: str = typer.Option(..., "--arch", "-a", help="Architecture."),
    dtype: Optional[List[str]] = ProblemDtypeOpt,
    fmt: str = typer.Option("table", "--format", "-f", help="table, jsonl or csv."),
    with_kernels: bool = typer.Option(False, "--with-kernels", help="List the applicable kernels of each problem."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write here instead of stdout."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """For every problem of a workload, how many kernels of a rule set can run it (and why not)."""
    from . import query
    from .workload import coverage, read_problems
    from .workload.report import coverage_table

    if fmt not in ("table", "jsonl", "csv"):
        raise CksolveError(f"unknown format {shorten(fmt)}; valid: table, jsonl, csv")
    arch = _one_arch(arch)
    dtypes = query.select(dtypes=dtype).dtypes
    rs = query.load_rule_set(rule_set, builder_configs)
    records = coverage(read_problems(problems), rs, arch, dtypes)
    if fmt == "jsonl":
        text = "".join(json.dumps(r.as_dict(with_kernels)) + "\n" for r in records)
    elif fmt == "csv":
        rows = [r.as_dict(with_kernels) for r in records]
        if with_kernels:
            for row in rows:
                row["kernels"] = " ".join(row["kernels"])
        text = _csv_text(rows)
    else:
        header, rows, summary = coverage_table(records, with_kernels)
        text = _table_text(header, rows) + "".join(f"{line}\n" for line in summary)
    _write(text, output)


@app.command("minimize")
def minimize_cmd(
    problems: Path = typer.Option(..., "--problems", help="CSV with CK's header, or JSONL with the same keys."),
    rule_set: str = RuleSetOpt,
    arch: str = typer.Option(..., "--arch", "-a", help="Architecture."),
    dtype: Optional[List[str]] = ProblemDtypeOpt,
    keep: float = typer.Option(0.9, "--keep", help="Each problem keeps a kernel scoring at least KEEP x R's best."),
    per_problem: int = typer.Option(1, "--per-problem", help="Kernels each covered problem keeps (at least)."),
    max_kernels: Optional[int] = typer.Option(None, "--max-kernels",
                                              help="Keep at most N kernels; maximise the problems with a good one."),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", help="Seconds for the solver (default: none)."),
    perf: Optional[Path] = typer.Option(None, "--perf", help="Measured results (CSV/JSONL: problem fields, kernel, "
                                                             "tflops or time_ms) instead of the analytic score."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the kept names here (else stdout)."),
    output_rule_set: Optional[Path] = typer.Option(None, "--output-rule-set",
                                                   help="Also write a rule-set file listing exactly the kept kernels."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """The fewest kernels of a rule set that keep a workload covered and fast (CP-SAT)."""
    from . import query
    from .workload import read_problems
    from .workload.minimize import Request
    from .workload.perf import read_perf
    from .workload.plan import known_kernels, plan

    if not 0.0 <= keep <= 1.0:
        raise CksolveError(f"--keep {keep} must be between 0 and 1")
    if per_problem < 1:
        raise CksolveError(f"--per-problem {per_problem} must be at least 1")
    if time_limit is not None and not time_limit > 0:
        raise CksolveError(f"--time-limit {time_limit} must be positive")
    arch = _one_arch(arch)
    dtypes = query.select(dtypes=dtype).dtypes
    rs = query.load_rule_set(rule_set, builder_configs)
    workload = read_problems(problems)
    measured = read_perf(perf, known_kernels(rs, workload, arch, dtypes)) if perf is not None else None
    result = plan(workload, rs, arch, dtypes, Request(keep, per_problem, max_kernels, time_limit), measured,
                  str(perf) if perf is not None else "analytic")
    names = "".join(f"{c.name()}\n" for c in query.canonical_order(result.configs()))
    if output_rule_set is not None:
        from .space.rulesets.listed import rule_set_file

        desc = f"minimize: {len(result.kept)} kernels of {rs.name} for {problems.name} on {arch}, keep {keep}"
        _write(rule_set_file(result.configs(), desc), output_rule_set)
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
    arch: str = typer.Option(..., "--arch", "-a", help="Architecture."),
    variant: Optional[List[str]] = typer.Option(None, "--variant", help="forward, bwd_data, bwd_weight (default: all)."),
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    problems: Optional[Path] = typer.Option(None, "--problems", help="Rows per (problem, applicable kernel) pair: "
                                                                     "CSV with CK's header, or JSONL."),
    fmt: str = typer.Option("csv", "--format", "-f", help="csv or jsonl."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write here instead of stdout."),
    semantics: str = typer.Option("ck", "--semantics", help="ck (what CK's engine computes) or exact (true values)."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Features of CK's ML kernel selector, per kernel or per (problem, kernel) pair that can run."""
    from . import query
    from .features import SEMANTICS, features
    from .features.render import FORMATS, render
    from .space.rulesets import kind_of
    from .workload import read_problems

    if fmt not in FORMATS:
        raise CksolveError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    if semantics not in SEMANTICS:
        raise CksolveError(f"unknown semantics {semantics!r}; valid: {', '.join(SEMANTICS)}")
    selection = query.select([_one_arch(arch)], variant, dtype, ndim)
    combos = selection.combos() if variant else [c for c in selection.combos() if kind_of(c.variant) == "gemm"]
    rs = query.load_rule_set(rule_set, builder_configs)
    table = features(rs, combos, read_problems(problems) if problems is not None else None, semantics)
    _write(render(table.columns, table.rows, fmt), output)
    if table.unread:
        sys.stderr.write(f"cksolve: note: {len(table.unread)} kernels have dispatcher names CK's parser does not "
                         f"read (groups_to_merge, two_stage, wavelet); their ck kernel columns are CK's defaults\n")


@app.command("pipeline-variants")
def pipeline_variants_cmd(
    variant: Optional[List[str]] = typer.Option(None, "--variant", help="forward, bwd_data, bwd_weight (default: all)."),
    arch: Optional[List[str]] = ArchOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv or jsonl."),
) -> None:
    """The valid (pipeline, scheduler, double LDS buffer, split image) combinations, from the constraints."""
    from . import query
    from .features import pipeline_variants
    from .features.render import render
    from .space.rulesets import kind_of

    if fmt not in ("table", "csv", "jsonl"):
        raise CksolveError(f"unknown format {fmt!r}; valid: table, csv, jsonl")
    selection = query.select(arch, variant, dtype, ndim)
    variants = [v for v in selection.variants if kind_of(v) == "gemm"]
    if not variants:
        raise CksolveError("forward_depthwise kernels have no GEMM pipeline; choose forward, bwd_data or bwd_weight")
    found = pipeline_variants(selection.archs, variants, selection.dtypes, selection.ndims)
    columns = ("arch", "variant", "pipeline", "scheduler", "double_smem_buffer", "split_image", "witness")
    if fmt == "table":
        rows = [[v.arch, v.variant, v.pipeline, v.scheduler, _fmt_value(v.double_smem_buffer),
                 _fmt_value(v.split_image)] for v in found]
        sys.stdout.write(_table_text(list(columns[:-1]), rows) + f"{len(found)} combinations\n")
    else:
        sys.stdout.write(render(columns, found, fmt))


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
# --- audit (issue 15) ------------------------------------------------------------------


@app.command("audit")
def audit_cmd(
    rule_set: str = typer.Option(..., "--rule-set", "-r",
                                 help="A rule set, a rule-set file, or 'all' (every built-in set and CK's hierarchy)."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    against: Optional[List[str]] = typer.Option(None, "--against",
                                                help="R2, R2:subset or R2:superset; repeatable. Default relation: subset."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on",
                                          help="Exit 1 if any of these has findings: empty,invalid,containment,dead,idle."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write here instead of stdout."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Explain what a rule set proposes that the arch rules reject: empty combinations, dead rows, idle rules."""
    from . import query
    from .audit import ALL, categories, run
    from .audit.report import as_json, as_text, findings

    if fmt not in ("text", "json"):
        raise CksolveError(f"unknown format {fmt!r}; valid: text, json")
    gates = categories(query.split_values([fail_on] if fail_on else []))
    selection = _selection(arch, variant, dtype, ndim)
    reports, checks = run(rule_set, selection.combos(), against or (), builder_configs)
    label = ALL if rule_set == ALL else None
    _write(as_json(reports, checks, label) if fmt == "json" else as_text(reports, checks), output)
    totals = findings(reports, checks)
    raise typer.Exit(1 if any(totals[g] for g in gates) else 0)


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning every user error into one line and exit 2."""
    command = typer.main.get_command(app)
    argv = sys.argv[1:] if argv is None else list(argv)
    strict_env = os.environ.get("CKSOLVE_STRICT")  # --strict sets it for this run only
    try:
        _run(command, argv)
    finally:
        if strict_env is None:
            os.environ.pop("CKSOLVE_STRICT", None)
        else:
            os.environ["CKSOLVE_STRICT"] = strict_env


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
