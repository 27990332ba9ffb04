"""A workload as minimize's ``Grouped`` arrays: straight from the column engine's verdicts, never per-pair lists.

Listing every problem's kernels by name (coverage records) and scoring them one
pair at a time costs tens of millions of Python objects at 10^5 problems. Here
the distinct problems stay rows of arrays: the column engine's (problems x rule
groups) verdicts, and scores per (problem, score class) -- kernels equal on what
the score reads score alike (``score.score_key``), and measured results score
each measured kernel apart and every other kernel 0. A kernel is then an *atom*
(rule group, score column); problems with equal applicable and good atoms are
one group (``minimize.collapse``). Rows are processed in blocks, and padding
scores are computed a block at a time from the problems' columns when a pass
needs them (never held), so what is held grows with the distinct problems (their
columns and verdict classes), not with them times the score columns, nor with
the pairs; a workload file's problems stay its table's rows (no ``Problem`` each).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import CksolveError
from ..rulesets import RuleSet
from .coverage import Decisions, Workspace
from .problem_table import ProblemTable
from ..progress import phase
from .minimize import Grouped, collapse
from .perf import measured_scores
from .problem import Problem
from .score import analytic_scores, matrix_columns, score_key

__all__ = ["GroupedWorkload"]

#: Distinct problems per block of the (problems x atoms) arrays: bounds the temporaries.
BLOCK = 16384
#: Scores above this are scaled to <= 1 (sums of them could overflow; only their ratios matter).
SCALE_ABOVE = 1e12


class _Part:
    """One (direction, ndim, dtype) of the distinct problems: verdicts per rule group, scores per column."""

    def __init__(self, ids: np.ndarray, column: int, verdicts: list, scores: list, atoms: list):
        self.ids, self.column = ids, column        # distinct problems (class order), dtype position
        self.verdicts, self.scores = verdicts, scores  # per pool: ``_Verdicts``, ``_Stored`` or ``_Padding``
        self.atoms = atoms                         # (pool, group, score column, kernel names)

    def n_blocks(self) -> int:
        return -(-len(self.ids) // BLOCK)

    def blocks(self, scale: float):
        """(rows, applicable, scores) per block of rows, over the part's atoms (in atom order: by pool)."""
        pools = range(len(self.verdicts))
        at = [[(g, c) for q, g, c, _ in self.atoms if q == p] for p in pools]
        groups = [np.array([g for g, _ in a], dtype=np.intp) for a in at]
        cols = [np.array([c for _, c in a], dtype=np.intp) for a in at]
        for lo in range(0, len(self.ids), BLOCK):
            rows = slice(lo, lo + BLOCK)
            n = min(BLOCK, len(self.ids) - lo)
            app = np.hstack([np.zeros((n, 0), bool)] + [self.verdicts[p].rows(rows)[:, groups[p]] for p in pools])
            sc = np.hstack([np.zeros((n, 0))] + [self.scores[p].block(rows)[:, cols[p]] for p in pools])
            yield rows, app, (sc / scale if scale != 1.0 else sc)


class _Distinct(Sequence):
    """Distinct problems ``ids`` as a sequence of ``Problem``, each made when read (a million of them held at
    once would be a gigabyte)."""

    def __init__(self, problem_at, ids: np.ndarray):
        self.problem_at, self.ids = problem_at, ids

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self.problem_at(int(self.ids[i]))


class _Verdicts:
    """A pool's (problems, rule groups) verdicts, held as each problem's verdict class (``columns.decide_groups``)
    and the classes' rows; a problem decided alone (past exact int64) has its own row."""

    def __init__(self, classes: np.ndarray, class_ok: np.ndarray, alone: dict):
        self.classes, self.class_ok, self.alone = classes, class_ok, alone

    def rows(self, rows: slice) -> np.ndarray:
        """The (rows, groups) bools of a slice of problems."""
        ok = self.class_ok[self.classes[rows]]
        lo, hi, _ = rows.indices(len(self.classes))
        for j, row in self.alone.items():
            if lo <= j < hi:
                ok[j - lo] = row
        return ok

    def runs(self) -> np.ndarray:
        """(groups,) bools: the groups that run some problem."""
        plain = np.ones(len(self.classes), bool)
        plain[list(self.alone)] = False
        out = self.class_ok[np.unique(self.classes[plain])].any(axis=0)
        for row in self.alone.values():
            out = out | row
        return out


class _Stored:
    """Scores held as a (problems, columns) array (measured results)."""

    def __init__(self, scores: np.ndarray):
        self.scores = scores
        self.top = float(scores.max()) if scores.size else 0.0  # the highest score

    def block(self, rows: slice) -> np.ndarray:
        return self.scores[rows]


class _Padding:
    """The padding scores of a class of distinct problems (``Decisions.classes``' ``ids``) against one config
    per score column, computed a block of rows at a time when read, from the problems' columns: never held
    (at 10^6 problems x 70 columns they would be half a gigabyte). Each is a product of four terms in (0, 1]."""

    top = 1.0  # at most

    def __init__(self, reps: list, dec: Decisions, ids: np.ndarray, direction: str, ndim: int, arch: str):
        self.reps, self.dec, self.ids, self.direction, self.ndim, self.arch = reps, dec, ids, direction, ndim, arch

    def block(self, rows: slice) -> np.ndarray:
        """(rows, columns) float64: ``analytic_scores`` of the rows (each value as scoring them all at once)."""
        ids = self.ids[rows]
        columns = matrix_columns(self.dec.matrix[ids], self.dec.big[ids], self.direction, self.ndim)
        return analytic_scores(_Distinct(self.dec.problem_at, ids), self.reps, self.arch, columns)


class GroupedWorkload:
    """``Grouped`` of a workload for one request's ``keep``, and what the plan needs per (row, dtype)."""

    def __init__(self, problems: Sequence[Problem] | ProblemTable, rule_set: RuleSet, arch: str,
                 dtypes: Sequence[str], keep: float, perf: dict | None = None):
        """``problems``: a list, or a workload file's table (``read_table``: no ``Problem`` per row is made)."""
        phase(f"deciding which kernels run {len(problems):,} problems")
        ws = Workspace(rule_set)
        of = Decisions.of_table if isinstance(problems, ProblemTable) else Decisions.of_problems
        dec = of(ws, problems, arch, dtypes)
        self.dtypes = tuple(dtypes)
        self.inverse = np.asarray(dec.inverse, dtype=np.intp)
        D = len(dec.class_of)
        self.distinct = _Distinct(dec.problem_at, np.arange(D))
        self.matrix, self.big, self.ndim = dec.matrix, dec.big, dec.ndim  # the distinct problems as columns
        counts = np.bincount(self.inverse, minlength=D).astype(np.int64)
        self.first_row = np.unique(self.inverse, return_index=True)[1] if len(self.inverse) else np.zeros(0, int)
        self.parts: list[_Part] = []
        for k, ((direction, ndim, ids), answers) in enumerate(zip(dec.classes, dec.parts), 1):
            phase(f"kernels and score columns for {D:,} distinct problems: class", k, len(dec.classes))
            for dtype, answer in answers.items():
                self._add_part(ids, dtype, answer, (dec, direction, ndim), arch, perf)
        phase("grouping problems by the kernels they keep")
        self.scale = self._scale()
        self.grouped, self.groups = self._group(counts, keep)

    def _add_part(self, ids: np.ndarray, dtype: str, answer, shape: tuple, arch: str, perf: dict | None) -> None:
        """The verdicts, scores and atoms of one (direction, ndim, dtype) class of distinct problems; ``shape``
        is (the ``Decisions``, direction, ndim)."""
        dec, direction, ndim = shape
        verdicts, scores, atoms = [], [], []
        for p, (pool, classes, class_ok, _) in enumerate(answer.pools):
            ok = _Verdicts(classes, class_ok, {j: alone[p][2][0] for j, alone in answer.alone.items()})
            configs = [c for c, _ in pool.order]
            if perf is None:
                column, reps = _padding(configs)
                sc = _Padding(reps, dec, ids, direction, ndim, arch)
            else:
                column, measured = _measured(pool.names, _Distinct(dec.problem_at, ids), perf)
                sc = _Stored(measured)
            verdicts.append(ok)
            scores.append(sc)
            found: dict[tuple, list[str]] = {}
            for name, g, c in zip(pool.names, pool.group_of.tolist(), column):
                found.setdefault((g, c), []).append(name)
            runs = ok.runs()  # kernels that run no problem are not candidates
            atoms.extend((p, g, c, names) for (g, c), names in found.items() if runs[g])
        self.parts.append(_Part(ids, self.dtypes.index(dtype), verdicts, scores, atoms))

    def _scale(self) -> float:
        """1, or the top score when it is above ``SCALE_ABOVE`` (scores are then divided by it)."""
        if max((sc.top for part in self.parts for sc in part.scores), default=0.0) <= SCALE_ABOVE:
            return 1.0  # no score at all is that high, let alone an applicable one
        top = 0.0
        for part in self.parts:
            for _, app, sc in part.blocks(1.0):
                if app.size:
                    top = max(top, float(np.where(app, sc, 0.0).max()))
        if not np.isfinite(top):
            raise CksolveError("a score is not a finite number")
        return top if top > SCALE_ABOVE else 1.0

    def _group(self, counts: np.ndarray, keep: float) -> tuple[Grouped, np.ndarray]:
        """The groups of every part side by side (parts share no kernel), and each (distinct, dtype)'s group."""
        groups = np.zeros((len(self.distinct), len(self.dtypes)), dtype=np.intp)
        blocks, names = [], []
        n_groups = 0
        step = _Steps("scoring and grouping problems by the kernels they keep: block", self.parts)
        for part in self.parts:
            names.extend(a[3] for a in part.atoms)
            chunks = ((app, sc, counts[part.ids[rows]], self.first_row[part.ids[rows]] * len(self.dtypes) + part.column)
                      for rows, app, sc in step(part.blocks(self.scale)))
            weights, firsts, app, good, inverse, totals = collapse(chunks, keep)
            groups[part.ids, part.column] = n_groups + inverse
            blocks.append((app, good, weights, firsts, totals))
            n_groups += len(weights)
        kernels = tuple(sorted(n for ns in names for n in ns))
        index = {n: i for i, n in enumerate(kernels)}
        n_atoms = len(names)
        app_all = np.zeros((n_groups, n_atoms), bool)
        good_all = np.zeros((n_groups, n_atoms), bool)
        u = a = 0
        for app, good, _, _, _ in blocks:
            app_all[u:u + len(app), a:a + app.shape[1]] = app
            good_all[u:u + len(app), a:a + app.shape[1]] = good
            u, a = u + len(app), a + app.shape[1]
        cat = lambda i, dt: np.concatenate([b[i] for b in blocks]) if blocks else np.zeros(0, dt)  # noqa: E731
        grouped = Grouped(kernels, tuple(tuple(index[n] for n in ns) for ns in names), app_all, good_all,
                          cat(2, np.int64), cat(3, np.int64), cat(4, np.float64), len(self.inverse) * len(self.dtypes))
        return grouped, groups

    def ratios(self, kept: Sequence[str]) -> tuple[float, ...]:
        """Per covered (row, dtype) whose best score is not 0, in that order: best kept score / best score."""
        kept = set(kept)
        out = np.full((len(self.distinct), len(self.dtypes)), np.nan)
        step = _Steps("score ratios of the kept kernels: block", self.parts)
        for part in self.parts:
            mask = np.array([any(n in kept for n in a[3]) for a in part.atoms], dtype=bool)
            for rows, app, sc in step(part.blocks(self.scale)):
                best = np.where(app, sc, 0.0).max(axis=1, initial=0.0)
                mine = np.where(app & mask, sc, 0.0).max(axis=1, initial=0.0)
                ok = app.any(axis=1) & (best > 0)
                ids = part.ids[rows]
                out[ids[ok], part.column] = mine[ok] / best[ok]
        flat = out[self.inverse].ravel()
        return tuple(flat[~np.isnan(flat)].tolist())


class _Steps:
    """Counts blocks of rows over every part into the progress bar's phase (``label 3 of 62``)."""

    def __init__(self, label: str, parts: list):
        self.label, self.done, self.total = label, 0, sum(p.n_blocks() for p in parts)

    def __call__(self, blocks):
        for block in blocks:
            self.done += 1
            phase(self.label, self.done, self.total)
            yield block


def _padding(configs: list) -> tuple[list[int], list]:
    """(score column of each config, a config per column): one column per ``score_key``."""
    column: dict[tuple, int] = {}
    reps = []
    of = []
    for c in configs:
        k = score_key(c)
        if k not in column:
            column[k] = len(reps)
            reps.append(c)
        of.append(column[k])
    return of, reps


def _measured(names, problems: list, perf: dict) -> tuple[list[int], np.ndarray]:
    """(score column of each kernel, (P, columns) scores by ``perf.measured_scores``): a column per measured
    kernel, and one of zeros for the kernels measured on none of these problems."""
    wanted = set(names.tolist() if hasattr(names, "tolist") else names)
    measured = sorted({n for p in problems for n in perf.get(p, ()) if n in wanted})
    column = {n: j for j, n in enumerate(measured)}
    scores = np.zeros((len(problems), len(measured) + 1))  # the last column: kernels measured on none of them
    if measured:
        for i, p in enumerate(problems):
            scores[i, :-1] = measured_scores(perf.get(p), measured)
    return [column.get(n, len(measured)) for n in names], scores

