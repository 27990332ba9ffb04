"""The workload commands as functions over files and specs: applicable, coverage, minimize.

What ``cksolve.workload`` offers a caller holding a rule set and a problem
spec or a workload file (the command line among them); the pieces they join
(``coverage``, ``plan``, ``perf``) stay usable alone.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

from ..rulesets import RuleSet, takes_rule_set
from ..selection import Record
from .coverage import CoverageStream, Workspace, coverage
from .hygiene import HygieneOptions, check_rows
from .minimize import Request
from .perf import perf_scores, read_measurement_file
from .minimize_plan import known_kernels, plan
from .problem import Problem, as_problem
from .problem_table import read_problems, read_table
from . import writers

__all__ = ["applicable_records", "coverage_records", "coverage_stream", "write_coverage", "minimize_request",
           "minimize_kernels", "minimize_summary"]


@takes_rule_set
def applicable_records(problem: Problem | str, rule_set: RuleSet, arch: str, dtypes: Sequence[str]) -> list[Record]:
    """The kernels of the rule set valid for ``arch`` that can run the problem (a ``Problem`` or a FIELD=VALUE
    spec)."""
    p = as_problem(problem)
    ws = Workspace(rule_set)
    return [Record(rule_set.name, combo, c) for d in dtypes for combo, c in ws.decide(p, arch, d)[0]]


@takes_rule_set
def coverage_records(problems: Path, rule_set: RuleSet, arch: str, dtypes: Sequence[str]) -> list:
    """``coverage`` of the workload file's problems (``CoverageRecord`` each)."""
    return coverage(read_problems(problems), rule_set, arch, dtypes)


@takes_rule_set
def coverage_stream(problems: Path, rule_set: RuleSet, arch: str, dtypes: Sequence[str], with_kernels: bool = False,
                    with_rejected: bool = True):
    """``coverage`` of the workload file's problems as an iterable of records (``coverage.CoverageStream``):
    every problem is decided before it is returned, so errors come before any output."""
    return CoverageStream(read_table(problems), rule_set, arch, dtypes, with_kernels, with_rejected)


def write_coverage(records, fmt: str, out, with_kernels: bool = False, table=None) -> int:
    """Write coverage records to the text stream ``out`` record by record (``writers.write_coverage``);
    ``table(header, rows)`` renders the table format."""
    return writers.write_coverage(records, fmt, out, with_kernels, table=table)


def minimize_request(keep: float = 0.9, per_problem: int = 1, max_kernels: int | None = None,
                     time_limit: float | None = None) -> Request:
    """What ``minimize`` is asked for; a value out of range is a CksolveError."""
    return Request(keep, per_problem, max_kernels, time_limit)


@takes_rule_set
def minimize_kernels(problems: Path | Sequence[Problem], rule_set: RuleSet, arch: str, dtypes: Sequence[str],
                     request: Request | None = None, *, perf: Path | None = None, scorer=None,
                     hygiene: HygieneOptions | None = None):
    """``minimize``'s plan (``plan.Plan``) for ``request`` (:func:`minimize_request`; default: its
    defaults) over a workload file or its problems already read: padding scores (``score.py``; the ``padding``
    scorer of ``cksolve.scoring``), or the measured ones in ``perf`` (the file read once and checked by
    ``perf.perf_scores``; with ``scorer``, a function of the rows read, called after that check, returning a
    scorer (``cksolve.scoring.Scorer``: its ``score_grid``) such as the measured scorer on the same rows, the
    file's problems x R's kernels are scored by it). ``perf``'s rows are checked first (``hygiene``; default
    ``HygieneOptions(arch)``: invalid rows dropped); the verdict is the plan's ``hygiene``."""
    request = minimize_request() if request is None else request
    if isinstance(problems, (str, Path)):  # without perf, the table's columns: no ``Problem`` per row
        workload = read_table(problems) if perf is None else read_problems(problems)
    else:
        workload = list(problems)
    measured = None
    if perf is not None:
        rows = read_measurement_file(perf)  # read once: the file may be a FIFO
        rows, verdict = check_rows(rows, hygiene or HygieneOptions(arch))
        known = known_kernels(rule_set, workload, arch, dtypes)
        measured = perf_scores(rows, known)  # checked here: kernels of R
        if scorer is not None:
            measured = _scored(measured, scorer(rows), sorted(known), arch, dtypes[0])
    made = plan(workload, rule_set, arch, dtypes, request, measured, str(perf) if perf is not None else "padding")
    return made if perf is None else replace(made, hygiene=verdict)


def _scored(measured: dict, scorer, names: list[str], arch: str, dtype: str) -> dict:
    """{problem: {kernel: score}} of the file's problems by ``scorer`` (a kernel it scores 0 stays out unless the
    file names it, as ``perf_scores`` leaves it)."""
    from ..space.naming import parse_name  # deferred: only a scorer needs the kernels as configs

    configs = [parse_name(n) for n in names]
    problems = list(measured)
    grid = scorer.score_grid(problems, configs, arch, dtype).tolist()  # the face's batch: problems x kernels
    return {problem: {n: s for n, s in zip(names, row) if s > 0 or n in measured[problem]}
            for problem, row in zip(problems, grid)}


def minimize_summary(kernel_plan, problems: Path | str) -> dict:
    """``minimize --summary-format json`` (and the report's minimize section): the plan's numbers, from its
    fields -- what the text summary says, as data."""
    p = kernel_plan
    r, request = p.result, p.request
    ratios = p.ratios
    return {
        "rule_set": p.rule_set, "arch": p.arch, "dtypes": list(p.dtypes), "problems_file": str(problems),
        "request": {"keep": request.keep, "per_problem": request.per_problem, "max_kernels": request.max_kernels,
                    "time_limit": request.time_limit},
        "candidates": p.candidates, "kept": len(p.kept),
        "problems": p.grouped.problems, "covered": r.covered, "good": r.good,
        "scored_by": p.scored_by,
        "ratio": {"worst": min(ratios, default=None), "mean": sum(ratios) / len(ratios) if ratios else None},
        "solver": {"status": r.status, "objective": "kernels" if request.max_kernels is None else "good_problems",
                   "value": r.objective, "bound": r.bound, "gap": r.gap, "seconds": r.seconds},
    }
