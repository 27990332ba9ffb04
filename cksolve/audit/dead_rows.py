"""Dead rows and idle constraints, from a finished scan.

A row is dead when no accepted config of any selected combination uses it.
Where the rule set proposes configs with the row, the scan already knows the
arch rules that kill it, per combination. Where it never does, the rule set's
own constraints keep the row out: a deletion filter over the rule constraints
(arch rules left out: the question is why the rule set never *proposes* it)
finds a minimal set whose removal lets a config with the row exist. That takes
a solve per step, so it is asked once per row, in the first combination that
never proposes it (the combinations of one rule set build the row from the
same rules). Allowed tables are put back first, so every solve the filter asks
for is bounded by the rule set's tables, as the real model is; axes range over
the values the rule set's tables use (``Parts.vocabulary``).
"""

from __future__ import annotations

from collections import Counter

from ..progress import phase
from ..space.constraints import Table
from ..space.memos import MEMOS
from .blocking import minimal_removal
from .findings import DeadRow, Unreachable
from .parts import Parts, count, pinned
from .scan import Scan

__all__ = ["dead_rows", "idle"]


def _put_back_order(constraints) -> list:
    """Allowed tables first (smallest first: they bound the solve), then the filters in model order."""
    tables = sorted((c for c in constraints if isinstance(c, Table) and not c.forbid), key=lambda c: len(c.rows))
    return tables + [c for c in constraints if not (isinstance(c, Table) and not c.forbid)]


_KILLERS: dict = MEMOS.memo("audit.dead_rows.killers")


def unreachable_killers(p: Parts, table: Table, row: tuple) -> tuple[str, ...]:
    """A minimal set of the rule set's other constraints whose removal lets some config use ``row``.

    ``("space",)`` when not even a well-formed config can use it.
    """
    others = tuple(c for c in p.rules if c is not table)
    key = (others, table.scope, row, tuple(p.vocabulary[a] for a in p.axes))
    hit = _KILLERS.get(key)
    if hit is not None:
        return hit
    base = p.space + (pinned(table.scope, row, p.kind),)

    def holds_without(removed: frozenset) -> bool:
        return count(p, base + tuple(c for c in others if c not in removed), vocabulary=True) > 0

    order = _put_back_order(others)
    if not holds_without(frozenset(order)):
        hit = ("space",)
    else:
        chosen = set(minimal_removal(order, holds_without))
        hit = tuple(c.name for c in others if c in chosen)  # in the rule set's order
    _KILLERS[key] = hit
    return hit


def dead_rows(scan: Scan, label: str | None = None) -> list[DeadRow]:
    """The rows no config uses, each with why; ``label``: the progress bar's phase, told per row (n of N)."""
    out = []
    dead = [(key, n) for key, n in scan.present.items() if key not in scan.live]
    for i, (key, n) in enumerate(dead, 1):
        if label is not None:
            phase(label, i, len(dead))
        name, scope, row = key
        rejected = tuple(sorted(scan.rejected.get(key, Counter()).items(), key=lambda kv: (-kv[1], kv[0])))
        unreachable = None
        if key in scan.unreachable:
            times, (p, table) = scan.unreachable[key]
            unreachable = Unreachable(unreachable_killers(p, table, row), times, p.combo)
        kind = "rejected" if rejected else "unreachable"
        out.append(DeadRow(name, scope, row, kind, rejected, unreachable, n, scan.whole.get(key)))
    out.sort(key=lambda d: (d.kind != "rejected", d.constraint, repr(d.row)))
    return out


def idle(scan: Scan) -> tuple[list[str], list[str]]:
    """Own constraints that reject nothing anywhere in the selection, given the others; and those undecided."""
    return (sorted(n for n in scan.own_order if scan.active.get(n) is False),
            sorted(n for n in scan.own_order if scan.active.get(n) is None))
