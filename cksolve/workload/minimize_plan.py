"""``minimize`` end to end: coverage of the rule set, scores, the CP-SAT answer, its re-check.

The library face of the command: returns a ``Plan`` (data); the CLI prints it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from ..errors import CksolveError
from ..space.combo import Combo
from ..space.naming import parse_name
from ..rulesets import RuleSet
from ..rulesets.listed import ListedRuleSet
from .coverage import Decisions, Workspace
from .grouping import GroupedWorkload
from .minimize import Grouped, Request, Result, check, solve
from .problem import DIRECTIONS, Problem
from .problem_table import DIRECTION, ProblemTable
from ..progress import phase

__all__ = ["Plan", "plan"]


@dataclass(frozen=True)
class Plan:
    rule_set: str
    arch: str
    dtypes: tuple[str, ...]
    request: Request
    result: Result
    grouped: Grouped                 # what the model was built from (``grouped.problems``: (row, dtype) pairs)
    candidates: int                  # kernels of R that run at least one problem
    ratios: tuple[float, ...]        # per covered problem: best kept score / best score in R
    scored_by: str                   # "padding" (the padding score) or the perf file
    hygiene: object = None           # the perf file's verdict (``hygiene.Hygiene``), when scored by one

    @property
    def kept(self) -> tuple[str, ...]:
        return self.result.kept

    def configs(self) -> list:
        return [parse_name(n) for n in self.kept]

    def summary(self) -> list[str]:
        r = self.result
        if self.ratios:
            worst, mean = min(self.ratios), sum(self.ratios) / len(self.ratios)
            ratio = f"worst {worst:.3f}, mean {mean:.3f}"
        else:  # no covered problem has a ratio: not a perfect 1.0
            ratio = f"none: {self.rule_set} covers none of the problems, nothing to keep"
        objective = "kernels" if self.request.max_kernels is None else "problems with a good kernel"
        return [
            f"rule set {self.rule_set} on {self.arch} ({', '.join(self.dtypes)}): {self.candidates} kernels run "
            f"some problem -> {len(self.kept)} kept",
            f"problems covered: {r.covered} of {self.grouped.problems} (those {self.rule_set} covers), "
            f"{r.good} keep a kernel scoring >= {self.request.keep} x the best",
            f"score ratio against {self.rule_set} ({self.scored_by}): {ratio}",
            f"model: {r.extra.get('problem_classes', 0)} classes of problems (same kernels, same good ones), "
            f"{r.extra.get('kernel_classes', 0)} classes of kernels",
            f"solver: {r.status}, {objective} {r.objective}, bound {r.bound:g}, gap {r.gap:.1%}, {r.seconds:.2f} s; "
            f"{r.status} is for the {'count of kernels' if self.request.max_kernels is None else objective}; "
            f"tie-break (total score, then name): {r.tie_break}"
            f"{'' if r.tie_break == 'OPTIMAL' else ' (best found)'}; time limit {self.request.seconds:g} s",
        ]


def plan(problems: Sequence[Problem] | ProblemTable, rule_set: RuleSet, arch: str, dtypes: Sequence[str], request: Request,
         perf: dict | None = None, perf_label: str = "measured") -> Plan:
    table = GroupedWorkload(problems, rule_set, arch, dtypes, request.keep, perf)
    phase(f"solving for the fewest kernels ({len(table.grouped.kernels):,} candidates)")
    result = solve(table.grouped, request)
    phase(f"checking the {len(result.kept):,} kept kernels")
    _recheck(table, request, result, arch, dtypes)
    return Plan(rule_set.name, arch, tuple(dtypes), request, result, table.grouped, len(table.grouped.kernels),
                table.ratios(result.kept), perf_label if perf is not None else "padding")


class _Kept(NamedTuple):
    """What ``check`` reads of a coverage record of the kept set: distinct problem, dtype, kernels."""

    row: int
    dtype: str
    kernels: tuple[str, ...]


def _recheck(table: GroupedWorkload, request: Request, result: Result, arch, dtypes) -> None:
    """Every claim again, through the coverage engine (``Decisions``) on a rule set that is exactly the kept
    kernels (on the distinct problems, as the table's columns: a repeated row has the same answer); the
    records are streamed, one distinct problem at a time."""
    kept = ListedRuleSet("kept", [parse_name(n) for n in result.kept])
    D = len(table.distinct)
    dec = Decisions(Workspace(kept), table.matrix, table.big, table.matrix[:, DIRECTION], table.ndim,
                    table.distinct.problem_at, np.arange(D), arch, dtypes)
    records = (_Kept(i, d, dec.kernels(i, d)) for i in _counted("re-checking the kept kernels: problem", D)
               for d in dtypes)
    groups = (table.groups[i, c] for i in range(D) for c in range(len(dtypes)))
    wrong = check(table.grouped, request, result, groups, records, rows=table.first_row)
    if wrong:
        raise CksolveError(f"internal check failed: the kernel set does not hold what the solver claims: {wrong[0]}")


def _counted(label: str, n: int, every: int = 1 << 14):
    """``range(n)``, telling the progress bar's phase ``label i of n`` every ``every`` items."""
    for i in range(n):
        if i % every == 0:
            phase(label, i, n)
        yield i
    phase(label, n, n)


def known_kernels(rule_set: RuleSet, problems, arch: str, dtypes) -> set[str]:
    """Every kernel of the rule set for the arch in the problems' combinations (what a perf file may name)."""
    ws = Workspace(rule_set)
    names: set[str] = set()
    for combo in {Combo(arch, v, d, p.ndim) for p in problems for d in dtypes for v in DIRECTIONS[p.direction]}:
        names.update(c.name() for c, _ in ws.pool(combo).order)
    return names
