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

__all__ = ["Rule", "rules", "rules_for", "rule_axes", "applicability_constraints"]


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


def _arch_lists(text: str, lists: tuple[tuple[str, str], ...]) -> str:
    """``text`` with the arch-list fields (``{streamk_archs}``, ...) filled from ``lists`` (``checks.arch_lists``)."""
    for field, archs in lists:
        text = text.replace("{" + field + "}", archs)
    return text


def rules() -> tuple[Rule, ...]:
    """Every rule, its message and doc naming the archs of the active CK version (read when asked, never at
    import: a memo per set of arch lists)."""
    return _rules(checks.arch_lists())


@MEMOS.cached("workload.rules._rules", maxsize=16)
def _rules(lists: tuple[tuple[str, str], ...]) -> tuple[Rule, ...]:
    raw = _raw()
    sources = raw["sources"]
    out = []
    for entry in raw["rule"]:
        # "FWD L1-2" -> "<path>@<commit> L1-2"; several places are separated by '; '.
        source = "; ".join(_cite(part, sources) for part in entry["source"].split("; "))
        doc = _arch_lists(entry["doc"], lists) + (" [inferred]" if entry["tag"] == "I" else "")
        if not hasattr(checks, entry["check"]):
            raise ValueError(f"applicability.toml: rule {entry['key']}: no check {entry['check']!r}")
        out.append(Rule(entry["key"], tuple(entry["directions"]), tuple(entry.get("kinds", [GEMM.name])),
                        tuple(entry["scope"]), entry["check"], _arch_lists(entry["message"], lists), source, entry["tag"],
                        doc))
    return tuple(out)


@MEMOS.cached("workload.rules._raw", maxsize=1)
def _raw() -> dict:
    return load(__package__, "applicability.toml", _SCHEMA)


def _cite(part: str, sources: dict) -> str:
    head, _, rest = part.partition(" ")
    return f"{sources[head]} {rest}".strip() if head in sources else part


def rules_for(direction: str, kind: str) -> tuple[Rule, ...]:
    return _rules_for(direction, kind, checks.arch_lists())


@MEMOS.cached("workload.rules._rules_for")
def _rules_for(direction: str, kind: str, lists: tuple[tuple[str, str], ...]) -> tuple[Rule, ...]:
    return tuple(r for r in _rules(lists) if direction in r.directions and kind in r.kinds)


@MEMOS.cached("workload.rules.rule_axes")
def rule_axes(direction: str, kind: str) -> tuple[str, ...]:
    """Every kernel axis the direction's rules read, in first-use order (what kernels are grouped by; the same
    under every CK version: a version changes a rule's archs, not its scope)."""
    return tuple(dict.fromkeys(a for r in rules_for(direction, kind) for a in r.scope))


def applicability_constraints(facts: ProblemFacts, arch: str, dtype: str, kind: str) -> tuple[Check, ...]:
    """The rules a kernel of ``kind`` must meet to run the problem on ``arch`` in ``dtype`` (under the active
    CK version: its arch lists are in the messages)."""
    return _constraints(facts, arch, dtype, kind, checks.arch_lists())


@MEMOS.cached("workload.rules.applicability_constraints", maxsize=8192)
def _constraints(facts: ProblemFacts, arch: str, dtype: str, kind: str, lists) -> tuple[Check, ...]:
    params = (facts, arch, dtype)
    return tuple(
        Check(r.name(facts.direction), r.scope, getattr(checks, r.check), r.message, source=r.source,
              params=params, details=checks.details, applies_to=kind, doc=r.doc)
        for r in _rules_for(facts.direction, kind, lists)
    )


def every_rule() -> list[tuple[str, Rule]]:
    """(constraint name, rule) for every direction, for the constraint reference."""
    return [(r.name(d), r) for d in DIRECTIONS for r in rules() if d in r.directions]
