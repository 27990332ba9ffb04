"""``check`` and ``explain``: verdicts on kernel names (exit 1 when a name is not valid)."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from .. import explore, query
from ..outputs import write_stdout
from ..progress import Progress, is_terminal
from .app import app
from .options import backend_option, BuilderOpt, NameTarget, check_format, format_option, name_target_options

CHECK_FORMATS = ("text", "jsonl")
EXPLAIN_FORMATS = ("text", "json")


@app.command("check")
@name_target_options("Also check membership of this rule set:", sections=True)
def check_cmd(
    source: str = typer.Argument(..., help="File of kernel names, one per line ('# arch: ARCH' lines start an "
                                           "arch's names, as enumerate writes them), or - for stdin."),
    target: NameTarget = None,
    fmt: str = format_option("text", CHECK_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
    backend: Optional[str] = backend_option(" deciding validity and membership"),
) -> None:
    """Say for each kernel name whether it is valid for ARCH, and why not (exit 1 if any is not)."""
    check_format(fmt, CHECK_FORMATS)
    arch, rs = target.load(builder_configs)
    records = query.check_names(source, arch, rs)
    if backend not in (None, "direct"):
        list(explore.check_with(backend, (), None))  # an unknown backend is refused before any output
        records = explore.check_with(backend, records, rs)
    all_ok = True
    # a bar on a terminal past 1 s (the line checked, n of N), unless the verdicts themselves go to that terminal
    with Progress(f"checking names for {arch}", ticking=not is_terminal(sys.stdout)):
        for r in records:  # streamed: one record out per name in
            all_ok &= r.ok
            if fmt == "jsonl":
                write_stdout(json.dumps(r.as_dict()) + "\n")
                continue
            state = "valid" if r.valid else "invalid"
            if rs is not None:
                state += f", {'in' if r.member else 'not in'} {rs.name}"
            write_stdout(f"{r.name}: {state}\n")
            write_stdout("".join(f"  - {constraint}: {message}\n" for constraint, message in r.violations))
    raise typer.Exit(0 if all_ok else 1)


@app.command("explain")
@name_target_options("Rule set to explain membership in:")
def explain_cmd(
    name: str = typer.Argument(..., help="A kernel name."),
    target: NameTarget = None,
    nearest: int = typer.Option(3, "--nearest", metavar="N", help="How many nearest valid configs to show."),
    problem: Optional[str] = typer.Option(None, "--problem", "-p", metavar="PROBLEM",
                                          help="Also explain whether NAME can run this problem (FIELD=VALUE,...)."),
    fmt: str = format_option("text", EXPLAIN_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Explain in words every constraint NAME violates, and show the nearest valid configs.

    Exit 1 when NAME is not valid for ARCH, not in --rule-set, or cannot run --problem (as check).
    """
    check_format(fmt, EXPLAIN_FORMATS)
    arch, rs = target.load(builder_configs)
    record = query.explain_name(name, arch, rs, nearest, problem)
    write_stdout(json.dumps(record.as_dict()) + "\n" if fmt == "json" else record.text)
    raise typer.Exit(0 if record.ok else 1)


NAMES_FORMATS = ("text", "jsonl")
names_app = typer.Typer(name="names", help="Kernel names: what CK's dispatcher short names stand for.",
                        no_args_is_help=True, rich_markup_mode=None)
app.add_typer(names_app, name="names")


@names_app.command("expand")
@name_target_options("Rule set whose kernels to list (default: default, the one CK's runner builds from):")
def names_expand_cmd(
    shorts: list[str] = typer.Argument(..., metavar="SHORT...",
                                       help="Dispatcher short names (grouped_conv_forward_bf16_2d_64x64x64_compv3)."),
    target: NameTarget = None,
    fmt: str = format_option("text", NAMES_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """List the full kernel names each SHORT name stands for in a rule set, and the one CK's runner builds.

    Exit 1 when some SHORT stands for no kernel of the rule set.
    """
    from ..workload import LabelResolver, expand_short  # deferred: the workload layer for this command only

    check_format(fmt, NAMES_FORMATS)
    arch, rs = target.load(builder_configs)
    resolver = LabelResolver(arch)
    expansions = [expand_short(s, arch, rs, resolver) for s in shorts]  # every name read before any output
    for e in expansions:
        if fmt == "jsonl":
            write_stdout(json.dumps(e.as_dict()) + "\n")
            continue
        write_stdout(expansion_text(e))
    raise typer.Exit(0 if all(e.kernels for e in expansions) else 1)


def expansion_text(e) -> str:
    """``names expand``'s words for one short name."""
    n, r = len(e.kernels), e.resolved
    lines = [f"{e.short}: {n} kernel{'s' * (n != 1)} in rule set {e.rule_set} for {e.arch}"]
    lines.extend(f"  {k}" + ("  (CK's runner builds this one)" if k == r.kernel else "") for k in e.kernels)
    if r.config is None:
        lines.append(f"  CK's runner builds none: {r.why}")
    elif r.kernel not in e.kernels:
        which = "that very kernel" if r.how == "exact" else "the nearest"
        lines.append(f"  CK's runner builds {which} of the {e.resolved_rule_set} rule set: {r.kernel}")
    return "\n".join(lines) + "\n"
