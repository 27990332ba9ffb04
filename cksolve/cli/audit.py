"""``audit``: what a rule set proposes that the arch rules reject (docs/audit.md)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .. import query
from ..progress import Progress
from .app import app
from .completion import values
from .options import (BuilderOpt, complete_rule_set, OutputOpt, SelectionArgs, check_format, choices, format_option, refuse_unwritable,
                      rule_set_option, selection_options, strict, write)


#: ``audit.ALL`` and ``audit.AUDIT_FORMATS``, repeated so that help needs no import of the package (a test
#: holds them equal)
AUDIT_ALL = "all"
AUDIT_FORMATS = ("text", "json")
#: ``audit.CATEGORIES``, likewise
FAIL_ON = ("empty", "invalid", "containment", "dead", "idle")


@app.command("audit")
@selection_options()
def audit_cmd(
    rule_set: str = rule_set_option(help=f"{choices(query.RULE_SETS)}, a rule-set file, or '{AUDIT_ALL}' "
                                         "(every built-in set and CK's hierarchy)."),
    sel: SelectionArgs = None,
    against: Optional[List[str]] = typer.Option(None, "--against", metavar="R2[:RELATION]",
                                                help="R2, R2:subset or R2:superset; repeatable. Default relation: subset.",
                                                autocompletion=complete_rule_set),
    fmt: str = format_option("text", AUDIT_FORMATS),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="CATEGORIES",
                                          help=f"Exit 1 if any of these has findings: {','.join(FAIL_ON)}.",
                                          autocompletion=values(FAIL_ON, comma=True)),
    output: Optional[Path] = OutputOpt,
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Explain what a rule set proposes that the arch rules reject: empty combinations, dead rows, idle rules."""
    from .. import audit  # deferred: the audit loads only for its command (start-up of every other)

    check_format(fmt, AUDIT_FORMATS)
    refuse_unwritable(output)
    gates = query.split_values([fail_on] if fail_on is not None else [], "fail-on")
    with Progress(f"auditing {rule_set}", ticking=True):  # on a terminal, past 1 s; the phases from the audit
        reports, checks, failed = audit.audit_selection(rule_set, sel.select(), against or (), builder_configs, gates,
                                                        strict())
    write(audit.audit_text(reports, checks, fmt, rule_set), output)
    raise typer.Exit(1 if failed else 0)
