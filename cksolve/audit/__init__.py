"""``cksolve audit``: what a rule set proposes that the arch rules throw away, and why.

For every selected combination the rule set's own constraints alone give the
*proposed* configs and, with the arch rules, the *accepted* ones. From those:

* empty (or 90%-lost) combinations, each with a minimal set of arch constraints
  whose removal brings the configs back (a deletion filter, ``blocking``);
* dead rows: rows of the rule set's own tables that no accepted config uses in
  any combination, each with the minimal sets of constraints that kill it;
* invalid entries: kernels the rule set lists one by one (builder instances)
  that fail validity, with every constraint they violate;
* idle constraints: own constraints that reject nothing anywhere in the
  selection, given the others;
* containment against other rule sets, per combination (``containment``).

Everything returns data (:class:`Report`); :mod:`.report` formats it.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import CksolveError
from .. import derived  # noqa: F401  (registers full-tests and tiny, which the containment checks name)
from ..rulesets import Combo, RuleSet, get_rule_set
from .containment import EXPECTED, Containment, containment, parse_against
from .findings import CATEGORIES, LOSS, ComboFinding, DeadRow, InvalidEntry, Report, categories
from .rows import dead_rows, idle
from .scan import Scan

__all__ = ["audit", "run", "ALL", "containment", "EXPECTED", "CATEGORIES", "categories", "LOSS", "Report", "ComboFinding", "DeadRow",
           "InvalidEntry", "Containment"]


def audit(rule_set: RuleSet, combos: Sequence[Combo]) -> Report:
    """Audit ``rule_set`` over ``combos`` (no containment: see :func:`containment`)."""
    scan = Scan(rule_set)
    for combo in combos:
        scan.add(combo)
    idle_names, undecided = idle(scan)
    return Report(rule_set.name, scan.findings, dead_rows(scan), scan.invalid, idle_names, undecided=undecided)


#: ``--rule-set all``: every built-in rule set, and CK's expected hierarchy among them.
ALL = "all"


def run(spec: str, combos: Sequence[Combo], against: Sequence[str] = (), builder_configs: str | None = None
        ) -> tuple[list[Report], list[Containment]]:
    """The audits a command line asks for: one rule set (with ``against`` checks) or ``all``.

    Returns the reports and the containment checks that belong to no single
    report (the hierarchy of ``all``).
    """
    def load(name: str) -> RuleSet:
        return get_rule_set(name, builder_configs=builder_configs)

    if spec == ALL:
        if against:
            raise CksolveError("--against is not used with --rule-set all (it checks CK's hierarchy)")
        names = dict.fromkeys(n for a, b, _ in EXPECTED for n in (a, b))
        rule_sets = {n: load(n) for n in ("default", *names)}  # load all first: a missing input fails fast
        reports = [audit(rs, combos) for rs in rule_sets.values()]
        checks = [c for a, b, rel in EXPECTED for c in containment(rule_sets[a], rule_sets[b], rel, combos)]
        return reports, checks
    rule_set = load(spec)
    targets = [parse_against(a) for a in against]
    others = [(load(name), rel) for name, rel in targets]
    report = audit(rule_set, combos)
    for other, rel in others:
        report.containment.extend(containment(rule_set, other, rel, combos))
    return [report], []
