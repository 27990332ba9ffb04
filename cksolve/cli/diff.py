"""``diff``: two rule sets (or files of names), per combination, and the words for it."""

from __future__ import annotations

import json
from typing import Optional

import typer

from .. import query
from ..formats import value_text
from ..outputs import write_stdout
from ..progress import Progress
from .app import app
from .options import BuilderOpt, SelectionArgs, check_format, format_option, selection_options, strict, warn_once

DIFF_FORMATS = ("table", "jsonl")


@app.command("diff")
@selection_options()
def diff_cmd(
    a: str = typer.Argument(..., help="Rule set name, rule-set file, or file of names; RULE_SET@REF: at CK version REF."),
    b: str = typer.Argument(..., help="Rule set name, rule-set file, or file of names; RULE_SET@REF: at CK version REF."),
    sel: SelectionArgs = None,
    fmt: str = format_option("table", DIFF_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Compare two rule sets (or files of names): only-in-A, only-in-B, common, and why."""
    check_format(fmt, DIFF_FORMATS)
    selection = sel.select()
    sa = _open(a, builder_configs)
    sb = _open(b, builder_configs)
    with Progress(f"comparing {a} and {b}", ticking=True):  # on a terminal, past 1 s; a phase per combination
        diffs = query.diff_sources(sa, sb, selection)
    write_stdout(diff_jsonl(diffs, sa, sb) if fmt == "jsonl" else diff_table(diffs, sa, sb))


def _open(spec: str, builder_configs: Optional[str]):
    source = query.open_source(spec, builder_configs, strict())
    if source.rule_set is not None:
        warn_once(source.rule_set)
    return source


def diff_jsonl(diffs, sa, sb) -> str:
    out = []
    for d in diffs:
        c = d.combo
        base = {"arch": c.arch, "variant": c.variant, "dtype": c.dtype, "ndim": c.ndim}
        for side, label, names in (("a", sa.label, d.only_a), ("b", sb.label, d.only_b)):
            for n in names:
                record = {**base, "side": label, "only_in": side, "name": n}
                if d.reasons is not None:
                    for r in d.reasons[n] or (None,):
                        out.append(json.dumps({**record, "constraint": r and r.constraint,
                                               "message_a": r and r.message_a, "message_b": r and r.message_b}) + "\n")
                    continue
                out.append(json.dumps(record) + "\n")
    return "".join(out)


def diff_table(diffs, sa, sb) -> str:
    """Per combination: the counts, and up to ten axis values that explain each side's extra configs."""
    out = []
    ta = tb = tc = 0
    for d in diffs:
        ta, tb, tc = ta + len(d.only_a), tb + len(d.only_b), tc + d.common
        out.append(f"{d.combo.key}: only in {sa.label}: {len(d.only_a)}, only in {sb.label}: {len(d.only_b)}, "
                   f"common: {d.common}\n")
        for label, why in ((sa.label, d.why_a), (sb.label, d.why_b)):
            other = sb.label if label == sa.label else sa.label
            for axis, value, n, exclusive in why[:10]:
                note = f" (never in {other})" if exclusive else ""
                out.append(f"  only in {label}: {n} configs with {axis}={value_text(value)}{note}\n")
        if d.reasons is not None:
            for label, names in ((sa.label, d.only_a), (sb.label, d.only_b)):
                for n in names:
                    out.append(f"  only in {label}: {n}\n")
                    out.extend(f"    {r.constraint}: {sa.label}: {r.message_a}; {sb.label}: {r.message_b}\n"
                               for r in d.reasons[n])
    out.append(f"total: only in {sa.label}: {ta}, only in {sb.label}: {tb}, common: {tc}\n")
    return "".join(out)
