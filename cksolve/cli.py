"""The ``cksolve`` command: parse options, call :mod:`cksolve.query`, print.

Bad input never produces a traceback: every user error becomes one line on
stderr and exit code 2 (see ``main``). Output files are written whole or not at
all (temp file + rename).
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.exceptions import Abort, Exit, TyperException

from .errors import CksolveError

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


def _write(text: str, output: Optional[Path]) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    output = Path(output)
    tmp = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, output)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise CksolveError(f"cannot write {output}: {exc.strerror}") from None


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
) -> None:
    """List every config of a rule set valid for the selected architectures."""
    from . import query

    if fmt not in ("names", "jsonl", "csv", "table"):
        raise CksolveError(f"unknown format {fmt!r}; valid: names, jsonl, csv, table")
    selection = _selection(arch, variant, dtype, ndim)
    rs = query.load_rule_set(rule_set, builder_configs)
    _write(_records_text(query.enumerate_records(rs, selection), fmt), output)


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
        raise CksolveError(f"unknown format {fmt!r}; valid: table, json")
    keys = query.split_values([by]) if by else []
    for k in keys:
        if k not in ("arch", "variant", "dtype", "ndim"):
            raise CksolveError(f"unknown --by field {k!r}; valid: arch, variant, dtype, ndim")
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


def _read_lines(source: str) -> list[str]:
    if source == "-":
        return sys.stdin.read().splitlines()
    try:
        return Path(source).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CksolveError(f"cannot read {source}: {exc.strerror}") from None


def _one_arch(arch: str) -> str:
    from . import query

    return query.select(archs=[arch]).archs[0] if "," not in arch else _bad_multi(arch)


def _bad_multi(arch: str) -> str:
    raise CksolveError(f"--arch takes one architecture here, got {arch!r}")


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

    from .solver.evaluate import evaluate
    from .space.naming import NameError_, parse_name

    if fmt not in ("text", "jsonl"):
        raise CksolveError(f"unknown format {fmt!r}; valid: text, jsonl")
    arch = _one_arch(arch)
    rs = query.load_rule_set(rule_set, builder_configs) if rule_set else None
    lines = [ln.strip() for ln in _read_lines(source)]
    all_ok = True
    out = []
    for name in lines:
        if not name or name.startswith("#"):
            continue
        record = {"name": name, "arch": arch}
        try:
            verdict = evaluate(parse_name(name), arch, rs)
        except NameError_ as exc:
            record.update(valid=False, violations=[{"constraint": "parse", "message": str(exc)}])
            if rs is not None:
                record["member"] = False
        else:
            record["valid"] = verdict.valid
            record["violations"] = [{"constraint": v.constraint, "message": v.message}
                                    for v in verdict.violations + verdict.rule_violations]
            if rs is not None:
                record["member"] = verdict.member
        ok = record["valid"] and record.get("member", True)
        all_ok &= ok
        if fmt == "jsonl":
            out.append(json.dumps(record) + "\n")
        else:
            state = "valid" if record["valid"] else "invalid"
            if rs is not None:
                state += f", {'in' if record['member'] else 'not in'} {rs.name}"
            out.append(f"{name}: {state}\n")
            out.extend(f"  - {v['constraint']}: {v['message']}\n" for v in record["violations"])
    sys.stdout.write("".join(out))
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

    arch = _one_arch(arch)
    rs = query.load_rule_set(rule_set, builder_configs) if rule_set else None
    if problem is None:
        from .rulesets import candidate_rule_sets

        sys.stdout.write(explain(parse_name(name), arch, rs, nearest,
                                 candidates=candidate_rule_sets() if rs is None else ()))
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
        raise CksolveError(f"unknown format {fmt!r}; valid: table, jsonl")
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
    out: Path = typer.Option(..., "--out", "-o", help="Output directory."),
    rule_set: Optional[str] = typer.Option(None, "--rule-set", "-r"),
    names: Optional[Path] = typer.Option(None, "--names", help="Emit exactly the kernels named in this file."),
    arch: Optional[List[str]] = ArchOpt,
    variant: Optional[List[str]] = VariantOpt,
    dtype: Optional[List[str]] = DtypeOpt,
    ndim: Optional[List[str]] = NdimOpt,
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Parallel renderers (default: all cores)."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Write a CK Tile kernel instance (header, .cpp, dispatcher wrapper) for every config."""
    from .emit_cli import run_emit

    run_emit(out=out, rule_set=rule_set, names=names, arch=arch, variant=variant, dtype=dtype, ndim=ndim,
             jobs=jobs, builder_configs=builder_configs)


@app.command("rule-sets")
def rule_sets_cmd() -> None:
    """List the rule sets with a one-line description."""
    from .rulesets import RULE_SETS

    width = max(len(n) for n in RULE_SETS)
    sys.stdout.write("".join(f"{n.ljust(width)}  {desc}\n" for n, (_, _, desc) in RULE_SETS.items()))


@app.command("archs")
def archs_cmd(fmt: str = typer.Option("table", "--format", "-f", help="table or json.")) -> None:
    """List the architectures and their facts."""
    from . import query

    if fmt not in ("table", "json"):
        raise CksolveError(f"unknown format {fmt!r}; valid: table, json")
    if fmt == "json":
        sys.stdout.write(json.dumps(query.archs_document()) + "\n")
        return
    rows = []
    for f in query.arch_facts_list():
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
        raise CksolveError(f"unknown format {fmt!r}; valid: names, jsonl, table")
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
        raise CksolveError(f"unknown format {fmt!r}; valid: table, jsonl, csv")
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
        from .rulesets.listed import rule_set_file

        desc = f"minimize: {len(result.kept)} kernels of {rs.name} for {problems.name} on {arch}, keep {keep}"
        _write(rule_set_file(result.configs(), desc), output_rule_set)
    summary = "".join(f"{line}\n" for line in result.summary())
    if output is not None:
        _write(names, output)
        sys.stdout.write(summary)
    else:
        sys.stdout.write(names)
        sys.stderr.write(summary)


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning every user error into one line and exit 2."""
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="cksolve", standalone_mode=False)
    except Exit as exc:
        sys.exit(exc.exit_code)
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
        sys.exit(0)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
