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

from typing import Callable, Sequence

from ..space.rulesets import Combo, RuleSet
from .containment import EXPECTED, Containment, containment
from .findings import CATEGORIES, LOSS, ComboFinding, DeadRow, InvalidEntry, Report
from .rows import dead_rows, idle
from .scan import Scan

__all__ = ["audit", "containment", "EXPECTED", "CATEGORIES", "LOSS", "Report", "ComboFinding", "DeadRow",
           "InvalidEntry", "Containment"]


def audit(rule_set: RuleSet, combos: Sequence[Combo], progress: Callable[[str], None] | None = None) -> Report:
    """Audit ``rule_set`` over ``combos`` (no containment: see :func:`containment`)."""
    scan = Scan(rule_set)
    for i, combo in enumerate(combos):
        if progress is not None:
            progress(f"{i + 1}/{len(combos)} {combo.key}")
        scan.add(combo)
    return Report(rule_set.name, scan.findings, dead_rows(scan), scan.invalid, idle(scan))
