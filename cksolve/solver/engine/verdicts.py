"""A filter's verdicts over the product of its free axes' domains: per tuple, or in one vectorised call.

Tabulating a filter (:mod:`.conditioning`) asks it about every tuple of a product of domains;
the test is called on whole-scope tuples without the check's per-tuple memo (millions of tuples
would stay in memory), and a check that is plain arithmetic on integer axes is first tried once
over numpy arrays, its answer spot-checked against the per-tuple test.
"""

from __future__ import annotations

from itertools import product, starmap
from math import prod
from typing import Callable

from ...space.constraints import Check
from .relations import Relation

__all__ = ["verdicts", "vector_verdicts", "raw_test", "VECTOR_MIN"]

#: A check over this many free tuples is first tried as one vectorised call (``vector_verdicts``).
VECTOR_MIN = 4096


def verdicts(rel: Relation, doms: tuple):
    """The filter's verdict on every tuple of ``product(*doms)`` (its free axes), in that order: the test
    is called on whole-scope tuples made by one product, without the check's per-tuple memo (millions of
    tuples would stay in memory)."""
    c = rel.constraint
    if isinstance(c, Check) and prod(map(len, doms)) >= VECTOR_MIN:
        fast = vector_verdicts(rel, doms)
        if fast is not None:
            return fast
    scope_doms = [(v,) if f else doms[v] for f, v in rel.spec]
    order = [v for f, v in rel.spec if not f]
    if order != sorted(order) or len(order) != len(doms):  # an axis twice, or out of order: per tuple
        test = raw_test(rel)
        return map(test, product(*doms))
    if isinstance(c, Check):
        params = c.params
        return map(bool, starmap(c.test, (t + params for t in product(*scope_doms))))
    return map(c.holds, product(*scope_doms))


def vector_verdicts(rel: Relation, doms: tuple):
    """The check's verdicts computed once over numpy arrays, when its test is plain arithmetic on
    integer axes; None when it is not (it branches on an array, looks one up, ...: any exception).

    A check that returns a constant for the fixed values (a rule gated off for this pipeline) costs one
    call instead of one per tuple. The answer is spot-checked against the per-tuple test on a spread of
    tuples and discarded on any difference.
    """
    if not all(type(v) is int for d in doms for v in d):
        return None
    import numpy as np  # deferred: only wide checks over integer axes need it

    c = rel.constraint
    shape = tuple(map(len, doms))
    grids = np.meshgrid(*(np.array(d, dtype=np.int64) for d in doms), indexing="ij", sparse=True)
    args = [v if f else grids[v] for f, v in rel.spec]
    try:
        with np.errstate(all="ignore"):
            got = np.asarray(c.test(*args, *c.params))
        if got.dtype.kind not in "bui":
            return None
        got = got.astype(bool)
        constant = got.ndim == 0 or bool(got.all()) or not got.any()
        verdicts = [bool(got.flat[0])] * prod(shape) if constant else \
            np.broadcast_to(got, shape).ravel().tolist()
    except Exception:  # noqa: BLE001 - any failure means "not vectorisable": evaluate per tuple
        return None
    test = raw_test(rel)
    n = prod(shape)
    for i in range(0, n, max(1, n // 61)):
        if test(_nth(doms, i)) != verdicts[i]:
            return None
    return verdicts


def _nth(doms: tuple, i: int) -> tuple:
    """The ``i``-th tuple of ``product(*doms)``."""
    out = []
    for d in reversed(doms):
        i, j = divmod(i, len(d))
        out.append(d[j])
    return tuple(reversed(out))


def raw_test(rel: Relation) -> Callable[[tuple], bool]:
    """The filter's verdict on free values, without the check's per-tuple memo (millions of tuples would
    stay in memory)."""
    c = rel.constraint
    spec = rel.spec
    if isinstance(c, Check):
        test, params = c.test, c.params
        return lambda free: bool(test(*[v if f else free[v] for f, v in spec], *params))
    return lambda free: c.holds(tuple(v if f else free[v] for f, v in spec))
