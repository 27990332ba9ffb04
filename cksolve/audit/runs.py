"""Running audits: one rule set (with containment checks against others) or ``all`` with CK's hierarchy.

What the ``audit`` command asks for, as functions returning data; the
report's words and JSON are :mod:`.audit_report`'s.
"""

from __future__ import annotations

from typing import Sequence

import json

from ..arch.versions import active
from ..errors import CksolveError
from ..formats import check_format
from ..progress import phase
from ..rulesets import Combo, RuleSet, get_rule_set, takes_rule_set
from ..selection import Selection
from .containment import EXPECTED, Containment, containment, parse_against
from .findings import Report, categories
from .audit_report import as_json, as_text, findings
from .dead_rows import dead_rows, idle
from .scan import Scan

__all__ = ["audit", "ALL", "run", "AUDIT_FORMATS", "audit_selection", "audit_text"]

@takes_rule_set
def audit(rule_set: RuleSet, combos: Sequence[Combo], step: str = "") -> Report:
    """Audit ``rule_set`` over ``combos`` (no containment: see :func:`containment`).

    The progress bar's phases (``step``: where this audit is in a longer run, as ``rule set 2 of 6``) say the
    combination scanned, then the dead row explained, n of N.
    """
    scan = Scan(rule_set)
    label = f"auditing {rule_set.name}{f' ({step})' if step else ''}"
    for i, combo in enumerate(combos, 1):
        phase(f"{label}: combination", i, len(combos))
        scan.add(combo)
    idle_names, undecided = idle(scan)
    dead = dead_rows(scan, f"{label}: dead row")
    return Report(rule_set.name, scan.findings, dead, scan.invalid, idle_names, undecided=undecided)


#: ``--rule-set all``: every built-in rule set, and CK's expected hierarchy among them.
ALL = "all"


def run(spec: str, combos: Sequence[Combo], against: Sequence[str] = (), builder_configs: str | None = None,
        strict: bool = False) -> tuple[list[Report], list[Containment]]:
    """The audits a command line asks for: one rule set (with ``against`` checks) or ``all``.

    Returns the reports and the containment checks that belong to no single
    report (the hierarchy of ``all``).
    """
    def load(name: str) -> RuleSet:
        return get_rule_set(name, builder_configs=builder_configs, strict=strict)

    if spec == ALL:
        if against:
            raise CksolveError(f"{{opt:against}} is not used with {{opt:rule_set}} {ALL} (it checks CK's hierarchy)")
        names = dict.fromkeys(n for a, b, _ in EXPECTED for n in (a, b))
        rule_sets = {n: load(n) for n in ("default", *names)}  # load all first: a missing input fails fast
        reports = []
        for i, (name, rs) in enumerate(rule_sets.items(), 1):
            phase(f"auditing {name}: rule set", i, len(rule_sets))
            reports.append(audit(rs, combos, f"rule set {i} of {len(rule_sets)}"))
        checks = []
        for i, (a, b, rel) in enumerate(EXPECTED, 1):
            phase(f"checking {a} {rel} {b}: check", i, len(EXPECTED))
            checks.extend(containment(rule_sets[a], rule_sets[b], rel, combos))
        return reports, checks
    rule_set = load(spec)
    targets = [parse_against(a) for a in against]
    others = [(load(name), rel) for name, rel in targets]
    report = audit(rule_set, combos)
    for other, rel in others:
        report.containment.extend(containment(rule_set, other, rel, combos))
    return [report], []


#: ``audit``'s reports
AUDIT_FORMATS = ("text", "json")


def audit_selection(spec: str, selection: Selection, against: Sequence[str] = (), builder_configs: str | None = None,
                    fail_on: Sequence[str] = (), strict: bool = False
                    ) -> tuple[list[Report], list[Containment], list[str]]:
    """(reports, containment checks, the ``fail_on`` categories with findings); ``strict``: what loading a rule
    set would only warn about is an error."""
    gates = categories(list(fail_on))
    reports, checks = run(spec, selection.combos(), against, builder_configs, strict)
    totals = findings(reports, checks)
    return reports, checks, [g for g in gates if totals[g]]


def audit_text(reports, checks, fmt: str, spec: str) -> str:
    """The reports as ``fmt`` (one of :data:`AUDIT_FORMATS`)."""
    ck = active().label  # the CK version the rules were answered at
    if check_format(fmt, AUDIT_FORMATS) == "json":
        return json.dumps({**json.loads(as_json(reports, checks, ALL if spec == ALL else None)), "ck": ck}) + "\n"
    return f"at {ck}\n" + as_text(reports, checks)
