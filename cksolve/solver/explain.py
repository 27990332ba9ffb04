"""``explain``: every violated constraint in words, and the nearest valid configs.

"Nearest" is the number of axes that differ. Candidates are the kernels CK
would actually build for the combination: the given rule set, or else every
built-in rule set that needs no external files. A config that differs in one
axis from a real kernel is usually a typo or a rule the user did not know.
"""

from __future__ import annotations

from ..rulesets import Combo, RuleSet, RuleSetError, get_rule_set
from . import solve_combo
from .evaluate import evaluate

__all__ = ["explain", "nearest_valid", "CANDIDATE_RULE_SETS"]

#: Rule sets searched for nearest configs when none is given (subsets like tiny add nothing).
CANDIDATE_RULE_SETS = ("default", "full")


def _distance(a, b) -> int:
    da, db = a.as_dict(), b.as_dict()
    return sum(1 for k in da.keys() | db.keys() if da.get(k) != db.get(k))


def nearest_valid(config, arch: str, rule_set: RuleSet | None, how_many: int, keep=None) -> list[tuple[int, object]]:
    """The ``how_many`` configs nearest to ``config`` (``keep``: a further test on candidates)."""
    combo = Combo(arch, config.variant, config.dtype, config.ndim)
    sources = [rule_set] if rule_set is not None else []
    if rule_set is None:
        for name in CANDIDATE_RULE_SETS:
            try:
                sources.append(get_rule_set(name))
            except RuleSetError:
                continue
    seen = {}
    for rs in sources:
        try:
            for c in solve_combo(rs, combo).configs():
                seen.setdefault(c.name(), c)
        except (RuleSetError, KeyError, ValueError):
            continue
    ranked = sorted(((_distance(config, c), n, c) for n, c in seen.items()
                     if n != config.name() and (keep is None or keep(c))))
    return [(d, c) for d, _, c in ranked[:how_many]]


def explain(config, arch: str, rule_set: RuleSet | None = None, how_many: int = 3, extra=(), keep=None,
            what: str = "the problem") -> str:
    """``extra``: constraints the config must also meet (a problem's), reported after the others;
    ``keep``: a test the nearest configs must pass too (e.g. running that problem)."""
    verdict = evaluate(config, arch, rule_set, extra)
    name = config.name()
    lines = []
    if verdict.valid and verdict.member is not False:
        where = f" and is in rule set {rule_set.name}" if rule_set is not None else ""
        lines.append(f"{name} is valid for {arch}{where}.")
    else:
        if verdict.valid:
            lines.append(f"{name} is valid for {arch} but not in rule set {rule_set.name}:")
        else:
            lines.append(f"{name} is not valid for {arch}:")
        for v in verdict.violations + verdict.rule_violations:
            lines.append(f"  - {v.message} [{v.constraint}]")
    if extra:
        if verdict.problem_violations:
            lines.append(f"It cannot run {what}:")
            lines.extend(f"  - {v.message} [{v.constraint}]" for v in verdict.problem_violations)
        else:
            lines.append(f"It can run {what}.")
    near = nearest_valid(config, arch, rule_set, how_many, keep) if how_many > 0 else []
    if near:
        lines.append("Nearest valid configs (axes changed):")
        for d, c in near:
            changed = ", ".join(
                f"{k}={v}" for k, v in c.as_dict().items() if config.as_dict().get(k) != v
            )
            lines.append(f"  {c.name()}  ({d}: {changed})")
    return "\n".join(lines) + "\n"
