"""What an audit finds, as plain values (``audit_report.py`` turns them into text or JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from ..errors import CksolveError, did_you_mean
from ..rulesets import Combo

__all__ = ["LOSS", "ComboFinding", "DeadRow", "Unreachable", "InvalidEntry", "Containment", "Report", "CATEGORIES", "categories"]

#: A combination that loses this share of its proposed configs (or all of them) is explained.
LOSS = 0.9

#: ``--fail-on`` categories, most important first.
CATEGORIES = ("empty", "invalid", "containment", "dead", "idle")


def categories(names: list[str]) -> list[str]:
    """``--fail-on`` values, checked."""
    for n in names:
        if n not in CATEGORIES:
            raise CksolveError(f"unknown {{option}} category {n!r}; valid: {', '.join(CATEGORIES)}"
                               f"{did_you_mean(n, CATEGORIES)}", option="fail_on")
    return names


@dataclass(frozen=True)
class ComboFinding:
    """One combination: what the rule set proposes, what the arch rules keep, and why not more.

    ``rejected_by`` counts, per arch constraint, the proposed configs it rejects
    (a config violating two constraints counts for both). ``blocking`` is a
    minimal set of arch constraints whose removal brings the configs back (for
    an empty combination: any config; for a lossy one: above the loss line).
    """

    combo: Combo
    proposed: int
    accepted: int
    rejected_by: tuple[tuple[str, int], ...] = ()
    blocking: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return self.proposed > 0 and self.accepted == 0

    @property
    def lossy(self) -> bool:
        """Empty, or at least ``LOSS`` of the proposed configs rejected."""
        return self.proposed > 0 and self.accepted <= (1 - LOSS) * self.proposed


class Unreachable(NamedTuple):
    """Why the rule set never proposes a row: a minimal set of its own constraints, found in one combination."""

    killed_by: tuple[str, ...]
    combos: int  # combinations whose table has the row and that never propose it
    found_in: Combo


@dataclass(frozen=True)
class DeadRow:
    """A row of one of the rule set's own tables that no accepted config uses anywhere in the selection.

    ``kind`` is "rejected" when the rule set proposes configs with the row in
    some combination and the arch rules reject every one of them, "unreachable"
    when the rule set's own constraints never combine the row into a config.
    ``rejected`` holds each minimal set of arch constraints that kills it, with
    the number of combinations it explains; ``unreachable`` the minimal set of
    rule-set constraints that keeps it out, the number of combinations that never
    propose it, and the combination the set was found in.
    """

    constraint: str
    scope: tuple[str, ...]
    row: tuple
    kind: str
    rejected: tuple[tuple[tuple[str, ...], int], ...]
    unreachable: Unreachable | None
    combos: int  # combinations whose table has the row
    name: str | None = None  # the kernel, when the row is a whole config (builder instances)

    @property
    def killed_by(self) -> tuple[str, ...]:
        """Every constraint of every reason, arch rules first."""
        names = {n for killers, _ in self.rejected for n in killers}
        names.update(self.unreachable.killed_by if self.unreachable else ())
        return tuple(sorted(names, key=lambda n: (not n.startswith("arch."), n)))


@dataclass(frozen=True)
class InvalidEntry:
    """A kernel a rule set lists explicitly (a builder instance) that fails validity on an arch."""

    combo: Combo
    name: str
    violates: tuple[str, ...]


@dataclass(frozen=True)
class Containment:
    """Per combination: the configs that break ``a`` within ``b`` (subset) or ``a`` around ``b`` (superset)."""

    a: str
    b: str
    relation: str
    combo: Combo
    violations: int
    examples: tuple[str, ...] = ()
    breakdown: tuple[tuple[str, object, int, bool], ...] = ()  # (axis, value, count, exclusive), as diff's


@dataclass
class Report:
    rule_set: str
    combos: list[ComboFinding] = field(default_factory=list)
    dead_rows: list[DeadRow] = field(default_factory=list)
    invalid: list[InvalidEntry] = field(default_factory=list)
    idle: list[str] = field(default_factory=list)
    containment: list[Containment] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)  # own constraints neither shown active nor idle

    def findings(self) -> dict[str, int]:
        """How many findings each ``--fail-on`` category has."""
        return {"empty": sum(1 for c in self.combos if c.lossy), "invalid": len(self.invalid),
                "containment": sum(1 for c in self.containment if c.violations),
                "dead": len(self.dead_rows), "idle": len(self.idle)}
