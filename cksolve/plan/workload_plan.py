"""``plan`` end to end: a workload file, a rule set, earlier rounds' measurements and model -> a Plan.

What earlier rounds give (``Hints``): the measured pairs (by problem dimensions and label fields, or
by the kernel the tile engine builds for the label: any measured label of a kernel marks the kernel's
candidate measured; rows the hygiene rules call invalid do not count as measured), and with a model
(``--model DIR``, a ``train`` output) its predicted TFLOPS of every candidate and, per problem with
two or more measured labels, whether its pick among them is the measured best. Measured problems
outside the workload are ignored (counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..progress import phase
from ..scoring import get_scorer
from ..space.naming import parse_name
from ..space.variants import VARIANTS
from ..workload import read_problems
from ..workload.hygiene import HygieneOptions, check_rows
from ..workload.labels import LabelResolver
from ..workload.perf import read_measurement_file
from ..rulesets import takes_rule_set
from .candidates import label_key, rule_set_candidates
from .choose import Hints, Plan, make_plan

__all__ = ["Workload", "plan_workload", "earlier_rounds"]


@dataclass
class Workload:
    problems: list  # distinct problems, first-row order
    rows: list  # each one's first --problems row
    candidates: list  # per problem: [Candidate], best estimate first


def read_workload(path, rule_set, arch: str, dtype: str, scorer=None) -> Workload:
    first: dict = {}
    for row, p in enumerate(read_problems(path)):
        first.setdefault(p, row)
    problems = list(first)
    return Workload(problems, list(first.values()), rule_set_candidates(problems, rule_set, arch, dtype, scorer))


def earlier_rounds(w: Workload, arch: str, dtype: str, measurements: Sequence = (), model=None) -> tuple[Hints, dict]:
    """(Hints, counts) from measurement files and a model directory."""
    index = {p: i for i, p in enumerate(w.problems)}
    resolver = LabelResolver(arch)
    keyed = [{label_key(c.label): c.label for c in cands} for cands in w.candidates] if measurements else []
    built = [{k: c.label for c in cands if (k := _built(resolver, c.label)) is not None} for cands in w.candidates
             ] if measurements else []
    measured: set = set()
    scores: dict = {}  # problem index -> {label: measured tflops}
    outside = invalid = 0
    for k, path in enumerate(measurements, 1):
        phase("reading earlier rounds' measurements: file", k, len(measurements))
        kept, hyg = check_rows(read_measurement_file(path), HygieneOptions(arch))
        invalid += hyg.invalid_rows
        for m in kept:
            key = label_key(m.kernel)
            if key is None:
                continue
            i = index.get(m.problem(VARIANTS[key[0]].direction))
            label = None if i is None else keyed[i].get(key) or built[i].get(_built(resolver, m.kernel))
            if label is None:
                outside += 1
                continue
            measured.add((i, label))
            got = scores.setdefault(i, {})
            got[label] = max(got.get(label, 0.0), m.tflops)
    predicted: dict = {}
    wrong: set = set()
    if model is not None:
        scorer = get_scorer("model", path=model)
        scorer.prepare(arch, dtype)
        for i, (p, cands) in enumerate(zip(w.problems, w.candidates)):
            pred = scorer.score([(p, parse_name(c.kernel)) for c in cands], arch, dtype)
            predicted[i] = {c.label: s for c, s in zip(cands, pred)}
            got = scores.get(i, {})
            if len(got) >= 2:
                pick = max(sorted(got), key=lambda lb: predicted[i].get(lb, float("-inf")))
                if got[pick] < max(got.values()):
                    wrong.add(i)
    counts = {"measured_pairs": len(measured), "measured_outside": outside, "invalid_rows": invalid,
              "model_wrong": len(wrong)}
    return Hints(predicted, frozenset(wrong), frozenset(measured)), counts


def _built(resolver, label: str) -> str | None:
    """The kernel the tile engine builds for ``label`` (``workload.labels``), by name; None when none."""
    config = resolver.resolve(label).config
    return config.name() if config is not None else None


@takes_rule_set
def plan_workload(path, rule_set, arch: str, dtype: str, budget: int, seed: int = 0, measurements: Sequence = (),
                  model=None) -> tuple[Plan, Workload, dict]:
    """The plan for the workload file ``path`` (and what earlier rounds said)."""
    phase(f"ranking {rule_set.name}'s kernels for the problems of {Path(path).name}")
    w = read_workload(path, rule_set, arch, dtype)
    hints, counts = earlier_rounds(w, arch, dtype, [Path(m) for m in measurements], model)
    phase(f"choosing {budget:,} pairs among {len(w.problems):,} problems")
    return make_plan(w.problems, w.candidates, budget, seed, hints), w, counts
