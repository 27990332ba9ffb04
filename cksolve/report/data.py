"""What a report shows, gathered from the faces: kernels per arch/variant/pipeline, the audit's lossy
combinations and their blocking rules, coverage per (problem group, arch), the minimize plan.

Everything here is data in a fixed order (canonical archs, variants, pipelines as the space lists
them), so a report of the same inputs is the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .. import audit, query, workload
from ..progress import phase

__all__ = ["ReportData", "CoverageCell", "gather"]


@dataclass(frozen=True)
class CoverageCell:
    covered: int
    total: int


@dataclass(frozen=True)
class ReportData:
    rule_set: str
    description: str
    selection: query.Selection
    by_variant: dict  # (arch, variant) -> kernels
    by_pipeline: dict  # (arch, pipeline) -> kernels (depthwise kernels: "depthwise")
    pipelines: tuple[str, ...]
    lossy: tuple  # audit.ComboFinding of combinations that lose everything (or >= 90%)
    findings: dict  # audit's counts per category
    problems: str | None = None
    groups: tuple[str, ...] = ()  # problem groups: "direction Nd dtype"
    coverage: dict | None = None  # (group, arch) -> CoverageCell
    uncovered: dict | None = None  # (group, arch) -> {blocking rule: problems}
    minimize_arch: str | None = None
    plan: object = None  # workload's plan
    minimize: dict | None = None  # workload.minimize_summary of the plan
    ck: str = ""  # the CK version the rules were answered at

    @property
    def total(self) -> int:
        return sum(self.by_variant.values())


def pipeline_of(config) -> str:
    return getattr(config, "pipeline", "depthwise")


def gather(rule_set: str, selection: query.Selection, builder_configs: str | None = None, strict: bool = False,
           problems: str | Path | None = None, minimize_arch: str | None = None, keep: float = 0.9) -> ReportData:
    """Everything a report shows; ``problems`` adds the coverage heat map, ``minimize_arch`` (with
    ``problems``) the minimum kernel set for that arch."""
    if minimize_arch is not None and problems is None:
        raise query.CksolveError("a minimize section needs {option}", option="problems")
    request = workload.minimize_request(keep=keep) if minimize_arch is not None else None  # checked first
    rs = query.load_rule_set(rule_set, builder_configs, strict)
    # the progress bar's phases: the section gathered, n of N, and within it the audit's and minimize's own
    sections = 2 + (problems is not None) + (minimize_arch is not None)
    phase("counting the kernels: section", 1, sections)
    by_variant = {(a, v): 0 for a in selection.archs for v in selection.variants}
    by_pipeline: dict[tuple[str, str], int] = {}
    seen: dict[str, None] = {}
    for r in query.enumerate_records(rs, selection, why="too many for a report, which shows every kernel"):
        by_variant[r.combo.arch, r.combo.variant] += 1
        p = pipeline_of(r.config)
        seen.setdefault(p)
        by_pipeline[r.combo.arch, p] = by_pipeline.get((r.combo.arch, p), 0) + 1
    report = audit.audit(rs, selection.combos(), f"section 2 of {sections}")  # the rule set loaded above, strict or not: not a second load
    data = ReportData(rs.name, rs.description, selection, by_variant, by_pipeline, tuple(sorted(seen)),
                      tuple(c for c in report.combos if c.lossy), report.findings(), ck=query.active_ck().label)
    if problems is None:
        return data
    read = workload.read_problems(Path(problems))  # once, for every arch and the minimize section
    coverage, uncovered, groups = _coverage(read, rs, selection.archs, selection.dtypes, f"section 3 of {sections}")
    plan = summary = None
    if minimize_arch is not None:
        phase(f"minimizing for {minimize_arch}: section", 4, sections)
        plan = workload.minimize_kernels(read, rs, minimize_arch, selection.dtypes, request)
        summary = workload.minimize_summary(plan, problems)
    return ReportData(**{**data.__dict__, "problems": str(problems), "groups": groups, "coverage": coverage,
                         "uncovered": uncovered, "minimize_arch": minimize_arch, "plan": plan, "minimize": summary})


def _coverage(read: list, rs, archs: Sequence[str], dtypes: Sequence[str], step: str):
    cells: dict[tuple[str, str], list[int]] = {}
    blocked: dict[tuple[str, str], dict[str, int]] = {}
    groups: dict[str, None] = {}
    for i, arch in enumerate(archs, 1):
        phase(f"coverage ({step}) on {arch}: arch", i, len(archs))
        for r in workload.iter_coverage(read, rs, arch, dtypes):
            group = f"{r.problem.direction} {r.problem.ndim}d {r.dtype}"
            groups.setdefault(group)
            cell = cells.setdefault((group, arch), [0, 0])
            cell[0] += r.applicable > 0
            cell[1] += 1
            if not r.applicable:
                why = blocked.setdefault((group, arch), {})
                rule = r.blocking_rule or "no kernel of the rule set"
                why[rule] = why.get(rule, 0) + 1
    return ({k: CoverageCell(*v) for k, v in cells.items()}, blocked, tuple(groups))
