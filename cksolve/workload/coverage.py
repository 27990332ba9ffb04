"""Which kernels of a rule set can run each problem: ``applicable`` and ``coverage``.

The answer is defined per (problem, kernel) pair by the applicability
constraints, but a loop over pairs is far too slow (9,077 kernels x 2,000
problems). The rules read only a few kernel axes, so the kernels of a rule set
are grouped once by those axes (a *pool* per combination) and each rule is
decided once per distinct value of its own scope for each problem; a group is
applicable when every rule holds on it, and all its kernels with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Iterable, Iterator, Sequence

import numpy as np

from ..rulesets import RuleSet
from ..space.combo import Combo, kind_of
from ..solver import bounded_configs
from . import columns
from .problem import DIRECTIONS, Problem
from .progress import Progress
from .rules import applicability_constraints, rule_axes

__all__ = ["CoverageRecord", "Workspace", "applicable", "coverage", "iter_coverage"]


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
        # Columns for the column engine: group keys and sizes in group-index order, and per config
        # (name order) its name and group.
        self.keys = list(groups)
        self.sizes = np.array([len(groups[k]) for k in self.keys], dtype=np.int64)
        self.names = np.array([n for n, _, _ in named], dtype=object)
        self.group_of = np.array([g for _, g in self.order], dtype=np.intp)

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
    kernels: tuple[str, ...]  # empty when the records were asked for without kernels (see ``count``)
    candidates: int  # kernels of the rule set for the problem's direction, arch, dtype and ndim
    rejected: tuple[tuple[str, int], ...] = field(default=())  # (rule, kernels it rejects), most first
    count: int = -1  # applicable kernels when ``kernels`` was not listed; -1: len(kernels)
    labels: tuple[tuple[str, str], ...] = ()  # the workload file's extra columns for this row (name, text)

    @property
    def applicable(self) -> int:
        return self.count if self.count >= 0 else len(self.kernels)

    @property
    def blocking_rule(self) -> str | None:
        """The rule that rejects most of the candidate kernels (None when nothing is rejected)."""
        return self.rejected[0][0] if self.rejected else None

    def as_dict(self, with_kernels: bool = False) -> dict:
        d = {"row": self.row, **self.problem.as_dict(), "ndim": self.problem.ndim, "dtype": self.dtype,
             "applicable": self.applicable}
        d.update(self.labels)
        if with_kernels:
            d["kernels"] = sorted(self.kernels)
        return d


def coverage(problems: Iterable[Problem], rule_set: RuleSet, arch: str, dtypes: Sequence[str]) -> list[CoverageRecord]:
    """One record per (problem, dtype), problems in file order, dtypes in the given order."""
    return list(iter_coverage(problems, rule_set, arch, dtypes))


def iter_coverage(problems: Iterable[Problem], rule_set: RuleSet, arch: str, dtypes: Sequence[str],
                  with_kernels: bool = True, workspace: "Workspace | None" = None,
                  with_rejected: bool = True, labels: tuple[tuple[str, ...], Sequence[tuple]] | None = None
                  ) -> Iterator[CoverageRecord]:
    """``coverage``'s records one at a time, decided by the column engine (``columns.py``).

    The distinct problems are decided first, all at once; records are then made
    row by row, so what is held grows with the distinct problems, not with the
    output. Without ``with_kernels`` the records carry the count only; without
    ``with_rejected`` their ``rejected`` is empty (jsonl and csv do not print it).
    ``labels`` (``read_workload``'s label columns and rows) are carried into each record.
    """
    problems = problems if isinstance(problems, Sequence) else list(problems)
    table = Decisions(workspace or Workspace(rule_set), problems, arch, dtypes)
    with Progress("writing records", len(problems)) as bar:
        for row, problem in enumerate(problems):
            i = table.inverse[row]
            for dtype in dtypes:
                record = table.record(row, problem, i, dtype, with_kernels, with_rejected)
                if labels and labels[0]:
                    record = replace(record, labels=tuple(zip(labels[0], labels[1][row])))
                yield record
            bar.advance()


class Decisions:
    """The column engine's answer for the distinct problems of a workload, per dtype.

    Identical problems are collapsed (``inverse`` maps a row to its distinct
    problem); each (direction, ndim) class of distinct problems is decided by
    ``columns.decide_groups`` per dtype and kernel variant. The verdicts are kept
    as packed bits per (problem, kernel group), the counts and rejections as
    integer columns.
    """

    def __init__(self, ws: "Workspace", problems: Sequence[Problem], arch: str, dtypes: Sequence[str]):
        index: dict[Problem, int] = {}
        self.inverse = [index.setdefault(p, len(index)) for p in problems]
        self.distinct = list(index)
        self.ws, self.arch = ws, arch
        classes: dict[tuple[str, int], list[int]] = {}
        for i, p in enumerate(self.distinct):
            classes.setdefault((p.direction, p.ndim), []).append(i)
        #: distinct problem -> (class key, position in its class)
        self.where: list[tuple[tuple[str, int], int]] = [None] * len(self.distinct)  # type: ignore[list-item]
        for key, ids in classes.items():
            for j, i in enumerate(ids):
                self.where[i] = (key, j)
        self.parts: dict[tuple, _ClassAnswer] = {}
        for (direction, ndim), ids in classes.items():
            members = [self.distinct[i] for i in ids]
            facts, exact = columns.facts_of(members, direction, ndim)
            for dtype in dtypes:
                self.parts[(direction, ndim, dtype)] = _ClassAnswer(ws, members, facts, exact, direction, ndim,
                                                                    arch, dtype)

    def record(self, row: int, problem: Problem, i: int, dtype: str, with_kernels: bool,
               with_rejected: bool = True) -> CoverageRecord:
        (direction, ndim), j = self.where[i]
        part = self.parts[(direction, ndim, dtype)]
        rejected = part.ranked(j) if with_rejected else ()
        if with_kernels:
            return CoverageRecord(row, problem, dtype, part.kernels(j), part.candidates, rejected)
        return CoverageRecord(row, problem, dtype, (), part.candidates, rejected, int(part.counts[j]))


class _ClassAnswer:
    """Verdicts of one (direction, ndim, dtype) class of distinct problems over every variant's pool."""

    def __init__(self, ws: "Workspace", members: Sequence[Problem], facts, exact, direction: str, ndim: int,
                 arch: str, dtype: str):
        n = len(members)
        self.candidates = 0
        self.pools: list[tuple[_Pool, np.ndarray]] = []  # (pool, packed ok bits per member)
        self.counts = np.zeros(n, dtype=np.int64)
        self.rejected: dict[str, np.ndarray] = {}
        self.slow: dict[int, tuple[list[str], dict[str, int]]] = {}
        for variant in DIRECTIONS[direction]:
            pool = ws.pool(Combo(arch, variant, dtype, ndim))
            if not pool.size:
                continue
            self.candidates += pool.size
            ok, rejected = columns.decide_groups(pool.keys, pool.axes, pool.sizes, facts, direction,
                                                 kind_of(variant), arch, dtype)
            self.counts += ok.astype(np.int64) @ pool.sizes.astype(np.int64)
            self.pools.append((pool, np.packbits(ok, axis=1)))
            for name, c in rejected.items():
                self.rejected[name] = self.rejected[name] + c if name in self.rejected else c
        for j in np.flatnonzero(~exact):  # sizes past exact column arithmetic: the per-pair evaluator
            found, rejected, _ = ws.decide(members[j], arch, dtype)
            self.slow[int(j)] = ([c.name() for _, c in found], rejected)
            self.counts[j] = len(found)
        self._rule_names = sorted(self.rejected)
        self._matrix = (np.stack([self.rejected[r] for r in self._rule_names], axis=1)
                        if self._rule_names else np.zeros((n, 0), dtype=np.int64))

    def ranked(self, j: int) -> tuple[tuple[str, int], ...]:
        if j in self.slow:
            items = self.slow[j][1].items()
        else:
            row = self._matrix[j]
            items = [(self._rule_names[k], int(row[k])) for k in np.flatnonzero(row)]
        return tuple(sorted(items, key=lambda kv: (-kv[1], kv[0])))

    def kernels(self, j: int) -> tuple[str, ...]:
        if j in self.slow:
            return tuple(self.slow[j][0])
        out: list[str] = []
        for pool, bits in self.pools:
            ok = np.unpackbits(bits[j], count=len(pool.keys)).view(bool)
            out.extend(pool.names[ok[pool.group_of]])
        return tuple(out)
