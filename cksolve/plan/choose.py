"""The plan: which (problem, kernel) pairs to measure, ``budget`` of them, for a selector trained on them.

The method (deterministic given ``seed``; no clock, no hash order):

1. **Shapes.** Each distinct problem becomes a vector of log2 sizes -- N, C and K per group, G, output
   pixels, filter taps, stride and dilation products -- each scaled by its spread over the workload
   (``shape_vectors``). A farthest-point traversal orders the problems: a seeded random first one,
   then always the problem farthest from every one before it. The order front-loads diversity, so a
   budget smaller than the workload covers its whole range of shapes first.
2. **Rounds.** With earlier rounds (``hints``), problems where the model is *wrong* (its pick among
   the measured labels is not the measured best) come first, then problems with no measurement yet,
   then problems where the model is *uncertain* (its top label and the analytic model's differ),
   each group in traversal order; then the rest. Measured pairs are never planned again.
3. **Quotas.** Slots are dealt in passes over that order: the first pass gives each problem five
   (``FIRST``: a selector learns a problem's best from contrasts within it), later passes one each,
   until the budget is spent or every candidate is planned. A budget under five times the problems
   thus measures the first budget/5 problems of the order with five kernels each. A candidate is a
   *kernel*, measured through one canonical label (``candidates``): labels the tile engine builds as
   one kernel are one measurement, never planned twice.
4. **Slots.** A problem's slots follow ``PATTERN`` (winner, near-winner, coverage, near-winner, ...):
   *winner* / *near-winner* is the best analytic estimate among its unplanned candidates (with a
   model, the model's pick takes the first slot); *kernel coverage* is the label planned least often
   so far over the whole plan, so every kernel gets representative problems and each problem a
   contrast beyond its likely winners (ties: a seeded order of the labels).

Each pick says why (``Pick.why``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import CksolveError

#: a problem's slots, repeated: W the next by analytic rank (winner, then near-winners), C kernel coverage.
#: Replayed on the shared file (``benchmarks/bench_plan.py``, train's trainer, problem-grouped 5-fold CV,
#: 5 seeds, 10% budget; all rows 98.9%): WWC 97.3/97.3/97.8/97.1% at 3/4/5/6 kernels a problem; WCC
#: 95.4/97.6/96.7% at 3/4/5 (3 seeds); WWCC 97.4/97.2% at 4/6; coverage only 93.8-95.2%; winners only
#: 90.2-93.9%: the near-winners are the contrast an efficiency objective learns from.
PATTERN = "WWC"
#: slots each problem gets in the first pass: kernels a planned problem is measured with. An efficiency
#: selector learns a problem's best only from several of its kernels: WWC at 2 kernels (winners only)
#: 80.7%, at 3-6 97.1-97.8% (10% budget; 5% budget: 94.4-94.9%, 20%: 98.3-98.8%)
FIRST = 5

__all__ = ["Pick", "Plan", "Hints", "make_plan", "shape_vectors", "farthest_order"]


@dataclass(frozen=True, slots=True)
class Pick:
    problem: int  # index into the plan's problems (the --problems row of the problem's first copy)
    kernel: str
    label: str
    why: str
    est_ms: float


@dataclass
class Hints:
    """What earlier rounds say, per problem index: the model's predicted score per label, problems whose
    measured best the model misses, and (problem, label key) pairs already measured."""

    predicted: dict = field(default_factory=dict)  # problem -> {label: predicted score}
    wrong: frozenset = frozenset()  # problem indices
    measured: frozenset = frozenset()  # (problem index, label) pairs


@dataclass
class Plan:
    picks: list  # [Pick], problem order then slot order
    problems: int  # distinct problems considered
    budget: int
    seed: int
    skipped_measured: int = 0  # candidate pairs left out as measured before

    def summary(self) -> dict:
        whys: dict = {}
        for p in self.picks:
            k = p.why.split(" (")[0]
            whys[k] = whys.get(k, 0) + 1
        return {"pairs": len(self.picks), "problems": len({p.problem for p in self.picks}),
                "of_problems": self.problems, "budget": self.budget, "seed": self.seed,
                "est_ms": sum(p.est_ms for p in self.picks), "why": dict(sorted(whys.items())),
                "skipped_measured": self.skipped_measured}


def shape_vectors(problems: Sequence) -> np.ndarray:
    """Per problem, its log2 sizes scaled by their spread (a column of one value stays 0)."""
    rows = []
    for p in problems:
        sp = p.spatial()
        rows.append([p.N, p.C // p.G, p.K // p.G, p.G, math.prod(sp["output"]), math.prod(sp["filter"]),
                     math.prod(sp["stride"]), math.prod(sp["dilation"])])
    x = np.log2(np.maximum(np.array(rows, dtype=np.float64), 1.0)) if rows else np.zeros((0, 8))
    spread = x.std(axis=0) if len(x) else np.ones(8)
    return (x - (x.mean(axis=0) if len(x) else 0)) / np.where(spread > 0, spread, 1.0)


def farthest_order(x: np.ndarray, seed: int) -> list[int]:
    """Farthest-point traversal of the rows of ``x`` from a seeded random start (ties: the lowest index)."""
    n = len(x)
    if n == 0:
        return []
    start = int(np.random.default_rng(seed).integers(n))
    order = [start]
    dist = np.sum((x - x[start]) ** 2, axis=1)
    taken = np.zeros(n, dtype=bool)
    taken[start] = True
    for _ in range(n - 1):
        d = np.where(taken, -1.0, dist)
        i = int(np.argmax(d))
        order.append(i)
        taken[i] = True
        np.minimum(dist, np.sum((x - x[i]) ** 2, axis=1), out=dist)
    return order


def make_plan(problems: Sequence, candidates: Sequence[Sequence], budget: int, seed: int = 0,
              hints: Hints | None = None, first: int = FIRST, pattern: str = PATTERN) -> Plan:
    """Choose ``budget`` pairs (fewer when fewer candidates are left). ``problems``: distinct problems;
    ``candidates[i]``: problem i's ``Candidate`` list (one per kernel), best estimate first; ``first``: the
    slots each problem gets in the first pass; ``pattern``: its slots' kinds (W, C)."""
    if budget < 1:
        raise CksolveError(f"{{opt:budget}} {budget} must be at least 1")
    if first < 1 or not pattern or set(pattern) - set("WNC"):
        raise CksolveError(f"plan: first {first} must be at least 1 and pattern {pattern!r} of W, N, C")
    hints = hints or Hints()
    left: list[list] = []
    skipped = 0
    for i, cands in enumerate(candidates):
        keep = [c for c in cands if (i, c.label) not in hints.measured]
        skipped += len(cands) - len(keep)
        left.append(keep)
    order = farthest_order(shape_vectors(problems), seed)
    model_top = {i: max(sorted(pred), key=lambda lb: pred[lb]) for i, pred in hints.predicted.items() if pred}
    analytic_top = {i: c[0].label for i, c in enumerate(candidates) if c}
    uncertain = {i for i, lb in model_top.items() if analytic_top.get(i) != lb}
    seen = {i for i, _ in hints.measured}
    unseen = {i for i in order if i not in seen} if seen else set()
    rank = {i: 0 if i in hints.wrong else 1 if i in unseen else 2 if i in uncertain else 3 for i in order}
    order = sorted((i for i in order if left[i]), key=lambda i: rank[i])  # stable: traversal order kept

    analytic_rank = [{c.label: r for r, c in enumerate(cands, 1)} for cands in candidates]
    tie = {lb: k for k, lb in enumerate(np.random.default_rng(seed + 1).permutation(
        sorted({c.label for cands in candidates for c in cands})).tolist())}
    used: dict = {}  # label -> times planned
    slots = [0] * len(problems)
    picks: dict = {i: [] for i in order}
    total = 0
    first_pass = True
    while total < budget:
        dealt = 0
        for i in order:
            if total >= budget:
                break
            for _ in range(first if first_pass else 1):
                if total >= budget or not left[i]:
                    break
                pick = _slot(i, slots[i], left[i], used, analytic_rank[i], tie, hints.predicted.get(i), pattern)
                picks[i].append(pick)
                used[pick.label] = used.get(pick.label, 0) + 1
                slots[i] += 1
                total += 1
                dealt += 1
        first_pass = False
        if not dealt:
            break
    out = [p for i in sorted(picks) for p in picks[i]]
    return Plan(out, len(problems), budget, seed, skipped)


def _slot(i: int, slot: int, left: list, used: dict, ranks: dict, tie: dict, predicted: dict | None,
          pattern: str = PATTERN) -> Pick:
    """Problem ``i``'s next pick (removed from ``left``, which is in analytic order)."""
    if predicted:
        slot -= 1  # the model's pick takes slot 0; the analytic sequence follows
        if slot < 0:
            best = max(left, key=lambda c: (predicted.get(c.label, float("-inf")), -ranks[c.label]))
            left.remove(best)
            return Pick(i, best.kernel, best.label, "model pick (its best unmeasured label)", best.est_ms)
    if pattern[slot % len(pattern)] in "WN":
        c = left.pop(0)
        kind = "winner" if slot == 0 else "near-winner"
        return Pick(i, c.kernel, c.label, f"{kind} (analytic rank {ranks[c.label]})", c.est_ms)
    c = min(left, key=lambda c: (used.get(c.label, 0), tie[c.label]))
    left.remove(c)
    return Pick(i, c.kernel, c.label, f"kernel coverage (label planned {used.get(c.label, 0)} times before)",
                c.est_ms)
