"""``check`` and ``explain``: verdicts on kernel names (exit 1 when a name is not valid)."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from .. import query
from .app import app
from .options import BuilderOpt, OneArchOpt, check_format, choices, format_option, load_rule_set, one_arch, rule_set_option

CHECK_FORMATS = ("text", "jsonl")


@app.command("check")
def check_cmd(
    source: str = typer.Argument(..., help="File of kernel names, one per line, or - for stdin."),
    arch: str = OneArchOpt,
    rule_set: Optional[str] = rule_set_option(False, f"Also check membership of this rule set: "
                                                     f"{choices(query.RULE_SETS)}, or a rule-set file."),
    fmt: str = format_option("text", CHECK_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Say for each kernel name whether it is valid for ARCH, and why not (exit 1 if any is not)."""
    check_format(fmt, CHECK_FORMATS)
    arch = one_arch(arch)
    rs = load_rule_set(rule_set, builder_configs) if rule_set else None
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
    rule_set: Optional[str] = rule_set_option(False, f"Rule set to explain membership in: "
                                                     f"{choices(query.RULE_SETS)}, or a rule-set file."),
    nearest: int = typer.Option(3, "--nearest", metavar="N", help="How many nearest valid configs to show."),
    problem: Optional[str] = typer.Option(None, "--problem", "-p", metavar="PROBLEM",
                                          help="Also explain whether NAME can run this problem (FIELD=VALUE,...)."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Explain in words every constraint NAME violates, and show the nearest valid configs.

    Exit 1 when NAME is not valid for ARCH, not in --rule-set, or cannot run --problem (as check).
    """
    arch = one_arch(arch)
    rs = load_rule_set(rule_set, builder_configs) if rule_set else None
    ok, text = query.explain_name(name, arch, rs, nearest, problem)
    sys.stdout.write(text)
    raise typer.Exit(0 if ok else 1)
