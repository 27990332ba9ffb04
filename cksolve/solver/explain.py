"""``explain``: every violated constraint in words, and the nearest valid configs.

"Nearest" is the number of axes that differ. Candidates are the kernels CK
would actually build for the combination: the given rule set, or else the
``candidates`` the caller passes (``cksolve.rulesets.candidate_rule_sets``:
``default`` and ``full``, the kernels CK builds; subsets add nothing, and ``tests``
and ``profiler`` need external files). A config that differs in one
axis from a real kernel is usually a typo or a rule the user did not know.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..space.combo import Combo, ConstraintSource
from . import bounded_configs
from .evaluate import Verdict, evaluate

__all__ = ["Explanation", "explain", "explanation", "nearest_valid"]


class Explanation(NamedTuple):
    """The verdict on one config and the words for it."""

    verdict: Verdict
    text: str


def _distance(a, b) -> int:
    da, db = a.as_dict(), b.as_dict()
    return sum(1 for k in da.keys() | db.keys() if da.get(k) != db.get(k))


def nearest_valid(config, arch: str, sources: Sequence[ConstraintSource], how_many: int,
                  keep=None) -> list[tuple[int, object]]:
    """The ``how_many`` configs of ``sources`` nearest to ``config`` (``keep``: a further test on candidates)."""
    combo = Combo(arch, config.variant, config.dtype, config.ndim)
    seen = {}
    for rs in sources:
        try:
            for c in bounded_configs(rs, combo):
                seen.setdefault(c.name(), c)
        except (KeyError, ValueError):  # a source that cannot solve this combination offers nothing
            continue
    ranked = sorted(((_distance(config, c), n, c) for n, c in seen.items()
                     if n != config.name() and (keep is None or keep(c))))
    return [(d, c) for d, _, c in ranked[:how_many]]


def explain(config, arch: str, rule_set: ConstraintSource | None = None, how_many: int = 3, extra=(), keep=None,
            what: str = "the problem", candidates: Sequence[ConstraintSource] = ()) -> str:
    """The words of :func:`explanation`."""
    return explanation(config, arch, rule_set, how_many, extra, keep, what, candidates).text


def explanation(config, arch: str, rule_set: ConstraintSource | None = None, how_many: int = 3, extra=(), keep=None,
                what: str = "the problem", candidates: Sequence[ConstraintSource] = ()) -> Explanation:
    """``extra``: constraints the config must also meet (a problem's), reported after the others;
    ``keep``: a test the nearest configs must pass too (e.g. running that problem);
    ``candidates``: where to look for nearest configs when no rule set is given."""
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
    sources = [rule_set] if rule_set is not None else list(candidates)
    near = nearest_valid(config, arch, sources, how_many, keep) if how_many > 0 else []
    if near:
        lines.append("Nearest valid configs (axes changed):")
        for d, c in near:
            changed = ", ".join(
                f"{k}={v}" for k, v in c.as_dict().items() if config.as_dict().get(k) != v
            )
            lines.append(f"  {c.name()}  ({d}: {changed})")
    return Explanation(verdict, "\n".join(lines) + "\n")
