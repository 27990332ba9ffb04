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

Everything returns data (:class:`Report`); :mod:`.audit_report` formats it.
"""

from .containment import Containment
from .findings import CATEGORIES, ComboFinding, DeadRow, InvalidEntry, Report
from .runs import ALL, AUDIT_FORMATS, audit, audit_selection, audit_text

__all__ = [
    "audit_selection",
    "audit_text",
    "audit",
    "Report",
    "ComboFinding",
    "DeadRow",
    "InvalidEntry",
    "Containment",
    "CATEGORIES",
    "ALL",
    "AUDIT_FORMATS",
]
