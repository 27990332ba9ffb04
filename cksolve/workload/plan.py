"""``minimize`` end to end: coverage of the rule set, scores, the CP-SAT answer, its re-check.

The library face of the command: returns a ``Plan`` (data); the CLI prints it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..errors import CksolveError
from ..space.combo import Combo
from ..space.naming import parse_name
from ..rulesets import RuleSet
from ..rulesets.listed import ListedRuleSet
from .coverage import CoverageRecord, Workspace, coverage
from .minimize import Instance, Request, Result, build_instance, check, solve
from .problem import DIRECTIONS, Problem
from .score import analytic_score, score_key

__all__ = ["Plan", "plan"]


@dataclass(frozen=True)
class Plan:
    rule_set: str
    arch: str
    dtypes: tuple[str, ...]
    request: Request
    result: Result
    instance: Instance
    candidates: int                  # kernels of R that run at least one problem
    ratios: tuple[float, ...]        # per covered problem: best kept score / best score in R
    scored_by: str                   # "analytic" or the perf file

    @property
    def kept(self) -> tuple[str, ...]:
        return self.result.kept

    def configs(self) -> list:
        return [parse_name(n) for n in self.kept]

    def summary(self) -> list[str]:
        r = self.result
        worst = min(self.ratios, default=1.0)
        mean = sum(self.ratios) / len(self.ratios) if self.ratios else 1.0
        objective = "kernels" if self.request.max_kernels is None else "problems with a good kernel"
        return [
            f"rule set {self.rule_set} on {self.arch} ({', '.join(self.dtypes)}): {self.candidates} kernels run "
            f"some problem -> {len(self.kept)} kept",
            f"problems covered: {r.covered} of {len(self.instance.labels)} (those {self.rule_set} covers), "
            f"{r.good} keep a kernel scoring >= {self.request.keep} x the best",
            f"score ratio against {self.rule_set} ({self.scored_by}): worst {worst:.3f}, mean {mean:.3f}",
            f"model: {r.extra.get('problem_classes', 0)} classes of problems (same kernels, same good ones), "
            f"{r.extra.get('kernel_classes', 0)} classes of kernels",
            f"solver: {r.status}, {objective} {r.objective}, bound {r.bound:g}, gap {r.gap:.1%}, {r.seconds:.2f} s; "
            f"{r.status} is for the {'count of kernels' if self.request.max_kernels is None else objective}; "
            f"tie-break (total score, then name): {r.tie_break}"
            f"{'' if r.tie_break == 'OPTIMAL' else ' (best found)'}; time limit {self.request.seconds:g} s",
        ]


def plan(problems: Sequence[Problem], rule_set: RuleSet, arch: str, dtypes: Sequence[str], request: Request,
         perf: dict | None = None, perf_label: str = "measured") -> Plan:
    records = coverage(problems, rule_set, arch, dtypes)
    scores_of = _measured(perf) if perf is not None else _analytic(rule_set, arch)
    inst = build_instance(records, scores_of)
    result = solve(inst, request)
    _recheck(inst, request, result, problems, arch, dtypes)
    ratios = []
    kept = set(result.kept)
    for ks, ss in zip(inst.applicable, inst.scores):
        best = max(ss, default=0.0)
        if ks and best > 0:
            ratios.append(max((s for k, s in zip(ks, ss) if inst.kernels[k] in kept), default=0.0) / best)
    return Plan(rule_set.name, arch, tuple(dtypes), request, result, inst, len(inst.kernels), tuple(ratios),
                perf_label if perf is not None else "analytic")


def _analytic(rule_set: RuleSet, arch: str):
    configs: dict[str, tuple] = {}
    done: dict[tuple, dict[str, float]] = {}  # (problem, dtype) -> scores: repeated rows are scored once

    def scores_of(record: CoverageRecord) -> dict[str, float]:
        out = done.get((record.problem, record.dtype))
        if out is not None:
            return out
        facts = record.problem.facts()
        by_key: dict[tuple, float] = {}  # kernels equal on what the score reads score alike
        out = {}
        for n in record.kernels:
            ck = configs.get(n)
            if ck is None:
                c = parse_name(n)
                ck = configs[n] = (c, score_key(c))
            s = by_key.get(ck[1])
            if s is None:
                s = by_key[ck[1]] = analytic_score(facts, ck[0], arch)
            out[n] = s
        if len(done) < 100_000:
            done[(record.problem, record.dtype)] = out
        return out

    return scores_of


def _measured(perf: dict):
    def scores_of(record: CoverageRecord) -> dict[str, float]:
        return perf.get(record.problem, {})

    return scores_of


def _recheck(inst: Instance, request: Request, result: Result, problems, arch, dtypes) -> None:
    """Every claim again, through ``coverage`` of a rule set that is exactly the kept kernels."""
    kept = ListedRuleSet("kept", [parse_name(n) for n in result.kept])
    records = coverage(problems, kept, arch, dtypes)
    wrong = check(inst, request, result, records)
    if wrong:
        raise CksolveError(f"internal check failed: the kernel set does not hold what the solver claims: {wrong[0]}")


def known_kernels(rule_set: RuleSet, problems, arch: str, dtypes) -> set[str]:
    """Every kernel of the rule set for the arch in the problems' combinations (what a perf file may name)."""
    ws = Workspace(rule_set)
    names: set[str] = set()
    for combo in {Combo(arch, v, d, p.ndim) for p in problems for d in dtypes for v in DIRECTIONS[p.direction]}:
        names.update(c.name() for c, _ in ws.pool(combo).order)
    return names
