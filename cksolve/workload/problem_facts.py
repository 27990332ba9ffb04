"""What the run-time rules read of a problem (``Facts``), derived once, and the elementwise operations the
rules, the facts and the score are written in.

There is one engine. Each rule (``checks.py``), each derived fact (``derive``)
and each score term (``score.score_terms``) is written once, elementwise, and
runs on either of two kinds of value:

* one problem: every field a Python ``int`` (exact at any size) or a tuple of
  them per spatial dimension; a kernel's axis values plain Python values. This
  is the per-pair answer (``Problem.facts()``, the solver's ``Check``s,
  ``explain``): the batch of one.
* a workload: every field a ``(P, 1)`` numpy column (int64 where every
  derived size stays exact, else ``object`` columns of Python ints), the
  kernel axes ``(1, U)`` rows of their distinct values, so a rule answers a
  ``(P, U)`` matrix of verdicts in a few vector operations.

So the rules use ``&``, ``|``, ``==`` and ``%`` (which mean the same on bools,
ints and arrays) and, where Python and numpy spell an operation differently,
the helpers below. Ceilings are integer ceilings (``ceil_div``) everywhere: a
float ``ceil(a / b)`` rounds ``a / b`` first and is wrong once ``a`` passes
2**53, so a huge problem gets the exact answer whichever form decides it.
"""

from __future__ import annotations

import math
from math import prod
from typing import NamedTuple

import numpy as np

__all__ = ["Facts", "all_of", "ceil_div", "derive", "gcd", "isin", "minimum", "not_", "where", "output_sizes"]


class Facts(NamedTuple):
    """The facts the rules and the score read: Python ints (one problem; hashable, it keys check memos) or
    numpy columns (a workload). ``direction`` and ``ndim`` are plain values in both: a workload is decided a
    (direction, ndim) class at a time."""

    direction: str
    ndim: int
    N: object
    G: object
    c_per_group: object
    k_per_group: object
    input: tuple
    filter: tuple
    stride: tuple
    pad: tuple
    dilation: tuple
    output: tuple
    split_k: object
    gemm_m: object
    gemm_n: object
    gemm_k: object
    gemm_batch: object
    gemm_count: object  # backward data: one GEMM per filter phase (CK's tilde GEMMs)

    def useful_flops(self):
        """The useful FLOPs of the implicit GEMMs (padded tiles not counted): a float, or a float column."""
        return 2.0 * self.gemm_m * self.gemm_n * self.gemm_k * self.gemm_batch


def output_sizes(inp: tuple, filt: tuple, stride: tuple, pad: tuple, dilation: tuple) -> tuple:
    """The output's size per spatial dimension (ints, or numpy columns of problems): CK's
    ``(in + 2 pad - dilation (filter - 1) - 1) / stride + 1``, rounded down. The one statement of it."""
    return tuple((i + 2 * p - dl * (f - 1) - 1) // s + 1 for i, f, s, p, dl in zip(inp, filt, stride, pad, dilation))


def derive(direction: str, ndim: int, N, G, C, K, split_k, inp: tuple, filt: tuple, stride: tuple, pad: tuple,
           dilation: tuple) -> Facts:
    """The facts of a problem (or of columns of problems) from CK's fields; spatial ones per dimension.

    C and K are totals over the G groups (CK's files), the rules see them per group.
    """
    out = output_sizes(inp, filt, stride, pad, dilation)
    cg, kg = C // G, K // G
    pf, pdi, pdo = prod(filt), prod(inp), prod(out)
    # Implicit-GEMM sizes per direction (applicability.md F-GEMM, D-GEMM, W-GEMM), for one
    # group and without split-N: the shape a tile has to cover.
    if direction == "forward":
        m, n, k = N * pdo, kg, cg * pf
    elif direction == "bwd_data":
        m, n, k = N * pdi, cg, kg * pf
    else:
        m, n, k = kg, pf * cg, N * pdo
    count = prod(minimum(f, s // gcd(s, d)) for f, s, d in zip(filt, stride, dilation))
    return Facts(direction, ndim, N, G, cg, kg, tuple(inp), tuple(filt), tuple(stride), tuple(pad),
                 tuple(dilation), out, split_k, m, n, k, G, count)


def _array(*xs) -> bool:
    return any(isinstance(x, np.ndarray) for x in xs)


def ceil_div(a, b):
    """The integer ceiling of ``a / b`` (b > 0), exact for ints and integer columns of any size."""
    return -(-a // b)


def minimum(a, b):
    return np.minimum(a, b) if _array(a, b) else min(a, b)


def gcd(a, b):
    if not _array(a, b):
        return math.gcd(a, b)
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object or b.dtype == object:
        return _OBJECT_GCD(a, b)
    if a.dtype.kind == "f":  # float columns of fields below 2**31 (a magnitude check): exact as int64
        return np.gcd(a.astype(np.int64), b.astype(np.int64))
    return np.gcd(a, b)


_OBJECT_GCD = np.frompyfunc(math.gcd, 2, 1)


def where(condition, a, b):
    return np.where(condition, a, b) if _array(condition, a, b) else (a if condition else b)


def not_(x):
    """Logical not of a bool or a bool row (``~`` on a Python bool is -2)."""
    return np.logical_not(x) if _array(x) else not x


def isin(x, values):
    """Whether ``x`` (a value or a row of values) is one of ``values``."""
    if _array(x):
        return np.array([v in values for v in x.ravel().tolist()], dtype=bool).reshape(x.shape)
    return x in values


def all_of(verdicts):
    """The ``&`` of verdicts (per spatial dimension, say)."""
    out = True
    for v in verdicts:
        out = out & v
    return out
