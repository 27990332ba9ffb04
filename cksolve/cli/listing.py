"""``enumerate``, ``count``, ``rule-sets``, ``archs``: what rule sets hold, and the architectures."""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path
from typing import Iterable, Iterator, Optional

import typer

from .. import query
from ..errors import CksolveError, did_you_mean, shorten
from ..formats import render, table_text
from ..outputs import atomic_text_stream, write_stdout
from ..progress import Progress
from .app import app
from .completion import values
from .options import (BuilderOpt, NameTarget, name_target_options, backend_option, complete_rule_set, OutputOpt, RuleSetOpt, SelectionArgs, check_format, choices, format_option,
                      load_rule_set, refuse_unwritable, selection_options, write)

#: formats each listing command offers (names/jsonl/csv/table are the shared writers)
ENUMERATE_FORMATS = ("names", "jsonl", "csv", "table")
COUNT_FORMATS = ("table", "json")
ARCHS_FORMATS = ("table", "json")
RULE_SETS_FORMATS = ("table", "json")
#: the columns a kernel listing shows as a table
RECORD_COLUMNS = (*query.Combo._fields, "name")


def records_text(records, fmt: str) -> str:
    """Kernel records (``query.Record``) in one of the shared formats."""
    return render(fmt, list(records), RECORD_COLUMNS)


#: records rendered per block when a listing streams
RECORD_BLOCK = 4096


def records_blocks(records: Iterable, fmt: str, one_kind: bool = True) -> Iterator[str]:
    """:func:`records_text` in blocks, never holding the records: names, jsonl and (records of one kind: the
    header is the first record's keys) csv stream; a table, or csv over both kinds, is rendered whole."""
    if fmt == "table" or (fmt == "csv" and not one_kind):
        yield records_text(records, fmt)
        return
    it = iter(records)
    first = True
    while block := list(islice(it, RECORD_BLOCK)):
        # names of records directly: the shared writer's per-row Mapping test (an ABC check) cost a third
        text = "".join(f"{r.name}\n" for r in block) if fmt == "names" else render(fmt, block, RECORD_COLUMNS)
        if fmt == "csv" and not first:
            text = text[text.index("\n") + 1:]  # the header once (csv_text writes it per call)
        first = False
        yield text


def write_blocks(blocks: Iterable[str], output: Optional[Path]) -> None:
    """Text blocks to stdout as they come, or to ``output`` whole or not at all (streamed to a temporary)."""
    if output is None:
        for block in blocks:
            write_stdout(block)
        return
    with atomic_text_stream(Path(output)) as f:
        for block in blocks:
            f.write(block)


@app.command("enumerate")
@selection_options()
def enumerate_cmd(
    rule_set: str = RuleSetOpt,
    sel: SelectionArgs = None,
    fmt: str = format_option("names", ENUMERATE_FORMATS),
    output: Optional[Path] = OutputOpt,
    builder_configs: Optional[str] = BuilderOpt,
    limit: int = typer.Option(query.ENUMERATE_LIMIT, "--limit", metavar="N",
                              help="Refuse to list more configs than this (a guard; 0: no limit)."),
    backend: Optional[str] = backend_option(),
) -> None:
    """List every config of a rule set valid for the selected architectures."""
    check_format(fmt, ENUMERATE_FORMATS)
    refuse_unwritable(output)
    selection = sel.select()
    rs = load_rule_set(rule_set, builder_configs)
    if backend not in (None, "direct"):
        records = list(query.enumerate_records(rs, selection, limit, backend=backend))
        write("".join(query.name_lines(((r.combo.arch, r.name) for r in records), selection.archs))
              if fmt == "names" else records_text(records, fmt), output)
        return
    if fmt == "names":  # the main job: names straight from the solver, no records formed; '# arch: A' sections
        write_blocks(query.enumerate_text(rs, selection, limit), output)
        return
    write_blocks(records_blocks(query.enumerate_records(rs, selection, limit), fmt, selection.one_kind), output)


NEIGHBOR_FORMATS = ("names", "jsonl", "table")


@app.command("neighbors")
@name_target_options("Only neighbors in this rule set (default: anywhere in the arch's valid space):")
def neighbors_cmd(
    name: str = typer.Argument(..., help="A kernel name (need not be valid)."),
    target: NameTarget = None,
    radius: int = typer.Option(1, "--radius", metavar="R", help="Up to this many axes changed."),
    method: str = typer.Option("hamming", "--method", metavar="METHOD",
                               help="hamming: any value of an axis; adjacent: one step along an ordered axis.",
                               autocompletion=values(query.NEIGHBOR_METHODS)),
    fmt: str = format_option("names", NEIGHBOR_FORMATS),
    output: Optional[Path] = OutputOpt,
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """List the valid configs near NAME: one axis away (or up to --radius), in (distance, name) order."""
    check_format(fmt, NEIGHBOR_FORMATS)
    refuse_unwritable(output)
    arch, rs = target.load(builder_configs)
    found = query.neighbors(name, arch, rs, radius, method)
    if fmt == "table":
        rows = [[str(n.distance), ", ".join(f"{k}={query.value_text(v)}" for k, v in n.changed), n.name]
                for n in found]
        write(table_text(["distance", "changed", "name"], rows), output)
        return
    write(render(fmt, [n.as_dict() for n in found]), output)


@app.command("count")
@selection_options()
def count_cmd(
    rule_set: str = RuleSetOpt,
    sel: SelectionArgs = None,
    by: Optional[str] = typer.Option(None, "--by", metavar="FIELDS", help=f"Group by any of {','.join(query.Combo._fields)}.",
                                     autocompletion=values(query.Combo._fields, comma=True)),
    fmt: str = format_option("table", COUNT_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
    backend: Optional[str] = backend_option(" (only the default counts without listing)"),
) -> None:
    """Count configs without listing them."""
    check_format(fmt, COUNT_FORMATS)
    keys = query.split_values([by], "by") if by is not None else []
    for k in keys:
        if k not in query.Combo._fields:
            raise CksolveError(f"unknown --by field {shorten(k)}; valid: {choices(query.Combo._fields)}"
                               f"{did_you_mean(k, query.Combo._fields)}")
    selection = sel.select()
    rs = load_rule_set(rule_set, builder_configs)
    with Progress(f"counting {len(selection.combos()):,} combinations", ticking=True):  # on a terminal, past 1 s
        counts = query.count_records(rs, selection, backend)
    write_stdout(count_text(counts, keys, fmt))


def count_text(counts: dict, keys: list[str], fmt: str) -> str:
    """``count``'s report: the total, or a row per group of ``keys`` and the total (table or json)."""
    groups: dict[tuple, int] = {}
    for combo, n in counts.items():
        key = tuple(getattr(combo, k) for k in keys)
        groups[key] = groups.get(key, 0) + n
    total = sum(counts.values())
    if fmt == "json":
        payload = {"total": total, "groups": [dict(zip(keys, key), count=n) for key, n in groups.items()] if keys else []}
        return json.dumps(payload) + "\n"
    if keys:
        rows = [[str(v) for v in key] + [str(n)] for key, n in groups.items()]
        return table_text(keys + ["count"], rows + [["total"] + [""] * (len(keys) - 1) + [str(total)]])
    return f"{total}\n"


@app.command("rule-sets")
@selection_options()
def rule_sets_cmd(
    show: Optional[str] = typer.Option(None, "--show", metavar="RULE_SET",
                                       help="Print this rule set's (or file's) constraints.",
                                       autocompletion=complete_rule_set),
    sel: SelectionArgs = None,
    fmt: str = format_option("table", RULE_SETS_FORMATS),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """List the rule sets with a one-line description (--show R: R's constraints)."""
    check_format(fmt, RULE_SETS_FORMATS)
    if show is not None:
        _show_rule_set(show, sel.select(), builder_configs, fmt)
        return
    described = query.rule_set_descriptions()
    if fmt == "json":
        write_stdout(json.dumps({"rule_sets": [{"name": n, "description": d} for n, d in described.items()]}) + "\n")
        return
    width = max(len(n) for n in described)
    write_stdout("".join(f"{n.ljust(width)}  {desc}\n" for n, desc in described.items()))


def _show_rule_set(name: str, selection, builder_configs: Optional[str], fmt: str) -> None:
    rs = load_rule_set(name, builder_configs)
    found = query.rule_set_constraints(rs, selection)
    if fmt == "json":
        constraints = [{"name": c.name, "scope": list(c.scope), "form": c.form, "kind": c.applies_to,
                        "rows": None if c.rows is None else {"min": c.rows[0], "max": c.rows[1]},
                        "combos": c.combos, "source": c.source} for c in found]
        write_stdout(json.dumps({"rule_set": rs.name, "description": rs.description,
                                     "constraints": constraints}) + "\n")
        return
    rows = []
    for c in found:
        n = "-" if c.rows is None else (str(c.rows[0]) if c.rows[0] == c.rows[1] else f"{c.rows[0]}..{c.rows[1]}")
        rows.append([c.name, ",".join(c.scope), c.form, c.applies_to, n, str(c.combos), c.source])
    write_stdout(f"{rs.name}: {rs.description}\n")
    write_stdout(table_text(["name", "scope", "form", "kind", "rows", "combos", "source"], rows))


@app.command("archs")
def archs_cmd(fmt: str = format_option("table", ARCHS_FORMATS)) -> None:
    """List the architectures and their facts."""
    check_format(fmt, ARCHS_FORMATS)
    if fmt == "json":
        write_stdout(json.dumps(query.archs_document()) + "\n")
        return
    rows = []
    for f in query.arch_facts_list():
        tiles = "; ".join(f"{k.split('_')[0]}: " + " ".join("x".join(map(str, t)) for t in v) for k, v in f.warp_tiles.items())
        rows.append([f.name, f.family, str(f.warp_size), " ".join("x".join(map(str, w)) for w in f.wave_splits), tiles])
    write_stdout(table_text(["arch", "family", "wave", "wave splits", "warp tiles"], rows))
