"""An audit as JSON (the stable schema of docs/cli.md) or as text a CK maintainer can act on.

The text puts what costs CK most first: combinations that build nothing (and
the rule that blocks them), kernels a rule set lists that fail validity,
broken containments, then dead table rows grouped by what kills them, then
idle constraints.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Sequence

from ..arch.facts import archs as known_archs
from ..space.axes import value_text
from .findings import CATEGORIES, Containment, DeadRow, Report

__all__ = ["as_json", "as_text", "findings"]

#: Rows listed per group in the text report (the JSON has all of them).
ROWS_SHOWN = 8


def _value(v):
    return v if isinstance(v, (bool, int, str)) or v is None else str(v)


def _combo(c) -> dict:
    return {"arch": c.arch, "variant": c.variant, "dtype": c.dtype, "ndim": c.ndim}


def _dead(d: DeadRow) -> dict:
    out = {"constraint": d.constraint, "row": {a: _value(v) for a, v in zip(d.scope, d.row)}, "kind": d.kind,
           "killed_by": list(d.killed_by), "combos": d.combos,
           "rejected": [{"killed_by": list(k), "combos": n} for k, n in d.rejected],
           "unreachable": None, "name": d.name}
    if d.unreachable:
        u = d.unreachable
        out["unreachable"] = {"killed_by": list(u.killed_by), "combos": u.combos, "found_in": u.found_in.key}
    return out


def _containment(c: Containment) -> dict:
    return {"a": c.a, "b": c.b, "relation": c.relation, **_combo(c.combo), "violations": c.violations,
            "examples": list(c.examples),
            "breakdown": [{"axis": a, "value": _value(v), "count": n, "exclusive": x} for a, v, n, x in c.breakdown]}


def _report(r: Report) -> dict:
    return {
        "rule_set": r.rule_set,
        "combos": [{**_combo(c.combo), "proposed": c.proposed, "accepted": c.accepted, "blocking": list(c.blocking),
                    "rejected_by": dict(c.rejected_by)} for c in r.combos],
        "dead_rows": [_dead(d) for d in r.dead_rows],
        "invalid": [{**_combo(e.combo), "name": e.name, "violates": list(e.violates)} for e in r.invalid],
        "idle": list(r.idle),
        "idle_undecided": list(r.undecided),
        "containment": [_containment(c) for c in r.containment],
        "findings": r.findings(),
    }


def findings(reports: Sequence[Report], extra: Sequence[Containment] = ()) -> dict[str, int]:
    totals = {k: sum(r.findings()[k] for r in reports) for k in CATEGORIES}
    totals["containment"] += sum(1 for c in extra if c.violations)
    return totals


def as_json(reports: Sequence[Report], extra: Sequence[Containment] = (), label: str | None = None) -> str:
    """One report as its object; several (``--rule-set all``) under ``audits`` with the hierarchy checks."""
    if label is None:
        (report,) = reports
        return json.dumps(_report(report), sort_keys=False) + "\n"
    return json.dumps({"rule_set": label, "audits": [_report(r) for r in reports],
                       "containment": [_containment(c) for c in extra],
                       "findings": findings(reports, extra)}) + "\n"


# --- text ---------------------------------------------------------------------------


def _row_text(d: DeadRow) -> str:
    if d.name:
        return d.name
    return ", ".join(f"{a}={value_text(v)}" for a, v in zip(d.scope, d.row))


def _combo_sections(r: Report) -> list[str]:
    lines = []
    lossy = [c for c in r.combos if c.lossy]
    proposed = sum(c.proposed for c in r.combos)
    accepted = sum(c.accepted for c in r.combos)
    lines.append(f"audit of {r.rule_set}: {len(r.combos)} combinations, {proposed} configs proposed, "
                 f"{accepted} accepted by the arch rules")
    silent = sum(1 for c in r.combos if not c.proposed)
    if silent:
        lines.append(f"{r.rule_set} proposes nothing in {silent} of them (no rows are judged there)")
    if not lossy:
        return lines
    groups = defaultdict(list)
    for c in lossy:
        groups[c.blocking].append(c)
    lines.append(f"\nEmpty or lossy combinations ({len(lossy)}): the rule set proposes configs the arch rules reject")
    for blocking, combos in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lost = sum(c.proposed - c.accepted for c in combos)
        lines.append(f"  blocked by {' + '.join(blocking)}: {len(combos)} combinations, {lost} configs lost")
        for c in combos:
            rejects = dict(c.rejected_by)
            why = ", ".join(f"{n} rejects {rejects[n]}" for n in blocking)
            lines.append(f"    {c.combo.key}: {c.proposed} proposed, {c.accepted} accepted ({why})")
    return lines


def _first(items: list[str]) -> list[str]:
    """A group's first lines; the JSON has all of them."""
    more = [f"    ... and {len(items) - ROWS_SHOWN} more (--format json lists them all)"] if len(items) > ROWS_SHOWN else []
    return items[:ROWS_SHOWN] + more


def _invalid_section(r: Report) -> list[str]:
    if not r.invalid:
        return []
    lines = [f"\nListed kernels that fail validity ({len(r.invalid)} entries over the selected archs)"]
    groups = defaultdict(list)
    for e in r.invalid:
        groups[e.violates].append(e)
    for violates, entries in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        archs = [a for a in known_archs() if any(e.combo.arch == a for e in entries)]
        lines.append(f"  violate {' + '.join(violates)}: {len(entries)} entries on {', '.join(archs)}")
        lines += _first([f"    {e.combo.key}: {e.name}" for e in entries])
    return lines


def _containment_section(items: Sequence[Containment]) -> list[str]:
    broken = [c for c in items if c.violations]
    checked = {(c.a, c.b, c.relation) for c in items}
    lines = []
    for a, b, rel in sorted(checked):
        mine = [c for c in broken if (c.a, c.b, c.relation) == (a, b, rel)]
        sign = "within" if rel == "subset" else "around"
        if not mine:
            lines.append(f"\nContainment {a} {sign} {b}: holds in every combination")
            continue
        total = sum(c.violations for c in mine)
        lines.append(f"\nContainment {a} {sign} {b}: broken in {len(mine)} combinations ({total} configs)")
        for c in mine:
            outside = a if rel == "subset" else b
            lines.append(f"  {c.combo.key}: {c.violations} configs of {outside} outside, e.g. {c.examples[0]}")
            for axis, value, n, exclusive in c.breakdown[:3]:
                note = " (never on the other side)" if exclusive else ""
                lines.append(f"    {n} with {axis}={value_text(value)}{note}")
    return lines


def _primary(d: DeadRow) -> tuple[str, ...]:
    """The killing set that explains the row in most combinations (the rule set's own one if never proposed)."""
    return d.rejected[0][0] if d.rejected else d.unreachable.killed_by


def _dead_section(r: Report) -> list[str]:
    if not r.dead_rows:
        return []
    lines = [f"\nDead rows ({len(r.dead_rows)}): rows of the own tables of {r.rule_set} that no accepted config uses"]
    groups = defaultdict(list)
    for d in r.dead_rows:
        if d.name is None:  # listed kernels are reported above, one line per arch
            groups[(d.kind, d.constraint, _primary(d))].append(d)
    for (kind, constraint, killers), rows in sorted(groups.items(), key=lambda kv: (kv[0][0] != "rejected",
                                                                                     -len(kv[1]), kv[0])):
        how = "proposed, rejected by" if kind == "rejected" else "never proposed, kept out by"
        more = sum(1 for d in rows if len(d.rejected) + bool(d.unreachable) > 1)
        note = f" ({more} with other reasons in some combinations)" if more else ""
        counted = f"{len(rows)} row{'' if len(rows) == 1 else 's'}"
        lines.append(f"  {constraint}: {counted} {how} {' + '.join(killers)}{note}")
        lines += _first([f"    {_row_text(d)}  ({d.combos} combinations)" for d in rows])
    whole = sum(1 for d in r.dead_rows if d.name is not None)
    if whole:
        lines.append(f"  {whole} listed kernels are accepted on no selected arch (see above)")
    return lines


def as_text(reports: Sequence[Report], extra: Sequence[Containment] = ()) -> str:
    lines: list[str] = []
    for r in reports:
        if lines:
            lines.append("")
        lines += _combo_sections(r)
        lines += _invalid_section(r)
        lines += _containment_section(r.containment)
        lines += _dead_section(r)
        if r.idle:
            lines.append(f"\nIdle constraints ({len(r.idle)}): reject nothing in the selection, given the others")
            lines += [f"  {n}" for n in r.idle]
        if r.undecided:
            lines.append(f"\nNot decided whether idle ({len(r.undecided)}): no witness found and too large to re-solve")
            lines += [f"  {n}" for n in r.undecided]
    lines += _containment_section(extra)
    totals = findings(reports, extra)
    lines.append("\nfindings: " + ", ".join(f"{k} {totals[k]}" for k in CATEGORIES))
    return "\n".join(lines) + "\n"
