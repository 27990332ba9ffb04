"""``cksolve audit``: what a rule set proposes that the architecture rules throw away, and why.

For every selected combination the rule set's own constraints alone give the
*proposed* configs and, with the arch rules, the *accepted* ones. From those:

* empty (or 90%-lost) combinations, each with a minimal set of arch constraints
  whose removal brings the configs back (``blocking``, a deletion filter);
* dead rows: rows of the rule set's own tables that no accepted config uses in
  any combination, each with a minimal set of constraints that kills it;
* idle constraints: constraints that reject nothing anywhere in the selection,
  given the others;
* containment against other rule sets (``--against``), per combination.

Everything returns data (``Report``); ``report.py`` formats it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..space.constraints import Table, scope_values
from ..space.rulesets import Combo, RuleSet
from .blocking import minimal_removal
from .model import Parts, configs, count, pinned

__all__ = ["ComboFinding", "DeadRow", "Containment", "Report", "audit", "containment", "LOSS"]

#: A combination that loses this share of its proposed configs (or all) is explained.
LOSS = 0.9


@dataclass(frozen=True)
class ComboFinding:
    combo: Combo
    proposed: int
    accepted: int
    blocking: tuple[tuple[str, int], ...] = ()  # (constraint, proposed configs it rejects on its own)

    @property
    def empty(self) -> bool:
        return self.proposed > 0 and self.accepted == 0

    @property
    def lossy(self) -> bool:
        return self.proposed > 0 and self.accepted <= (1 - LOSS) * self.proposed


@dataclass(frozen=True)
class DeadRow:
    constraint: str
    scope: tuple[str, ...]
    row: tuple
    killed_by: tuple[str, ...]
    combos: int  # combinations whose table has the row (and in none of which it survives)
    name: str | None = None  # the kernel, when the row is a whole config (builder sets)


@dataclass(frozen=True)
class Containment:
    a: str
    b: str
    relation: str  # "subset" (a within b) or "superset"
    combo: Combo
    violations: int
    examples: tuple[str, ...] = ()


@dataclass
class Report:
    rule_set: str
    combos: list[ComboFinding] = field(default_factory=list)
    dead_rows: list[DeadRow] = field(default_factory=list)
    idle: list[str] = field(default_factory=list)
    containment: list[Containment] = field(default_factory=list)
    seconds: float = 0.0

    def categories(self) -> dict[str, int]:
        """Findings per ``--fail-on`` category."""
        return {"empty": sum(1 for c in self.combos if c.lossy), "dead": len(self.dead_rows), "idle": len(self.idle),
                "containment": sum(1 for c in self.containment if c.violations)}


def _blocking(p: Parts, finding_proposed: int, accepted: int) -> tuple[tuple[str, int], ...]:
    base = p.space + p.rules
    threshold = 0 if accepted == 0 else (1 - LOSS) * finding_proposed

    def holds_without(removed: frozenset) -> bool:
        return count(p, base + tuple(c for c in p.arch if c not in removed)) > threshold

    chosen = minimal_removal(p.arch, holds_without)
    return tuple((c.name, finding_proposed - count(p, base + (c,))) for c in chosen)


def _killed_by(p: Parts, table, row) -> tuple[str, ...]:
    """A minimal set of the other constraints whose removal lets some config use ``row``."""
    if len(table.scope) == len(p.axes):  # the row is a whole config: its own violations say it
        config = p.model(()).make_config(dict(zip(table.scope, row)))
        out = []
        for c in p.space + p.arch + p.rules:
            if c is not table and not c.holds(scope_values(config, c.scope)):
                out.append(c.name)
        return tuple(out)
    pin = pinned(table.scope, row, p.kind)
    others = tuple(c for c in p.arch + p.rules if c is not table)

    def holds_without(removed: frozenset) -> bool:
        return count(p, p.space + (pin,) + tuple(c for c in others if c not in removed)) > 0

    if not holds_without(frozenset(others)):
        return ("space",)  # the row is not even a well-formed config
    return tuple(c.name for c in minimal_removal(others, holds_without))


def audit(rule_set: RuleSet, combos: Sequence[Combo], progress: Callable[[str], None] | None = None,
          explain_dead: bool = True) -> Report:
    t0 = time.perf_counter()
    report = Report(rule_set.name)
    present: dict[tuple, list] = {}      # (table name, scope, row) -> [combos having it, first (parts, table)]
    live: set[tuple] = set()
    active: dict[str, bool] = {}         # constraint name -> rejected something somewhere
    for i, combo in enumerate(combos):
        if progress is not None:
            progress(f"{i + 1}/{len(combos)} {combo.key}")
        p = Parts(combo, rule_set)
        everything = p.space + p.arch + p.rules
        proposed = count(p, p.space + p.rules)
        accepted = count(p, everything)
        blocking = _blocking(p, proposed, accepted) if proposed and accepted <= (1 - LOSS) * proposed else ()
        report.combos.append(ComboFinding(combo, proposed, accepted, blocking))
        # dead rows: rows of the rule set's allowed tables that no accepted config uses
        tables = [c for c in p.rules if isinstance(c, Table) and not c.forbid]
        survivors = configs(p, everything) if accepted and tables else []
        for t in tables:
            used = {scope_values(c, t.scope) for c in survivors}
            for row in t.allowed_rows(p.domains):
                key = (t.name, t.scope, row)
                if row in used:
                    live.add(key)
                entry = present.get(key)
                if entry is None:
                    present[key] = [1, p, t]
                else:
                    entry[0] += 1
        # idle: a constraint is active once removing it adds a config somewhere
        for c in p.arch + p.rules:
            if active.get(c.name):
                continue
            without = tuple(x for x in everything if x is not c)
            active[c.name] = count(p, without) != accepted
    for key, (n, p, t) in present.items():
        if key in live:
            continue
        name = None
        if len(t.scope) == len(p.axes):
            name = p.model(()).make_config(dict(zip(t.scope, key[2]))).name()
        killed = _killed_by(p, t, key[2]) if explain_dead else ()
        report.dead_rows.append(DeadRow(key[0], key[1], key[2], killed, n, name))
    report.dead_rows.sort(key=lambda d: (d.constraint, repr(d.row)))
    report.idle = sorted(name for name, was in active.items() if not was)
    report.seconds = time.perf_counter() - t0
    return report


def containment(a: RuleSet, b: RuleSet, relation: str, combos: Sequence[Combo]) -> list[Containment]:
    """Per combination, the configs that break ``a`` ⊆ ``b`` (relation "subset") or ``a`` ⊇ ``b``."""
    from ..solver import solve_combo

    out = []
    for combo in combos:
        na = {c.name() for c in solve_combo(a, combo).configs()}
        nb = {c.name() for c in solve_combo(b, combo).configs()}
        extra = sorted(na - nb) if relation == "subset" else sorted(nb - na)
        out.append(Containment(a.name, b.name, relation, combo, len(extra), tuple(extra[:3])))
    return out
