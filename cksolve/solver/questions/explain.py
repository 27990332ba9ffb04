"""``explain``: every violated constraint, and the nearest valid configs, as a record and in words.

"Nearest" is the number of axes that differ. A source of at most
``CONFIG_LIMIT`` configs is listed and ranked; a larger one (a rule-set file
that leaves axes free, the whole space) is searched by the model instead
(``neighbors``: candidates at distance 1, 2, ... up to ``NEAREST_RADIUS``,
tested against its constraints), so no space is too large to explain in.
Candidates are the kernels CK
would actually build for the combination: the given rule set, or else the
``candidates`` the caller passes (``cksolve.rulesets.candidate_rule_sets``:
``default`` and ``full``, the kernels CK builds; subsets add nothing, and ``tests``
and ``profiler`` need external files). A config that differs in one
axis from a real kernel is usually a typo or a rule the user did not know.

The record (:class:`Explanation`) is what the library returns and what
``explain --format json`` prints (``as_dict``); the words (``text``) are
rendered from its fields only, so the two cannot say different things.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...space.axes import value_text
from ...space.combo import Combo, ConstraintSource
from ..listing.combos import CONFIG_LIMIT, bounded_configs
from ..engine.counting import SpaceTooLarge
from ..model import build_model
from .evaluate import Verdict, evaluate
from .neighborhood import MAX_RADIUS, Neighbor, neighbors

__all__ = ["Explanation", "Nearest", "explain", "explanation", "nearest_valid", "NEAREST_RADIUS"]

#: How many axes the model-based search for nearest configs changes at most (a source too large to list).
NEAREST_RADIUS = MAX_RADIUS


#: A valid config near the explained one: ``neighbors``' record (name, axes changed, the config, their values
#: in it), one record for both answers.
Nearest = Neighbor


@dataclass(frozen=True)
class Explanation:
    """The verdict on one kernel name for one arch (and a rule set, and a problem), and its nearest valid configs."""

    name: str
    arch: str
    rule_set: str | None  # the rule set membership was asked about
    verdict: Verdict
    problem: str | None  # the problem spec asked about
    nearest: tuple[Nearest, ...]
    searched: str | None = None  # where the nearest configs were looked for (None: not asked)

    @property
    def valid(self) -> bool:
        return self.verdict.valid

    @property
    def member(self) -> bool | None:
        return self.verdict.member

    @property
    def violations(self) -> tuple[tuple[str, str], ...]:
        """(constraint, message) of every arch, domain and rule-set constraint not met, as ``check`` lists them."""
        v = self.verdict
        return tuple((x.constraint, x.message) for x in v.violations + v.rule_violations)

    @property
    def problem_violations(self) -> tuple[tuple[str, str], ...]:
        return tuple((x.constraint, x.message) for x in self.verdict.problem_violations)

    @property
    def ok(self) -> bool:
        """What ``check`` (and ``explain``'s exit code) says: valid, a member if asked, able to run the problem if asked."""
        return self.valid and self.member is not False and not self.verdict.problem_violations

    def as_dict(self) -> dict:
        """``explain --format json``: JSON types throughout (booleans true/false, axis values as in the config)."""
        pairs = lambda vs: [{"constraint": c, "message": m} for c, m in vs]  # noqa: E731
        return {"name": self.name, "arch": self.arch, "ok": self.ok, "valid": self.valid,
                "rule_set": self.rule_set, "member": self.member,
                "violations": pairs(self.violations),
                "problem": None if self.problem is None else {
                    "spec": self.problem, "runs": not self.verdict.problem_violations,
                    "violations": pairs(self.problem_violations)},
                "nearest": [n.as_dict() for n in self.nearest], "searched": self.searched}

    @property
    def text(self) -> str:
        """The words ``explain`` prints."""
        lines = []
        if self.valid and self.member is not False:
            where = f" and is in rule set {self.rule_set}" if self.rule_set is not None else ""
            lines.append(f"{self.name} is valid for {self.arch}{where}.")
        else:
            if self.valid:
                lines.append(f"{self.name} is valid for {self.arch} but not in rule set {self.rule_set}:")
            else:
                lines.append(f"{self.name} is not valid for {self.arch}:")
            lines.extend(f"  - {m} [{c}]" for c, m in self.violations)
        if self.problem is not None:
            if self.problem_violations:
                lines.append(f"It cannot run problem {self.problem}:")
                lines.extend(f"  - {m} [{c}]" for c, m in self.problem_violations)
            else:
                lines.append(f"It can run problem {self.problem}.")
        if not self.nearest and self.searched is not None and not self.ok:
            # an empty list would read as "nothing is near", when there is nothing at all
            lines.append(f"Nearest valid configs: none in {self.searched}.")
        if self.nearest:
            lines.append("Nearest valid configs (axes changed):")
            for n in self.nearest:
                changed = ", ".join(f"{k}={value_text(v)}" for k, v in n.changed)
                lines.append(f"  {n.name}  ({n.distance}: {changed})")
        return "\n".join(lines) + "\n"


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
            configs = bounded_configs(rs, combo, CONFIG_LIMIT)
        except (KeyError, ValueError):  # a source that cannot solve this combination offers nothing
            continue
        except SpaceTooLarge:  # too many to list: by the model, every valid config up to where enough are found
            for n in neighbors(build_model(combo, rs), config, NEAREST_RADIUS, enough=how_many, keep=keep):
                seen.setdefault(n.name, n.config)
            continue
        for c in configs:
            seen.setdefault(c.name(), c)
    ranked = sorted(((_distance(config, c), n, c) for n, c in seen.items()
                     if n != config.name() and (keep is None or keep(c))))
    return [(d, c) for d, _, c in ranked[:how_many]]


def explain(config, arch: str, rule_set: ConstraintSource | None = None, how_many: int = 3, extra=(), keep=None,
            problem: str | None = None, candidates: Sequence[ConstraintSource] = ()) -> str:
    """The words of :func:`explanation`."""
    return explanation(config, arch, rule_set, how_many, extra, keep, problem, candidates).text


def explanation(config, arch: str, rule_set: ConstraintSource | None = None, how_many: int = 3, extra=(), keep=None,
                problem: str | None = None, candidates: Sequence[ConstraintSource] = ()) -> Explanation:
    """``extra``: constraints the config must also meet (those of ``problem``, a spec), reported after the others;
    ``keep``: a test the nearest configs must pass too (e.g. running that problem);
    ``candidates``: where to look for nearest configs when no rule set is given."""
    verdict = evaluate(config, arch, rule_set, extra)
    sources = [rule_set] if rule_set is not None else list(candidates)
    near = nearest_valid(config, arch, sources, how_many, keep) if how_many > 0 else []
    searched = None
    if how_many > 0 and sources:
        combo = Combo(arch, config.variant, config.dtype, config.ndim)
        within = " or ".join(s.name for s in sources)
        searched = f"{within} for {combo.key}" + (" that can run the problem" if keep is not None else "")
    mine = config.as_dict()
    nearest = tuple(Neighbor(c.name(), d, c, tuple((k, v) for k, v in c.as_dict().items() if mine.get(k) != v))
                    for d, c in near)
    return Explanation(config.name(), arch, None if rule_set is None else rule_set.name, verdict,
                       problem, nearest, searched)
