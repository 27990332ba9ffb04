"""Containment between rule sets, per combination: R within R2 (subset) or R around R2 (superset).

CK's own tests assert a hierarchy among its rule sets (``EXPECTED``); audit
checks it from the models, not from lists of names, and breaks every violation
down along the axes as ``diff`` does.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import CksolveError
from ..solver import bounded_configs
from ..space.breakdown import axis_breakdown
from ..rulesets import Combo, RuleSet
from .findings import Containment

__all__ = ["EXPECTED", "RELATIONS", "containment", "parse_against"]

RELATIONS = ("subset", "superset")

#: CK's expected hierarchy of the built-in rule sets: tiny within full-tests within full; tests and profiler within full.
EXPECTED = (("tiny", "full-tests", "subset"), ("full-tests", "full", "subset"),
            ("tests", "full", "subset"), ("profiler", "full", "subset"))


def parse_against(spec: str) -> tuple[str, str]:
    """``R2`` or ``R2:subset`` / ``R2:superset`` -> (rule set, relation); subset by default."""
    name, sep, relation = spec.rpartition(":")
    if not sep:
        return spec, "subset"
    if relation not in RELATIONS:
        raise CksolveError(f"unknown relation {relation!r} in {{option}} {spec!r}; valid: {', '.join(RELATIONS)}",
                           option="against")
    if not name:
        raise CksolveError(f"{{option}} {spec!r} names no rule set", option="against")
    return name, relation


def containment(a: RuleSet, b: RuleSet, relation: str, combos: Sequence[Combo]) -> list[Containment]:
    """Per combination with configs on either side: the configs that break the relation."""
    if relation not in RELATIONS:
        raise CksolveError(f"unknown relation {relation!r}; valid: {', '.join(RELATIONS)}")
    out = []
    for combo in combos:
        ca = {c.name(): c for c in bounded_configs(a, combo)}
        cb = {c.name(): c for c in bounded_configs(b, combo)}
        if not (ca or cb):
            continue
        inner, outer = (ca, cb) if relation == "subset" else (cb, ca)
        extra = {n: c for n, c in inner.items() if n not in outer}
        out.append(Containment(a.name, b.name, relation, combo, len(extra), tuple(sorted(extra)[:3]),
                               axis_breakdown(extra, outer)))
    return out
