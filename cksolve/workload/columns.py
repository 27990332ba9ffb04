"""The column engine: every applicability rule over all problems x all kernel groups at once (numpy).

``coverage.Workspace.decide`` answers one problem at a time in Python, which is
about 0.7 ms a problem for a rule set's forward kernels: fine for CK's lists,
minutes for a model zoo. Here the distinct problems of a workload (identical
rows collapsed first) become columns of integers, and each rule of
``applicability.toml`` becomes one array expression over (problems, distinct
values of the rule's scope), so a rule costs a few vector operations whatever
the number of problems.

The rules are stated once, in ``applicability.toml``; ``checks.py`` holds the
per-pair test of each and ``COLUMN_CHECKS`` below the same test over columns.
A property test (tests/test_columns.py) holds the two equal on random problems
and kernels. A problem whose derived sizes could leave exact float64/int64
arithmetic (any GEMM size or product at or above 2**53) is decided by the
per-pair evaluator instead, so huge values never round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import checks
from .problem import DIRECTIONS, FIELDS, Problem
from .problem_table import FIELD_LIMIT, distinct_rows, rows_of
from .rules import rules_for

__all__ = ["COLUMN_CHECKS", "Facts", "facts_of", "facts_of_matrix", "matrix_of", "decide_groups"]

#: Above this a derived size might not be exact in float64 (the per-pair tests divide in float).
EXACT_LIMIT = 2 ** 53


@dataclass
class Facts:
    """The facts of ``P`` problems of one direction and ndim, as (P, 1) columns (per-dimension: lists)."""

    ndim: int
    N: np.ndarray
    G: np.ndarray
    c_per_group: np.ndarray
    k_per_group: np.ndarray
    filter: list
    stride: list
    pad: list
    dilation: list
    output: list
    split_k: np.ndarray
    gemm_k: np.ndarray
    gemm_count: np.ndarray

    def __len__(self) -> int:
        return len(self.N)


_SPATIAL = {2: ("h", "w"), 3: ("d", "h", "w")}
_INPUT = {"d": "Di", "h": "Hi", "w": "Wi"}
_FILTER = {"d": "Z", "h": "Y", "w": "X"}


def facts_of(problems: Sequence[Problem], direction: str, ndim: int) -> tuple[Facts, np.ndarray]:
    """(facts of the problems as columns, mask of the problems the columns decide exactly).

    All problems must have ``direction`` and ``ndim``; the derivations are
    ``problem._facts``'s, over columns.
    """
    matrix, big = matrix_of(problems)
    return facts_of_matrix(matrix, big, direction, ndim)


def matrix_of(problems: Sequence[Problem]) -> tuple[np.ndarray, np.ndarray]:
    """(problems as a (P, FIELDS) int64 matrix, direction as its code; rows with a field past ``FIELD_LIMIT``).

    Fields are at most 18 digits when read from a file, but a library caller may
    pass any int: such a row is all ones in the matrix but its direction and goes to the per-pair path.
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
    dims = _SPATIAL[ndim]
    cols = np.where(big[:, None], 1, matrix) if big.any() else matrix
    col = {n: cols[:, i:i + 1] for n, i in _COLUMN.items()}
    inp = [col[_INPUT[d]] for d in dims]
    filt = [col[_FILTER[d]] for d in dims]
    stride = [col[f"stride_{d}"] for d in dims]
    pad = [col[f"pad_{d}"] for d in dims]
    dil = [col[f"dilation_{d}"] for d in dims]
    out = [(i + 2 * p - dl * (f - 1) - 1) // s + 1 for i, f, s, p, dl in zip(inp, filt, stride, pad, dil)]
    cg, kg = col["C"] // col["G"], col["K"] // col["G"]
    # Products in float first: a row whose product reaches EXACT_LIMIT goes to the per-pair path.
    fprod = lambda xs: np.prod(np.hstack([x.astype(np.float64) for x in xs]), axis=1, keepdims=True)  # noqa: E731
    if direction == "forward":
        k_f = cg.astype(np.float64) * fprod(filt)
        gemm_k = cg * _iprod(filt)
    elif direction == "bwd_data":
        k_f = kg.astype(np.float64) * fprod(filt)
        gemm_k = kg * _iprod(filt)
    else:
        k_f = col["N"].astype(np.float64) * fprod(out)
        gemm_k = col["N"] * _iprod(out)
    exact = (~big & (k_f[:, 0] < EXACT_LIMIT) & (fprod(out)[:, 0] * col["N"][:, 0] < EXACT_LIMIT)
             & (fprod(filt)[:, 0] < EXACT_LIMIT))
    gemm_k = np.where(exact[:, None], gemm_k, 1)
    count = np.ones_like(cg)
    for f, s, d in zip(filt, stride, dil):
        count = count * np.minimum(f, s // np.gcd(s, d))
    return Facts(ndim, col["N"], col["G"], cg, kg, filt, stride, pad, dil, out, col["split_k"], gemm_k, count), exact


def _iprod(xs: list) -> np.ndarray:
    out = xs[0]
    for x in xs[1:]:
        out = out * x
    return out


def _all(xs) -> np.ndarray:
    out = None
    for x in xs:
        out = x if out is None else out & x
    return out


def _ceil_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # The per-pair tests compute ceil(a / b) in float; below 2**53 that equals the integer ceiling.
    return -(-a // b)


def _col(values) -> np.ndarray:
    """A kernel axis's distinct values as a (1, U) row."""
    return np.asarray(values, dtype=object if isinstance(values[0], str) else None).reshape(1, -1)


# --- one column function per check of checks.py: (scope rows..., facts, arch, dtype) -> (P, U) bools ---------

def _variant_runs_direction(variant, f, arch, dtype, direction):
    return np.array([v in DIRECTIONS[direction] for v in variant[0]]).reshape(1, -1)


def _ndim_matches(ndim, f, arch, dtype, direction):
    return ndim == f.ndim


def _async_copy_arch(pipeline, f, arch, dtype, direction):
    return np.array([p not in checks.ASYNC_PIPELINES or arch in checks.ASYNC_ARCHS for p in pipeline[0]]).reshape(1, -1)


def _specialization_fits(spec, f, arch, dtype, direction):
    no_pad = _all(p == 0 for p in f.pad)
    one = _all(x == 1 for x in f.filter)
    verdicts = {
        "filter1x1_stride1_pad0": one & _all(s == 1 for s in f.stride) & no_pad,
        "filter1x1_pad0": one & no_pad,
        "filter3x3": (f.c_per_group == 1) & _all(x == 3 for x in f.filter),
    }
    true = np.ones((len(f), 1), dtype=bool)
    return np.hstack([verdicts.get(s, true) for s in spec[0]])


def _split_k_is_one(variant, f, arch, dtype, direction):
    return f.split_k == 1


def _explicit_gemm_needs_1x1(explicit_gemm, spec, f, arch, dtype, direction):
    return np.array([not e or s == "filter1x1_stride1_pad0" for e, s in zip(explicit_gemm[0], spec[0])]).reshape(1, -1)


def _fwd_vector_a(groups_to_merge, vector_a, f, arch, dtype, direction):
    return (groups_to_merge != 1) | (f.c_per_group % vector_a == 0)


def _fwd_merge_groups(groups_to_merge, f, arch, dtype, direction):
    return (groups_to_merge == 1) | ((f.c_per_group == 1) & (f.G % groups_to_merge == 0))


def _c_multiple_of(vector, f, arch, dtype, direction):
    return f.c_per_group % vector == 0


def _k_multiple_of(vector, f, arch, dtype, direction):
    return f.k_per_group % vector == 0


def _fwd_vector_c(groups_to_merge, vector_c, f, arch, dtype, direction):
    return (f.k_per_group % vector_c == 0) | ((groups_to_merge > 1) & (f.G % groups_to_merge == 0)
                                              & (f.G % vector_c == 0))


def _depthwise_fits(filt, str_h, str_w, pad_h, pad_w, nbatch, f, arch, dtype, direction):
    if f.ndim != 2:
        return np.zeros((len(f), filt.shape[1]), dtype=bool)
    return ((f.c_per_group == 1) & (f.k_per_group == 1) & (f.filter[0] == filt) & (f.filter[1] == filt)
            & (f.stride[0] == str_h) & (f.stride[1] == str_w) & (f.dilation[0] == 1) & (f.dilation[1] == 1)
            & (f.pad[0] == pad_h) & (f.pad[1] == pad_w) & (f.N % nbatch == 0))


def _depthwise_output_fits_tile(tile_h, tile_w, sub_h, sub_w, f, arch, dtype, direction):
    one = np.array([checks.depthwise_tile_per_wave(*v) == 1
                    for v in zip(tile_h[0], tile_w[0], sub_h[0], sub_w[0])]).reshape(1, -1)
    if f.ndim != 2:
        return np.broadcast_to(one, (len(f), one.shape[1]))
    return one | ((f.output[0] <= tile_h) & (f.output[1] <= tile_w))


def _bwd_data_split_k(vector_c, f, arch, dtype, direction):
    return (f.split_k >= 1) & ((f.split_k == 1) | (vector_c % 2 == 0) | (dtype not in checks.HALF_TYPES))


def _bwd_data_gemm_count(variant, f, arch, dtype, direction):
    return f.gemm_count <= checks.MAX_BWD_DATA_GEMMS


def _no_explicit_gemm(explicit_gemm, f, arch, dtype, direction):
    return np.array([not e for e in explicit_gemm[0]]).reshape(1, -1)


def _streamk_fits(streamk, f, arch, dtype, direction):
    sk = np.array([bool(s) for s in streamk[0]]).reshape(1, -1)
    return ~sk | ((arch in checks.STREAMK_ARCHS) & (f.split_k == 1))


def _split_k_positive(variant, f, arch, dtype, direction):
    return f.split_k >= 1


def _compv6_prefetch(pipeline, tile_k, f, arch, dtype, direction):
    not_v6 = np.array([p != "compv6" for p in pipeline[0]]).reshape(1, -1)
    return not_v6 | (_ceil_div(f.gemm_k, f.split_k * tile_k) >= checks.COMPV6_MIN_K_ITERATIONS)


def _bwd_weight_split_k_limit(two_stage, f, arch, dtype, direction):
    ts = np.array([bool(t) for t in two_stage[0]]).reshape(1, -1)
    return ts | (dtype not in checks.HALF_TYPES) | (f.split_k <= checks.MAX_HALF_SPLIT_K)


def _bwd_weight_odd_vector_c(vector_c, two_stage, f, arch, dtype, direction):
    ts = np.array([bool(t) for t in two_stage[0]]).reshape(1, -1)
    return ts | (vector_c % 2 == 0) | (dtype not in checks.HALF_TYPES) | (f.split_k == 1)


def _bwd_weight_split_k_warp_tile(streamk, warp_tile_k, f, arch, dtype, direction):
    sk = np.array([bool(s) for s in streamk[0]]).reshape(1, -1)
    return sk | (_ceil_div(f.gemm_k, warp_tile_k) >= f.split_k)


def _bwd_weight_merge_groups(groups_to_merge, f, arch, dtype, direction):
    return (groups_to_merge == 1) | (f.G % groups_to_merge == 0)


#: checks.py name -> its column form (the test suite checks every rule has one).
COLUMN_CHECKS = {name[1:]: fn for name, fn in dict(globals()).items()
                 if name.startswith("_") and callable(fn) and hasattr(checks, name[1:])}


def decide_groups(group_keys: Sequence[tuple], axes: tuple[str, ...], sizes: np.ndarray, facts: Facts,
                  direction: str, kind: str, arch: str, dtype: str
                  ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """(verdict class of each problem: (P,); ok: (classes, groups) bools; {rule name: (classes,) kernels it
    rejects}) for the pool's groups of kernels.

    Each rule is evaluated once per distinct value of its own scope. Problems
    that every rule treats alike (the same verdicts on every scope value) are one
    class, and only the classes -- a few hundred, however many problems -- are
    spread to the groups: a (problems x groups) matrix would be 100 MB for a
    million problems. A rule's rejections count the kernels of the groups it fails.
    """
    P, n_groups = len(facts), len(group_keys)
    failing = []  # (rule name, verdict (1 or P, U), group -> scope value, kernels per scope value)
    codes = []
    for rule in rules_for(direction, kind):
        at = [axes.index(a) for a in rule.scope]
        index: dict[tuple, int] = {}
        where = np.array([index.setdefault(tuple(k[j] for j in at), len(index)) for k in group_keys], dtype=np.intp)
        distinct = list(index)
        if not distinct:
            continue
        scope = [_col([v[i] for v in distinct]) for i in range(len(at))]
        verdict = np.asarray(COLUMN_CHECKS[rule.check](*scope, facts, arch, dtype, direction))
        verdict = np.broadcast_to(verdict, (verdict.shape[0] if verdict.ndim == 2 else 1, len(distinct)))
        if verdict.all():
            continue  # rejects nothing
        failing.append((rule.name(direction), verdict, where, np.bincount(where, weights=sizes,
                                                                           minlength=len(distinct))))
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


def _row_codes(verdict: np.ndarray) -> np.ndarray:
    """One integer per row that tells rows with different verdicts apart."""
    if verdict.shape[1] > 62:
        return distinct_rows(verdict.astype(np.int64))[1]
    code = np.zeros(verdict.shape[0], dtype=np.int64)
    for u in range(verdict.shape[1]):
        code |= verdict[:, u].astype(np.int64) << u
    return code
