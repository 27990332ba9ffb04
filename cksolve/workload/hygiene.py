"""Measurement hygiene: which rows of a measurement file can be trusted, and why not.

Each row's label is resolved to the kernel it measured (``labels``), and the row is
*invalid* when

* the label is a kernel label (a full or short name) that resolves to no kernel: the ``default``
  rule set has no kernel for its arch, variant, dtype and ndim (rule ``label``); a label that is
  neither spelling is a malformed file (``ProblemError``, as before);
* the kernel cannot run the row's problem: one of CK Tile's run-time rules
  (``applicable``'s, ``rules.py``, at the active CK version) refuses it -- the rule's
  name, e.g. ``apply.forward.vector_c`` (CK's validation sweep timed such runs anyway);
* the file has a ``non_zero`` column and the run wrote less than ``min_written`` (0.9)
  of the output it should have: non_zero / the elements of the tensor the direction
  writes (forward: N x K x output spatial sizes, K the total over the G groups;
  backward data: N x C x input sizes; backward weight: K x C/G x filter sizes) (rule ``written``).

Invalid rows are dropped unless ``keep_invalid``; either way they are counted by
rule (a row failing two rules counts under both, once in ``rows``).

Probable aliases (without a label map): two labels whose timings agree, over the
problems both measured (at least ``ALIAS_MIN_SHARED``), as closely as two runs of one
kernel do. CK's gfx950 sweep measured that noise at 0.8% (median) and 6% (90th
percentile) of relative difference; a pair is an alias when the median of
max/min - 1 over the shared problems is at most twice the noise median and its 90th
percentile (sorted[int(0.9 (n - 1))]) at most the noise's. Groups are the pairs'
connected components.

API::

    rows = perf.read_measurement_file(path)
    kept, hygiene = check_rows(rows, HygieneOptions("gfx950"))      # a LabelResolver may be passed
    hygiene.as_dict()      # rows, problems, invalid={rows, problems, by_rule}, kept_invalid, labels, aliases
    hygiene.line()         # "excluded 3 invalid rows of 1 problem (written: 3)" or None when clean
    hygiene.kernel(label)  # the full kernel name a label stands for (None: unknown)
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from math import prod
from typing import Iterable

from ..errors import shorten
from ..space.config import AnyConfig
from ..space.constraints import scope_values
from ..space.variants import VARIANTS
from .labels import LabelResolver
from .perf import Measurement
from .problem import Problem, ProblemError
from .rules import applicability_constraints

__all__ = ["HygieneOptions", "Hygiene", "check_rows", "written_share", "probable_aliases", "MIN_WRITTEN",
           "LABEL_RULE", "WRITTEN_RULE", "NOISE_MEDIAN", "NOISE_P90", "ALIAS_MIN_SHARED"]

#: The least share of its output a run must have written (``--min-written``).
MIN_WRITTEN = 0.9
#: Rule names of the checks that are not CK Tile's run-time rules.
LABEL_RULE = "label"
WRITTEN_RULE = "written"
#: The same kernel measured twice differs by this much (relative), median and 90th percentile: CK's gfx950 sweep
#: (shared/ck/measurements/README.md).
NOISE_MEDIAN = 0.008
NOISE_P90 = 0.06
#: Problems two labels must share before their timings can call them aliases.
ALIAS_MIN_SHARED = 5


@dataclass(frozen=True)
class HygieneOptions:
    """How to read measurements: the arch (short labels resolve per arch), a label map, the written share."""

    arch: str
    kernel_map: dict | None = None
    min_written: float = MIN_WRITTEN
    keep_invalid: bool = False

    def resolver(self) -> LabelResolver:
        return LabelResolver(self.arch, self.kernel_map)


@dataclass
class Hygiene:
    """The verdict on a file's rows: counts, invalid rows by rule, labels and their kernels, probable aliases."""

    rows: int = 0
    problems: int = 0
    invalid_rows: int = 0
    invalid_problems: int = 0
    by_rule: dict = field(default_factory=dict)  # rule -> rows, by name
    kept_invalid: bool = False
    labels: dict = field(default_factory=dict)  # label -> Resolved, in first-seen order
    aliases: list = field(default_factory=list)  # [(label, ...), ...]: probable aliases (no label map)
    mapped: bool = False  # a label map was given

    def kernel(self, label: str) -> str | None:
        r = self.labels.get(label)
        return None if r is None else r.kernel

    def invalid(self) -> dict:
        """``{rows, problems, by_rule}``: invalid rows, the problems they are of, rows per rule."""
        return {"rows": self.invalid_rows, "problems": self.invalid_problems, "by_rule": dict(self.by_rule)}

    def line(self) -> str | None:
        """The summary line every command prints on stderr; None when every row is valid."""
        if not self.invalid_rows:
            return None
        rules = ", ".join(f"{k}: {v}" for k, v in self.by_rule.items())
        what = "kept (--keep-invalid)" if self.kept_invalid else "excluded"
        return (f"{what} {self.invalid_rows} invalid row{_s(self.invalid_rows)} of {self.invalid_problems} "
                f"problem{_s(self.invalid_problems)} ({rules})")

    def as_dict(self) -> dict:
        kernels = len({r.kernel for r in self.labels.values() if r.kernel is not None})
        return {"rows": self.rows, "problems": self.problems, "invalid": self.invalid(),
                "kept_invalid": self.kept_invalid, "kernels": kernels,
                "labels": [{"label": r.label, "kernel": r.kernel, "how": r.how, **({"why": r.why} if r.why else {})}
                           for r in self.labels.values()],
                "aliases": [list(g) for g in self.aliases] if not self.mapped else None}


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def check_rows(rows: Iterable[Measurement], options: HygieneOptions,
               resolver: LabelResolver | None = None) -> tuple[list[Measurement], Hygiene]:
    """The rows to use (every row with ``keep_invalid``, else the valid ones) and the verdict on all of them
    (several files: their rows chained). A row whose problem is malformed is a ``ProblemError``."""
    resolver = resolver or options.resolver()
    h = Hygiene(kept_invalid=options.keep_invalid, mapped=bool(options.kernel_map))
    rules: Counter = Counter()
    problems, bad_problems = set(), set()
    kept, valid = [], []
    for m in rows:
        h.rows += 1
        r = h.labels.get(m.kernel)
        if r is None:
            r = h.labels[m.kernel] = resolver.resolve(m.kernel)
            if r.how == "unknown" and not r.spelled:  # not a kernel label at all: a malformed file
                raise ProblemError(f"{m.where}: unknown kernel {shorten(m.kernel, 120)} ({r.why})")
        failed = _failed(m, r.config, options.arch, options.min_written)
        key = (m.values, m.direction)
        problems.add(key)
        if failed:
            h.invalid_rows += 1
            bad_problems.add(key)
            rules.update(failed)
            if options.keep_invalid:
                kept.append(m)
            continue
        kept.append(m)
        valid.append(m)
    h.problems, h.invalid_problems = len(problems), len(bad_problems)
    h.by_rule = dict(sorted(rules.items()))
    if not h.mapped:
        h.aliases = probable_aliases(valid)
    return kept, h


def _failed(m: Measurement, config: AnyConfig | None, arch: str, min_written: float) -> tuple[str, ...]:
    if config is None:
        return (LABEL_RULE,)
    problem = m.problem(VARIANTS[config.variant].direction)
    failed = list(_refused(problem, config, arch))
    if m.non_zero is not None and written_share(problem, m.non_zero) < min_written:
        failed.append(WRITTEN_RULE)
    return tuple(failed)


def _refused(problem: Problem, config: AnyConfig, arch: str) -> tuple[str, ...]:
    """The names of the run-time rules that refuse ``config`` for ``problem`` (none: it runs)."""
    checks = applicability_constraints(problem.facts(), arch, config.dtype, config.kind)
    return tuple(c.name for c in checks if not c.holds(scope_values(config, c.scope)))


def written_share(problem: Problem, non_zero: float) -> float:
    """``non_zero`` over the elements of the tensor the problem's direction writes."""
    s = problem.spatial()
    if problem.direction == "bwd_data":
        total = problem.N * problem.C * prod(s["input"])
    elif problem.direction == "bwd_weight":
        total = problem.K * (problem.C // problem.G) * prod(s["filter"])
    else:
        total = problem.N * problem.K * prod(s["output"])
    return non_zero / total if total else 1.0


def probable_aliases(rows: Iterable[Measurement]) -> list[tuple[str, ...]]:
    """Groups of labels whose timings agree within measurement noise on the problems they share (the module's
    text says how)."""
    best: dict = {}  # label -> {problem key: tflops}
    for m in rows:
        if m.tflops > 0:
            d = best.setdefault(m.kernel, {})
            key = (m.values, m.direction)
            d[key] = max(d.get(key, 0.0), m.tflops)
    labels = sorted(best)
    groups: list[set] = []  # the agreeing pairs joined
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if _agree(best[a], best[b]):
                joined = [g for g in groups if a in g or b in g]
                groups = [g for g in groups if g not in joined] + [set().union({a, b}, *joined)]
    return sorted(tuple(sorted(g)) for g in groups)


def _agree(a: dict, b: dict) -> bool:
    shared = a.keys() & b.keys()
    if len(shared) < ALIAS_MIN_SHARED:
        return False
    diffs = sorted(max(a[k], b[k]) / min(a[k], b[k]) - 1.0 for k in shared)
    return (statistics.median(diffs) <= 2 * NOISE_MEDIAN
            and diffs[int(0.9 * (len(diffs) - 1))] <= NOISE_P90)
