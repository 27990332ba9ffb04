"""The direct evaluator: every constraint, tested on one config.

This is the ground truth the solvers are tested against and what ``check`` and
``explain`` report. It never raises on a strange config: a value outside an
axis domain is a ``space.domain`` violation, and a constraint that cannot even
be evaluated on the values (an unknown dtype, say) counts as violated.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...space.axes import AXES
from ...space.combo import Combo, ConstraintSource
from ...space.constraints import Violation, scope_values
from ..model import build_model

__all__ = ["Verdict", "evaluate", "DOMAIN", "UNEVALUABLE"]

#: What a constraint raises on values it cannot be evaluated on: it then counts as broken (evaluate,
#: neighbours and diff alike).
UNEVALUABLE = (KeyError, TypeError, ValueError, ZeroDivisionError)

DOMAIN = "space.domain"


@dataclass(frozen=True)
class Verdict:
    """Arch validity (both CK layers) and, when a rule set is given, membership."""

    valid: bool
    member: bool | None
    violations: tuple[Violation, ...]  # arch and domain violations
    rule_violations: tuple[Violation, ...]  # rule-set constraints not met
    problem_violations: tuple[Violation, ...] = ()  # ``extra`` constraints not met (e.g. a problem's)

    @property
    def runs(self) -> bool:
        """Valid for the arch and meets every ``extra`` constraint."""
        return self.valid and not self.problem_violations


def _domain_violations(config, axes) -> list[Violation]:
    out = []
    for axis in axes:
        value = getattr(config, axis)
        domain = AXES[axis].domain
        if value not in domain:
            out.append(Violation(DOMAIN, f"{axis}={value!r} is outside the domain {list(domain)}"))
    return out


def evaluate(config, arch: str, rule_set: ConstraintSource | None = None, extra=()) -> Verdict:
    """``extra``: further constraints (a problem's applicability rules), reported apart."""
    combo = Combo(arch, config.variant, config.dtype, config.ndim)
    arch_only = build_model(combo)  # space + arch constraints
    model = build_model(combo, rule_set, extra) if (rule_set is not None or extra) else arch_only
    arch_names = {c.name for c in arch_only.constraints}
    extra_names = {c.name for c in extra}
    arch_v = _domain_violations(config, model.axes)
    rule_v: list[Violation] = []
    extra_v: list[Violation] = []
    for c in model.constraints:
        values = scope_values(config, c.scope)
        try:
            ok = c.holds(values)
            message = None if ok else c.explain(values, combo._asdict())
        except UNEVALUABLE as exc:
            ok, message = False, f"cannot evaluate on {dict(zip(c.scope, values))}: {exc}"
        if not ok:
            bucket = arch_v if c.name in arch_names else extra_v if c.name in extra_names else rule_v
            bucket.append(Violation(c.name, message))
    member = None if rule_set is None else (not rule_v and not arch_v)
    return Verdict(valid=not arch_v, member=member, violations=tuple(arch_v), rule_violations=tuple(rule_v),
                   problem_violations=tuple(extra_v))
