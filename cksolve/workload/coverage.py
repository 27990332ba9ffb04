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
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from ..rulesets import RuleSet, takes_rule_set
from ..space.combo import Combo, kind_of
from ..solver import bounded_configs
from . import columns
from .problem import DIRECTIONS, Problem
from .problem_table import DIRECTION, DIRECTION_NAMES, ProblemTable, ndims, problem_of
from ..progress import Progress
from .rules import rule_axes

__all__ = ["CoverageRecord", "CoverageStream", "NO_KERNELS", "Workspace", "applicable", "blocking", "coverage",
           "iter_coverage"]


#: Problems a coverage stream keeps made for the copies of their rows.
_MADE = 100_000
#: Kernel lists a class answer keeps for reuse (problems of one verdict class share theirs).
_LISTED = 1024


class _Pool:
    """The kernels of one (rule set, combination), grouped by the axes the rules read."""

    def __init__(self, configs: Sequence, axes: tuple[str, ...], combo: Combo | None = None):
        self.axes, self.combo = axes, combo
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
        self.memo: dict = {}  # what each rule reads of the pool (``columns.decide_groups``)


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
            pool = self._pools[combo] = _Pool(configs, rule_axes(direction, kind_of(combo.variant)), combo)
        return pool

    def decide(self, problem: Problem, arch: str, dtype: str) -> tuple[list[tuple[Combo, object]], dict[str, int], int]:
        """((combo, config) pairs that run the problem, canonical order; rejections per rule; candidates):
        the workload answer (``Decisions``) for a workload of one problem."""
        answer = Decisions.of_problems(self, [problem], arch, [dtype]).parts[0][dtype]
        return list(answer.found(0)), dict(answer.ranked(0)), answer.candidates

    def clear(self) -> None:
        self._pools.clear()


@takes_rule_set
def applicable(problem: Problem, rule_set: RuleSet, arch: str, dtype: str) -> list[str]:
    """Names of the rule set's kernels, valid for ``arch``, that can run the problem in ``dtype``.

    Canonical order: by variant (forward before forward_depthwise), then name.
    """
    return [c.name() for _, c in Workspace(rule_set).decide(problem, arch, dtype)[0]]


#: What an uncovered problem is blocked by when no kernel of the rule set has its combination.
NO_KERNELS = "no kernels for this combination"


def blocking(rejected: tuple[tuple[str, int], ...]) -> str:
    """The rule that blocks an uncovered problem: the one rejecting the most candidate kernels (ties by name;
    the table's "blocked by", the report's reasons), or ``NO_KERNELS``."""
    return rejected[0][0] if rejected else NO_KERNELS


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
    blocked: str = ""  # uncovered: the rule that rejects most candidates, or NO_KERNELS (see ``blocking``)

    @property
    def applicable(self) -> int:
        return self.count if self.count >= 0 else len(self.kernels)

    @property
    def blocking_rule(self) -> str | None:
        """The rule that rejects most of the candidate kernels (None when nothing is rejected)."""
        return self.rejected[0][0] if self.rejected else None

    def as_dict(self, with_kernels: bool = False, every_key: bool = False) -> dict:
        """The record as written: ``blocked_by`` on an uncovered record (on every record with ``every_key``,
        empty when covered: a CSV row)."""
        d = {"row": self.row, **self.problem.as_dict(), "ndim": self.problem.ndim, "dtype": self.dtype,
             "applicable": self.applicable}
        if every_key or not self.applicable:
            d["blocked_by"] = "" if self.applicable else self.blocked
        d.update(self.labels)
        if with_kernels:
            d["kernels"] = sorted(self.kernels)
        return d


@takes_rule_set
def coverage(problems: Iterable[Problem], rule_set: RuleSet, arch: str, dtypes: Sequence[str]) -> list[CoverageRecord]:
    """One record per (problem, dtype), problems in file order, dtypes in the given order."""
    return list(iter_coverage(problems, rule_set, arch, dtypes))


@takes_rule_set
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
    table = Decisions.of_problems(workspace or Workspace(rule_set), problems, arch, dtypes)
    yield from _records(table, problems.__getitem__, len(problems), dtypes, with_kernels, with_rejected, labels)


def _records(table: "Decisions", problem_at, rows: int, dtypes, with_kernels, with_rejected, labels):
    with Progress("writing records", rows) as bar:
        for row in range(rows):
            i = int(table.inverse[row])
            problem = problem_at(row)
            for dtype in dtypes:
                record = table.record(row, problem, i, dtype, with_kernels, with_rejected)
                if labels and labels[0]:
                    record = replace(record, labels=tuple(zip(labels[0], labels[1][row])))
                yield record
            bar.advance()


class CoverageStream:
    """The coverage of a workload table, decided when made (errors come before any output); iterating gives
    ``iter_coverage``'s records, and the writers read its columns directly (``writers.write_coverage``)."""

    def __init__(self, table: ProblemTable, rule_set: RuleSet, arch: str, dtypes: Sequence[str],
                 with_kernels: bool = False, with_rejected: bool = True, workspace: "Workspace | None" = None):
        self.table, self.dtypes = table, tuple(dtypes)
        self.with_kernels, self.with_rejected = with_kernels, with_rejected
        self.decisions = Decisions.of_table(workspace or Workspace(rule_set), table, arch, dtypes)

    def __iter__(self) -> Iterator[CoverageRecord]:
        t, inverse = self.table, self.decisions.inverse
        made: dict[int, Problem] = {}  # copies of a row share its Problem (up to _MADE of them are kept)

        def problem_at(row: int) -> Problem:
            i = int(inverse[row])
            p = made.get(i)
            if p is None:
                p = t.problem(row)
                if len(made) < _MADE:
                    made[i] = p
            return p

        return _records(self.decisions, problem_at, len(t), self.dtypes, self.with_kernels, self.with_rejected,
                        (t.label_columns, t.labels))


class Decisions:
    """The column engine's answer for the distinct problems of a workload, per dtype.

    Identical problems are collapsed (``inverse`` maps a row to its distinct
    problem); each (direction, ndim) class of distinct problems is decided by
    ``columns.decide_groups`` per dtype and kernel variant. The verdicts are kept
    as packed bits per (problem, kernel group), the counts and rejections as
    integer columns.
    """

    def __init__(self, ws: "Workspace", matrix: np.ndarray, big: np.ndarray, directions: np.ndarray,
                 ndim: np.ndarray, problem_at: Callable[[int], Problem], inverse: np.ndarray, arch: str,
                 dtypes: Sequence[str]):
        """``matrix``: the distinct problems (``columns.matrix_of``); ``problem_at(i)``: distinct problem ``i``
        as a ``Problem`` (for the per-pair path)."""
        self.inverse, self.ndim, self.problem_at = inverse, ndim, problem_at
        self.matrix, self.big = matrix, big  # the distinct problems as columns (minimize scores them from these)
        self.ws, self.arch = ws, arch
        key = directions * 4 + ndim
        _, first = np.unique(key, return_index=True)
        n = len(matrix)
        self.class_of = np.zeros(n, dtype=np.intp)
        self.position = np.zeros(n, dtype=np.intp)
        self.counts = {d: np.zeros(n, dtype=np.int64) for d in dtypes}
        self.parts: list[dict[str, _ClassAnswer]] = []
        self.classes: list[tuple[str, int, np.ndarray]] = []  # (direction, ndim, distinct problems) per class
        for c, k in enumerate(key[np.sort(first)].tolist()):  # classes in first-seen order
            ids = np.flatnonzero(key == k)
            self.class_of[ids] = c
            self.position[ids] = np.arange(len(ids))
            direction, nd = DIRECTION_NAMES[k // 4], k % 4
            self.classes.append((direction, nd, ids))
            members = (matrix, big) if len(ids) == n else (matrix[ids], big[ids])
            facts, exact = columns.facts_of_matrix(*members, direction, nd)
            at = (lambda j, ids=ids: problem_at(int(ids[j])))
            self.parts.append({})
            for dtype in dtypes:
                part = self.parts[-1][dtype] = _ClassAnswer(ws, at, facts, exact, nd, arch, dtype)
                self.counts[dtype][ids] = part.counts

    @classmethod
    def of_problems(cls, ws: "Workspace", problems: Sequence[Problem], arch: str, dtypes: Sequence[str]
                    ) -> "Decisions":
        index: dict[Problem, int] = {}
        inverse = np.array([index.setdefault(p, len(index)) for p in problems], dtype=np.intp)
        distinct = list(index)
        matrix, big = columns.matrix_of(distinct)
        ndim = np.array([p.ndim for p in distinct], dtype=np.int64)
        return cls(ws, matrix, big, matrix[:, DIRECTION], ndim, distinct.__getitem__, inverse, arch, dtypes)

    @classmethod
    def of_table(cls, ws: "Workspace", table: ProblemTable, arch: str, dtypes: Sequence[str]) -> "Decisions":
        first, inverse = table.distinct()
        every = len(first) == len(table)  # all distinct: first is every row in order, no copy needed
        matrix, big = (table.values, table.big) if every else (table.values[first], table.big[first])
        return cls(ws, matrix, big, matrix[:, DIRECTION], ndims(matrix), lambda i: problem_of(matrix[i]), inverse,
                   arch, dtypes)

    def record(self, row: int, problem: Problem, i: int, dtype: str, with_kernels: bool,
               with_rejected: bool = True) -> CoverageRecord:
        part, j = self.parts[self.class_of[i]][dtype], int(self.position[i])
        rejected = part.ranked(j) if with_rejected else ()
        blocked = part.blocking(j) if not part.counts[j] else ""
        if with_kernels:
            return CoverageRecord(row, problem, dtype, part.kernels(j), part.candidates, rejected, blocked=blocked)
        return CoverageRecord(row, problem, dtype, (), part.candidates, rejected, int(part.counts[j]), blocked=blocked)

    def blocking(self, i: int, dtype: str) -> str:
        """What blocks distinct problem ``i`` in ``dtype`` (``blocking``; meaningful when it is uncovered)."""
        return self.parts[self.class_of[i]][dtype].blocking(int(self.position[i]))

    def kernels(self, i: int, dtype: str) -> tuple[str, ...]:
        """The applicable kernels of distinct problem ``i`` in ``dtype`` (pool order, per variant)."""
        return self.parts[self.class_of[i]][dtype].kernels(int(self.position[i]))

    def found(self, i: int, dtype: str) -> tuple:
        """``Workspace.decide``'s (combo, config) pairs for distinct problem ``i`` in ``dtype``."""
        return self.parts[self.class_of[i]][dtype].found(int(self.position[i]))

    def per_found(self, i: int, dtype: str, memo: dict, make: Callable, keep: int = 4096):
        """``make(found)`` of :meth:`found`'s tuple for ``i``, memoised in ``memo`` by that tuple: the engine's
        tuples repeat (one per verdict class), so a caller derives what it needs once per tuple (``memo``
        holds ``keep`` at most, then starts afresh)."""
        found = self.found(i, dtype)
        got = memo.get(id(found))
        if got is None or got[0] is not found:
            if len(memo) >= keep:
                memo.clear()
            got = memo[id(found)] = (found, make(found))
        return got[1]


class _ClassAnswer:
    """Verdicts of one (direction, ndim, dtype) class of distinct problems over every variant's pool.

    Per pool, each problem has a verdict class (``columns.decide_groups``); the
    applicable groups and the rejections are held per verdict class. A problem
    past exact int64 arithmetic is decided alone, by the same rules on Python ints.
    """

    def __init__(self, ws: "Workspace", problem_at: Callable[[int], Problem], facts, exact, ndim: int, arch: str,
                 dtype: str):
        self.candidates = 0
        #: (pool, verdict class per problem, ok (classes, groups), {rule: (classes,) kernels rejected})
        self.pools: list[tuple[_Pool, np.ndarray, np.ndarray, dict[str, np.ndarray]]] = []
        self.counts = np.zeros(len(exact), dtype=np.int64)
        self.alone: dict[int, list] = {}  # member -> its own pools' answers (a huge problem)
        self._listed: dict[tuple, tuple[str, ...]] = {}
        self._found: dict[tuple, tuple] = {}
        self._blocking: dict[tuple, str] = {}  # per verdict-class key: few
        kinds = [(ws.pool(Combo(arch, v, dtype, ndim)), kind_of(v)) for v in DIRECTIONS[facts.direction]]
        kinds = [(pool, kind) for pool, kind in kinds if pool.size]
        for pool, kind in kinds:
            self.candidates += pool.size
            answer = (pool, *columns.decide_groups(pool.keys, pool.axes, pool.sizes, facts, kind, arch, dtype,
                                                             pool.memo))
            self.counts += (answer[2].astype(np.int64) @ pool.sizes.astype(np.int64))[answer[1]]
            self.pools.append(answer)
        for j in np.flatnonzero(~exact).tolist():  # sizes past exact int64: the same rules on Python ints
            one = problem_at(j).facts()
            self.alone[j] = [(pool, *columns.decide_groups(pool.keys, pool.axes, pool.sizes, one, kind, arch, dtype,
                                                      pool.memo))
                             for pool, kind in kinds]
            self.counts[j] = sum(int(ok[0] @ pool.sizes) for pool, _, ok, _ in self.alone[j])

    def _key(self, j: int) -> tuple:
        """What member ``j``'s answer depends on: its verdict class in each pool (or itself, alone)."""
        return ("alone", j) if j in self.alone else tuple(int(classes[j]) for _, classes, _, _ in self.pools)

    def _answers(self, j: int) -> list[tuple]:
        """[(pool, ok row of groups, {rule: (1,) kernels rejected})] of member ``j``."""
        if j in self.alone:
            return [(pool, ok[0], why, 0) for pool, _, ok, why in self.alone[j]]
        return [(pool, ok[c], why, c) for (pool, _, ok, why), c in zip(self.pools, self._key(j))]

    def ranked(self, j: int) -> tuple[tuple[str, int], ...]:
        items: dict[str, int] = {}
        for _, _, why, c in self._answers(j):
            for name, count in why.items():
                items[name] = items.get(name, 0) + int(count[c])
        return tuple(sorted(((k, v) for k, v in items.items() if v), key=lambda kv: (-kv[1], kv[0])))

    def blocking(self, j: int) -> str:
        key = self._key(j)
        out = self._blocking.get(key)
        if out is None:
            out = self._blocking[key] = blocking(self.ranked(j))
        return out

    def kernels(self, j: int) -> tuple[str, ...]:
        key = self._key(j)
        out = self._listed.get(key)
        if out is None:
            names: list[str] = []
            for pool, ok, _, _ in self._answers(j):
                names.extend(pool.names[ok[pool.group_of]])
            if len(self._listed) >= _LISTED:
                self._listed.clear()
            out = self._listed[key] = tuple(names)
        return out

    def found(self, j: int) -> tuple:
        """The (combo, config) pairs that run member ``j`` (one tuple per verdict class)."""
        key = self._key(j)
        out = self._found.get(key)
        if out is None:
            pairs: list = []
            for pool, ok, _, _ in self._answers(j):
                pairs.extend((pool.combo, pool.order[k][0]) for k in np.flatnonzero(ok[pool.group_of]))
            if len(self._found) >= _LISTED:
                self._found.clear()
            out = self._found[key] = tuple(pairs)
        return out
