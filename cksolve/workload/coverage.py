"""Which kernels of a rule set can run each problem: ``applicable`` and ``coverage``.

The answer is defined per (problem, kernel) pair by the applicability
constraints, but a loop over pairs is far too slow (9,077 kernels x 2,000
problems). The rules read only a few kernel axes, so the kernels of a rule set
are grouped once by those axes (a *pool* per combination) and each rule is
decided once per distinct value of its own scope for each problem; a group is
applicable when every rule holds on it, and all its kernels with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Iterable, Sequence

from ..rulesets import RuleSet
from ..space.combo import Combo, kind_of
from ..solver import bounded_configs
from .problem import DIRECTIONS, Problem
from .rules import applicability_constraints, rule_axes

__all__ = ["CoverageRecord", "Workspace", "applicable", "coverage"]


class _Pool:
    """The kernels of one (rule set, combination), grouped by the axes the rules read."""

    def __init__(self, configs: Sequence, axes: tuple[str, ...]):
        self.axes = axes
        groups: dict[tuple, list[str]] = {}
        key = attrgetter(*axes) if len(axes) > 1 else (lambda c, g=attrgetter(axes[0]): (g(c),))
        index: dict[tuple, int] = {}
        named = sorted(((c.name(), key(c), c) for c in configs), key=lambda t: t[0])
        # (config, group) in name order, so the applicable configs come out sorted in one pass.
        self.order = [(c, index.setdefault(k, len(index))) for _, k, c in named]
        for n, k, _ in named:
            groups.setdefault(k, []).append(n)
        self.groups = groups
        self.size = len(configs)

    def decide(self, constraints) -> tuple[list, dict[str, int]]:
        """(applicable configs in name order, {rule: kernels it rejects}) for one problem's constraints."""
        keys = list(self.groups)  # insertion order = group index of self.order
        ok = [True] * len(keys)
        rejected: dict[str, int] = {}
        for c in constraints:
            at = [self.axes.index(a) for a in c.scope]
            verdicts: dict[tuple, bool] = {}
            for i, k in enumerate(keys):
                values = tuple(k[j] for j in at)
                v = verdicts.get(values)
                if v is None:
                    v = verdicts[values] = c.holds(values)
                if not v:
                    ok[i] = False
                    rejected[c.name] = rejected.get(c.name, 0) + len(self.groups[k])
        return [c for c, g in self.order if ok[g]], rejected


class Workspace:
    """The pools of one rule set, built on first use and kept for the workspace's life.

    One object owns the memo (no module-level cache), so a long-running caller
    decides when to let it go.
    """

    def __init__(self, rule_set: RuleSet):
        self.rule_set = rule_set
        self._pools: dict[Combo, _Pool] = {}

    def pool(self, combo: Combo) -> _Pool:
        pool = self._pools.get(combo)
        if pool is None:
            direction = next(d for d, vs in DIRECTIONS.items() if combo.variant in vs)
            configs = bounded_configs(self.rule_set, combo)
            pool = self._pools[combo] = _Pool(configs, rule_axes(direction, kind_of(combo.variant)))
        return pool

    def decide(self, problem: Problem, arch: str, dtype: str) -> tuple[list[tuple[Combo, object]], dict[str, int], int]:
        """((combo, config) pairs that run the problem, canonical order; rejections per rule; candidates)."""
        facts = problem.facts()
        found: list[tuple[Combo, object]] = []
        rejected: dict[str, int] = {}
        candidates = 0
        for variant in DIRECTIONS[problem.direction]:
            combo = Combo(arch, variant, dtype, problem.ndim)
            pool = self.pool(combo)
            if not pool.size:
                continue
            got, why = pool.decide(applicability_constraints(facts, arch, dtype, kind_of(variant)))
            found.extend((combo, c) for c in got)
            candidates += pool.size
            for k, n in why.items():
                rejected[k] = rejected.get(k, 0) + n
        return found, rejected, candidates

    def clear(self) -> None:
        self._pools.clear()


def applicable(problem: Problem, rule_set: RuleSet, arch: str, dtype: str) -> list[str]:
    """Names of the rule set's kernels, valid for ``arch``, that can run the problem in ``dtype``.

    Canonical order: by variant (forward before forward_depthwise), then name.
    """
    return [c.name() for _, c in Workspace(rule_set).decide(problem, arch, dtype)[0]]


@dataclass(frozen=True)
class CoverageRecord:
    """One (problem, dtype) of a workload: how many kernels can run it, and why the others cannot."""

    row: int  # 0-based, file order
    problem: Problem
    dtype: str
    kernels: tuple[str, ...]
    candidates: int  # kernels of the rule set for the problem's direction, arch, dtype and ndim
    rejected: tuple[tuple[str, int], ...] = field(default=())  # (rule, kernels it rejects), most first

    @property
    def applicable(self) -> int:
        return len(self.kernels)

    @property
    def blocking_rule(self) -> str | None:
        """The rule that rejects most of the candidate kernels (None when nothing is rejected)."""
        return self.rejected[0][0] if self.rejected else None

    def as_dict(self, with_kernels: bool = False) -> dict:
        d = {"row": self.row, **self.problem.as_dict(), "ndim": self.problem.ndim, "dtype": self.dtype,
             "applicable": self.applicable}
        if with_kernels:
            d["kernels"] = sorted(self.kernels)
        return d


def coverage(problems: Iterable[Problem], rule_set: RuleSet, arch: str, dtypes: Sequence[str]) -> list[CoverageRecord]:
    """One record per (problem, dtype), problems in file order, dtypes in the given order."""
    ws = Workspace(rule_set)
    out = []
    for row, problem in enumerate(problems):
        for dtype in dtypes:
            found, rejected, candidates = ws.decide(problem, arch, dtype)
            ranked = tuple(sorted(rejected.items(), key=lambda kv: (-kv[1], kv[0])))
            out.append(CoverageRecord(row, problem, dtype, tuple(c.name() for _, c in found), candidates, ranked))
    return out
