"""The applicability constraints: CK Tile's run-time checks as named constraints.

A problem is fixed when a kernel is checked against it, so each rule becomes a
``Check`` over the kernel axes it reads, with the problem's facts, the arch and
the dtype as parameters. That keeps the problem out of the solver's variables
(where it would multiply every domain) while ``evaluate``, ``explain``, the
backends and the constraint reference take the rules as they take arch rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..space.constraints import Check
from ..space.datafile import load
from ..space.kinds import GEMM
from ..space.memos import MEMOS
from . import checks
from .problem import DIRECTIONS, ProblemFacts

__all__ = ["Rule", "RULES", "rules_for", "rule_axes", "applicability_constraints"]


@dataclass(frozen=True)
class Rule:
    key: str
    directions: tuple[str, ...]
    kinds: tuple[str, ...]
    scope: tuple[str, ...]
    check: str
    message: str
    source: str
    tag: str
    doc: str

    def name(self, direction: str) -> str:
        return f"apply.{direction}.{self.key}"


_SCHEMA = {"sources": {"*": str},
           "rule": [{"key": str, "directions": [str], "kinds?": [str], "scope": [str], "check": str, "message": str,
                     "source": str, "tag": str, "doc": str}]}


def _arch_lists(text: str) -> str:
    """``text`` with the arch-list fields (``{streamk_archs}``, ...) filled from the arch facts."""
    for field, archs in checks.ARCH_LISTS.items():
        text = text.replace("{" + field + "}", archs)
    return text


def _load() -> tuple[Rule, ...]:
    raw = load(__package__, "applicability.toml", _SCHEMA)
    sources = raw["sources"]
    rules = []
    for entry in raw["rule"]:
        # "FWD L1-2" -> "<path>@<commit> L1-2"; several places are separated by '; '.
        source = "; ".join(_cite(part, sources) for part in entry["source"].split("; "))
        doc = _arch_lists(entry["doc"]) + (" [inferred]" if entry["tag"] == "I" else "")
        if not hasattr(checks, entry["check"]):
            raise ValueError(f"applicability.toml: rule {entry['key']}: no check {entry['check']!r}")
        rules.append(Rule(entry["key"], tuple(entry["directions"]), tuple(entry.get("kinds", [GEMM.name])),
                          tuple(entry["scope"]), entry["check"], _arch_lists(entry["message"]), source, entry["tag"], doc))
    return tuple(rules)


def _cite(part: str, sources: dict) -> str:
    head, _, rest = part.partition(" ")
    return f"{sources[head]} {rest}".strip() if head in sources else part


RULES: tuple[Rule, ...] = _load()


def rules_for(direction: str, kind: str) -> tuple[Rule, ...]:
    return tuple(r for r in RULES if direction in r.directions and kind in r.kinds)


@MEMOS.cached("workload.rules.rule_axes")
def rule_axes(direction: str, kind: str) -> tuple[str, ...]:
    """Every kernel axis the direction's rules read, in first-use order (what kernels are grouped by)."""
    return tuple(dict.fromkeys(a for r in rules_for(direction, kind) for a in r.scope))


@MEMOS.cached("workload.rules.applicability_constraints", maxsize=8192)
def applicability_constraints(facts: ProblemFacts, arch: str, dtype: str, kind: str) -> tuple[Check, ...]:
    """The rules a kernel of ``kind`` must meet to run the problem on ``arch`` in ``dtype``."""
    params = (facts, arch, dtype)
    return tuple(
        Check(r.name(facts.direction), r.scope, getattr(checks, r.check), r.message, source=r.source,
              params=params, details=checks.details, applies_to=kind, doc=r.doc)
        for r in rules_for(facts.direction, kind)
    )


def every_rule() -> list[tuple[str, Rule]]:
    """(constraint name, rule) for every direction, for the constraint reference."""
    return [(r.name(d), r) for d in DIRECTIONS for r in RULES if d in r.directions]
