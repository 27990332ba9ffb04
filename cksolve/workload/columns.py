"""Rules over columns: every applicability rule over all problems x all kernel groups at once (numpy).

Deciding one problem at a time in Python costs about 0.7 ms a problem for a rule
set's forward kernels: fine for CK's lists, minutes for a model zoo. Here the
distinct problems of a workload (identical rows collapsed first) become columns
of integers (``Facts``), and each rule of ``applicability.toml`` -- the one
elementwise function of ``checks.py`` that also answers a single pair --
runs over (problems, distinct values of the rule's scope), so a rule costs a
few vector operations whatever the number of problems.

A problem whose derived sizes could leave exact int64 arithmetic (a field at or
above 2**31, a GEMM size at or above 2**53) is decided by the same functions on
Python integers (``object`` columns), so huge values never round.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import checks
from .problem_facts import Facts, derive
from .problem import FIELDS, Problem
from .problem_table import FIELD_LIMIT, distinct_rows, rows_of
from .rules import rules_for

__all__ = ["facts_of", "facts_of_matrix", "matrix_of", "decide_groups"]

#: A derived size at or above this might overflow int64 in a rule's arithmetic (a product with a tile size).
EXACT_LIMIT = 2 ** 53

_SPATIAL = {2: ("h", "w"), 3: ("d", "h", "w")}
_INPUT = {"d": "Di", "h": "Hi", "w": "Wi"}
_FILTER = {"d": "Z", "h": "Y", "w": "X"}


def facts_of(problems: Sequence[Problem], direction: str, ndim: int) -> tuple[Facts, np.ndarray]:
    """(facts of the problems as columns, mask of the problems the int64 columns decide exactly).

    All problems must have ``direction`` and ``ndim``.
    """
    matrix, big = matrix_of(problems)
    return facts_of_matrix(matrix, big, direction, ndim)


def matrix_of(problems: Sequence[Problem]) -> tuple[np.ndarray, np.ndarray]:
    """(problems as a (P, FIELDS) int64 matrix, direction as its code; rows with a field past ``FIELD_LIMIT``).

    Fields are at most 18 digits when read from a file, but a library caller may
    pass any int: such a row is all ones in the matrix but its direction, and is decided on Python ints.
    """
    raw = rows_of(problems)
    big = np.array([max(map(abs, row)) >= FIELD_LIMIT for row in raw], dtype=bool)
    at = FIELDS.index("direction")
    matrix = np.array([[1] * at + [row[at]] + [1] * (len(FIELDS) - at - 1) if b else row
                       for b, row in zip(big.tolist(), raw)], dtype=np.int64)
    return matrix.reshape(len(raw), len(FIELDS)), big


_COLUMN = {f: i for i, f in enumerate(FIELDS)}


def facts_of_matrix(matrix: np.ndarray, big: np.ndarray, direction: str, ndim: int) -> tuple[Facts, np.ndarray]:
    """``facts_of`` for problems given as ``matrix_of``'s matrix (rows in ``big`` are not decided exactly)."""
    cols = np.where(big[:, None], 1, matrix) if big.any() else matrix

    def facts(of):
        col = {n: of[:, i:i + 1] for n, i in _COLUMN.items()}
        per = lambda name: tuple(col[name(d)] for d in _SPATIAL[ndim])  # noqa: E731
        return derive(direction, ndim, col["N"], col["G"], col["C"], col["K"], col["split_k"], per(_INPUT.get),
                      per(_FILTER.get), per("stride_{}".format), per("pad_{}".format), per("dilation_{}".format))

    # The same derivation in float first: a row whose sizes reach EXACT_LIMIT is decided on Python ints.
    approx = facts(cols.astype(np.float64))
    exact = ~big
    for size in (approx.gemm_m, approx.gemm_n, approx.gemm_k, approx.gemm_count):
        exact &= np.abs(size[:, 0]) < EXACT_LIMIT
    if not exact.all():
        cols = np.where(exact[:, None], cols, 1)
    return facts(cols), exact


def _col(values, exact_ints: bool = False) -> np.ndarray:
    """A kernel axis's distinct values as a (1, U) row (Python ints in an ``object`` row for ``exact_ints``)."""
    v = values[0]
    obj = isinstance(v, str) or (exact_ints and isinstance(v, int) and not isinstance(v, bool))
    return np.asarray(values, dtype=object if obj else None).reshape(1, -1)


def decide_groups(group_keys: Sequence[tuple], axes: tuple[str, ...], sizes: np.ndarray, facts: Facts,
                  kind: str, arch: str, dtype: str, memo: dict | None = None
                  ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """(verdict class of each problem: (P,); ok: (classes, groups) bools; {rule name: (classes,) kernels it
    rejects}) for the pool's groups of kernels.

    Each rule is evaluated once per distinct value of its own scope. Problems
    that every rule treats alike (the same verdicts on every scope value) are one
    class, and only the classes -- a few hundred, however many problems -- are
    spread to the groups: a (problems x groups) matrix would be 100 MB for a
    million problems. A rule's rejections count the kernels of the groups it fails.
    """
    direction = facts.direction
    P, n_groups = (len(facts.N), len(group_keys)) if isinstance(facts.N, np.ndarray) else (1, len(group_keys))
    exact_ints = not isinstance(facts.N, np.ndarray)  # one problem's Python ints: rows of Python ints too
    failing = []  # (rule name, verdict (1 or P, U), group -> scope value, kernels per scope value)
    codes = []
    for rule in rules_for(direction, kind):
        key = (rule.key, direction, exact_ints)
        scoped = memo.get(key) if memo is not None else None
        if scoped is None:
            scoped = _scoped(group_keys, axes, sizes, rule.scope, exact_ints)
            if memo is not None:
                memo[key] = scoped
        where, scope, weights = scoped
        if not len(where):
            continue  # no groups
        verdict = np.asarray(getattr(checks, rule.check)(*scope, facts, arch, dtype), dtype=bool)
        verdict = np.broadcast_to(verdict, (verdict.shape[0] if verdict.ndim == 2 else 1, len(weights)))
        if verdict.all():
            continue  # rejects nothing
        failing.append((rule.name(direction), verdict, where, weights))
        if verdict.shape[0] > 1:
            codes.append(_row_codes(verdict))
    if codes:
        first, classes = distinct_rows(np.stack(codes, axis=1))
    else:
        first, classes = np.zeros(min(P, 1), dtype=np.intp), np.zeros(P, dtype=np.intp)
    ok = np.ones((len(first), n_groups), dtype=bool)
    rejected: dict[str, np.ndarray] = {}
    for name, verdict, where, weights in failing:
        v = verdict[first] if verdict.shape[0] > 1 else np.broadcast_to(verdict, (len(first), verdict.shape[1]))
        rejected[name] = ((~v).astype(np.float64) @ weights).astype(np.int64)
        ok &= v[:, where]
    return classes, ok, rejected


def _scoped(group_keys: Sequence[tuple], axes: tuple[str, ...], sizes: np.ndarray, scope_axes: tuple[str, ...],
            exact_ints: bool) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """(scope value of each group, the distinct scope values as (1, U) rows per axis, kernels per scope value):
    what a rule reads of a pool, the same for every problem (``decide_groups``' memo keeps it)."""
    at = [axes.index(a) for a in scope_axes]
    index: dict[tuple, int] = {}
    where = np.array([index.setdefault(tuple(k[j] for j in at), len(index)) for k in group_keys], dtype=np.intp)
    distinct = list(index)
    scope = [_col([v[i] for v in distinct], exact_ints) for i in range(len(at))] if distinct else []
    return where, scope, np.bincount(where, weights=sizes, minlength=len(distinct))


def _row_codes(verdict: np.ndarray) -> np.ndarray:
    """One integer per row that tells rows with different verdicts apart."""
    if verdict.shape[1] > 62:
        return distinct_rows(verdict.astype(np.int64))[1]
    code = np.zeros(verdict.shape[0], dtype=np.int64)
    for u in range(verdict.shape[1]):
        code |= verdict[:, u].astype(np.int64) << u
    return code
