"""One pass over the selection: each combination's proposed configs, judged by the arch rules.

Per combination the rule set's proposal (space and rule constraints) is solved
and enumerated once, and every proposed config gets the bit mask of the arch
constraints it violates. Everything per combination follows from the masks
without another solve: the accepted count (mask 0), what each arch rule
rejects, the minimal blocking set of an empty or lossy combination, and, for
each row of the rule set's own tables, whether an accepted config uses it and
otherwise which arch rules kill it. Only two questions need further solves:
whether an own constraint is idle (a solve without it) and why a row the rule
set never proposes is unreachable (``dead_rows.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import compress
from math import prod
from operator import not_

from ..errors import CksolveError
from ..solver import CONFIG_LIMIT, key_getter, solve
from ..space.constraints import Table, scope_values
from ..rulesets import Combo, RuleSet
from .blocking import masks_removal, violation_masks
from .findings import LOSS, ComboFinding, InvalidEntry
from .parts import Parts, count

__all__ = ["Scan", "MAX_PROPOSED"]

#: Proposed configs per combination that audit enumerates at most (``full`` proposes 2,404 at most): the
#: solver's bound for every command that lists a combination's configs.
MAX_PROPOSED = CONFIG_LIMIT

def _bits(mask: int, names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n for i, n in enumerate(names) if mask >> i & 1)


@dataclass
class Scan:
    """What the selection shows, combination by combination (see the module docstring)."""

    rule_set: RuleSet
    findings: list[ComboFinding] = field(default_factory=list)
    invalid: list[InvalidEntry] = field(default_factory=list)
    # rows are keyed (table name, scope, values)
    present: Counter = field(default_factory=Counter)          # row -> combinations whose table has it
    live: set = field(default_factory=set)                     # rows some accepted config uses
    rejected: dict = field(default_factory=dict)               # row -> Counter(minimal arch killers)
    unreachable: dict = field(default_factory=dict)            # row -> (combinations never proposing it, first)
    whole: dict = field(default_factory=dict)                  # row of a whole-config table -> kernel name
    active: dict = field(default_factory=dict)                 # own constraint -> rejects something (None: undecided)
    own_order: dict = field(default_factory=dict)              # own constraint names in first-seen order

    def add(self, combo: Combo) -> None:
        p = Parts(combo, self.rule_set)
        proposal = solve(p.model(p.proposal))
        proposed = proposal.count()
        if proposed > MAX_PROPOSED:
            raise CksolveError(f"rule set {self.rule_set.name} proposes {proposed} configs for {combo.key}, more "
                               f"than audit enumerates ({MAX_PROPOSED}); pin more axes in the rule set")
        configs = proposal.configs() if proposed else []
        names = tuple(c.name for c in p.arch)
        masks = violation_masks(configs, configs[0]._fields, p.arch) if configs else []
        by_mask = Counter(masks)
        accepted = by_mask.get(0, 0)
        rejected_by = tuple((n, sum(k for m, k in by_mask.items() if m >> i & 1)) for i, n in enumerate(names))
        finding = ComboFinding(combo, proposed, accepted, tuple((n, k) for n, k in rejected_by if k))
        if finding.lossy:
            line = 0 if accepted == 0 else (1 - LOSS) * proposed
            finding = ComboFinding(combo, proposed, accepted, finding.rejected_by,
                                   tuple(names[b] for b in masks_removal(by_mask, len(names), line)))
        self.findings.append(finding)
        if proposed:  # where the rule set proposes nothing, none of its rows is live or dead
            self._rows(p, configs, masks, names)
        self._idle(p, [c for c, m in zip(configs, masks) if not m])

    def _rows(self, p: Parts, configs: list, masks: list[int], names: tuple[str, ...]) -> None:
        fields = configs[0]._fields if configs else ()
        for t in p.own:
            if not isinstance(t, Table) or t.forbid:
                continue
            whole = len(t.scope) == len(p.axes)
            keys = list(map(key_getter(tuple(fields.index(a) for a in t.scope)), configs)) if configs else []
            live = set(compress(keys, map(not_, masks)))
            seen: dict[tuple, Counter] = {}
            for (row, mask), n in Counter(zip(keys, masks)).items():  # distinct pairs: far fewer than configs
                if row not in live:
                    seen.setdefault(row, Counter())[mask] += n
            for row in sorted(t.allowed_rows(p.domains), key=repr):
                key = (t.name, t.scope, row)
                self.present[key] += 1
                if row in live:
                    self.live.add(key)
                    continue
                if whole:
                    self.whole.setdefault(key, _name(p, t, row))
                found = seen.get(row)
                if found is None:
                    n, first = self.unreachable.get(key, (0, (p, t)))
                    self.unreachable[key] = (n + 1, first)
                    continue
                if whole:
                    self.invalid.append(InvalidEntry(p.combo, self.whole[key], _bits(next(iter(found)), names)))
                if key not in self.live:
                    killers = tuple(names[b] for b in masks_removal(found, len(names)))
                    self.rejected.setdefault(key, Counter())[killers] += 1

    def _idle(self, p: Parts, accepted: list) -> None:
        """An own constraint is active once it is shown to reject something somewhere, given the others.

        A filter, or a table whose axes other tables also bound, is judged by a
        solve without it. A table that alone bounds an axis would leave that
        axis free over its whole domain in such a solve; it is shown active by a
        witness instead: an accepted config with one of those axes changed to
        another value that the table rejects and every other constraint accepts.
        Without a witness a solve decides if it stays small; otherwise the
        constraint stays undecided (``None``), never called idle.
        """
        everything = p.everything
        for c in p.own:
            self.own_order.setdefault(c.name, None)
            if self.active.get(c.name):
                continue
            others = tuple(x for x in everything if x is not c)
            if not (isinstance(c, Table) and not c.forbid) or p.covered_elsewhere(c):
                active = count(p, others) != len(accepted)
            elif _witness(p, c, others, accepted):
                active = True
            elif prod(len(p.domains[a]) for a in c.scope) <= MAX_FREED:
                active = count(p, others) != len(accepted)
            else:
                active = None
            # across combinations: shown active anywhere wins, then undecided anywhere, then idle
            known = self.active.get(c.name, False)
            self.active[c.name] = active if active or (active is None and known is False) else known


#: Witness search: accepted configs tried per constraint and combination.
WITNESS_CONFIGS = 64
#: Without a witness, a table that alone bounds its axes is re-solved without it only if their domain product is at most this.
MAX_FREED = 100_000


def _witness(p: Parts, c: Table, others: tuple, configs: list) -> bool:
    bounded = {a for t in p.rules if t is not c and isinstance(t, Table) and not t.forbid for a in t.scope}
    free = [a for a in c.scope if a not in bounded and len(p.domains[a]) > 1]
    for x in sorted(configs)[:WITNESS_CONFIGS]:  # sorted: the solver's row order is unspecified
        for a in free:
            for v in p.domains[a]:
                if v == getattr(x, a):
                    continue
                y = x._replace(**{a: v})
                if not c.holds(scope_values(y, c.scope)) and all(o.holds(scope_values(y, o.scope)) for o in others):
                    return True
    return False


def _name(p: Parts, t: Table, row: tuple) -> str:
    return p.model(()).make_config(dict(zip(t.scope, row))).name()
