"""How good kernel k is for problem p: the padding score (the ``padding`` scorer of ``cksolve.scoring``).

The padding score does not predict TFLOPS (the performance model, the ``analytic`` scorer, does); it
ranks the obviously better kernel higher, from facts only, as a product of four terms in (0, 1]:

``tile``
    the share of useful work in the padded implicit-GEMM tiles:
    (M N K) / (ceil(M/tm) tm . ceil(N/tn) tn . ceil(K/tk) tk), with M, N, K the
    direction's GEMM sizes (``Facts``). A 256x256 tile on M = 64 keeps a
    quarter of its rows busy.
``occupancy``
    how evenly the output tiles fill the compute units of the arch's default
    device (``arch/devices.toml``: gfx942 is an MI300X, 304 CUs): tiles /
    (waves . CUs), where waves = ceil(tiles / CUs). One tile on a 304-CU part
    leaves 303 idle for the whole kernel.
``reuse``
    how much work a tile does per element it loads: tm tn / (tm + tn) MACs per
    loaded element and k-step, relative to a 128x128 tile's 64 and capped at 1.
    Smaller tiles are bound by loads; without this term the smallest tile would
    always win (it maximises occupancy and never pads much).
``vector``
    the mean over the three vector sizes of v / v_best, where v_best is the
    widest load (up to 16 bytes) that the tensor dimension it reads allows.
    A vector width of 1 where 8 divides C issues eight times the loads.

Depthwise kernels tile the output image directly: ``tile`` is the share of
useful output points in (tile_h x tile_w) tiles and ``occupancy`` counts one
block per (group, batch tile); ``vector`` is 1 (the name fixes no per-problem
choice there), and ``reuse`` is 1.
"""

from __future__ import annotations

from math import prod
from types import SimpleNamespace
from typing import Sequence

import numpy as np

from ..arch.devices import DEFAULT_DEVICE, device
from ..arch.facts import common_facts
from ..errors import CksolveError
from ..space.kinds import DEPTHWISE, GEMM, KINDS
from .columns import facts_of_matrix, matrix_of
from .problem_facts import Facts, ceil_div, minimum, where
from .problem import Problem

__all__ = ["analytic_score", "analytic_scores", "cu_count", "score_terms", "score_key"]

#: The widest global load CK Tile issues per thread, in bytes (dwordx4). A vector
#: wider than this is not faster, so it is the "best" a dimension can ask for.
MAX_LOAD_BYTES = 16
#: MACs per loaded element and k-step of a 128x128 tile (128*128 / (128+128)). Tiles at
#: least this square keep CDNA's matrix cores fed from LDS; smaller ones wait on loads.
FULL_REUSE = 64.0


def cu_count(arch: str) -> int:
    """The compute units of the arch's default device (``arch/devices.toml``)."""
    if arch not in DEFAULT_DEVICE:
        raise CksolveError(f"no compute-unit count for {arch}: it has no default device in devices.toml; the "
                           "padding score needs one (give measured results with {opt:perf})")
    return device(arch).cus


def _padded_share(size, tile):
    return size / (ceil_div(size, tile) * tile)


def _occupancy(blocks, cus: int):
    return blocks / (ceil_div(blocks, cus) * cus)


def _best_vector(dim, dtype):
    """The widest power-of-two vector (at most 16 bytes of the dtype) that divides ``dim``; over a column of
    dimensions and a row of dtypes, the (P, C) matrix of them (the halving once per element size)."""
    sizes = common_facts().element_size
    if not isinstance(dtype, np.ndarray):
        return _halved(dim, MAX_LOAD_BYTES // sizes[dtype])
    by_size = {s: _halved(dim, MAX_LOAD_BYTES // s) for s in {sizes[t] for t in dtype.ravel().tolist()}}
    return np.concatenate([by_size[sizes[t]] for t in dtype.ravel().tolist()], axis=1)


def _halved(dim, v):
    for _ in range(MAX_LOAD_BYTES.bit_length()):
        v = where((v > 1) & (dim % v != 0), v // 2, v)
    return v


def _vector_dims(f: Facts) -> tuple:
    """The tensor dimension each of vector_a, vector_b, vector_c reads (applicability.md C6)."""
    if f.direction == "forward":
        return f.c_per_group, f.c_per_group, f.k_per_group
    return f.k_per_group, f.c_per_group, f.c_per_group


def score_terms(f: Facts, config, arch: str) -> dict:
    """The four terms of the padding score (see the module docstring), written once, elementwise: one
    problem's facts and one config give floats; facts as (P, 1) columns and ``config`` a namespace of (1, C)
    rows of configs of one kind (``_rows``) give (P, C) matrices."""
    return _TERMS[config.kind](f, config, cu_count(arch))


def _depthwise_terms(f: Facts, config, cus: int) -> dict:
    ho, wo = f.output[:2]
    tile = (ho * wo) / (ceil_div(ho, config.tile_h) * config.tile_h * ceil_div(wo, config.tile_w) * config.tile_w)
    return {"tile": tile, "occupancy": _occupancy(f.G * ceil_div(f.N, config.nbatch), cus), "reuse": 1.0,
            "vector": 1.0}


def _gemm_terms(f: Facts, config, cus: int) -> dict:
    tm, tn = config.tile_m, config.tile_n
    tile = _padded_share(f.gemm_m, tm) * _padded_share(f.gemm_n, tn) * _padded_share(f.gemm_k, config.tile_k)
    blocks = ceil_div(f.gemm_m, tm) * ceil_div(f.gemm_n, tn) * ceil_div(f.G, config.groups_to_merge)
    vectors = (config.vector_a, config.vector_b, config.vector_c)
    best = [_best_vector(d, config.dtype) for d in _vector_dims(f)]
    vector = sum(minimum(v, b) / b for v, b in zip(vectors, best)) / 3
    reuse = minimum(1.0, tm * tn / (tm + tn) / FULL_REUSE)
    return {"tile": tile, "occupancy": _occupancy(blocks, cus), "reuse": reuse, "vector": vector}


#: The score terms of each kernel kind.
_TERMS = {GEMM.name: _gemm_terms, DEPTHWISE.name: _depthwise_terms}
#: The config fields ``score_terms`` reads, per kind: configs equal on these score alike on any problem.
SCORE_FIELDS = {GEMM.name: ("dtype", *GEMM.tile, "groups_to_merge", "vector_a", "vector_b", "vector_c"),
                DEPTHWISE.name: ("dtype", *DEPTHWISE.tile, "nbatch")}


def score_key(config) -> tuple:
    """What of ``config`` the padding score depends on (a memo key: a workload's kernels share few)."""
    return (config.kind, *(getattr(config, a) for a in SCORE_FIELDS[config.kind]))


def analytic_score(f: Facts, config, arch: str):
    return prod(score_terms(f, config, arch).values())


#: Sizes below this keep every step of the score exact in float64 over int64 columns (tiles and CU counts are
#: far smaller than the 2**53 margin); a problem with a larger one is scored alone, on Python ints.
_COLUMN_LIMIT = 2 ** 50
#: Problems scored in one pass of ``score_terms``: each of its (problems, configs) float64 temporaries is then a
#: few megabytes, however many problems there are (every value is elementwise, so blocks change no bit).
SCORE_BLOCK = 8192


def analytic_scores(problems: Sequence[Problem], configs: Sequence, arch: str, columns: list | None = None):
    """``analytic_score`` of every (problem, config) pair as a (problems, configs) float64 array.

    minimize scores each distinct problem against every score class of kernels
    (``score_key``): 10^5 problems x 60 classes in one pass of ``score_terms``
    over columns (per (direction, ndim) class of problems and kind of configs),
    each value bit-identical to the pair's (the same steps on values where
    float64 is exact); a problem past that range is scored alone, on Python ints.
    ``columns`` is ``problem_columns(problems)`` when the caller scores the same problems again.
    """
    out = np.zeros((len(problems), len(configs)), dtype=np.float64)
    if not len(problems) or not len(configs):
        return out
    rows = {kind: (at, _rows(kind, [configs[j] for j in at])) for kind in KINDS
            for at in [[j for j, c in enumerate(configs) if c.kind == kind]] if at}
    for ids, facts, exact in (problem_columns(problems) if columns is None else columns):
        for lo in range(0, len(ids), SCORE_BLOCK):  # a block of rows at a time: the temporaries stay small
            block = slice(lo, lo + SCORE_BLOCK)
            some = _facts_rows(facts, block) if len(ids) > SCORE_BLOCK else facts
            for at, row in rows.values():
                out[np.ix_(ids[block], at)] = prod(score_terms(some, row, arch).values())
        for i in ids[~exact].tolist():
            facts_i = problems[i].facts()
            out[i] = [analytic_score(facts_i, c, arch) for c in configs]
    return out


def _facts_rows(facts: Facts, block: slice) -> Facts:
    """The ``block`` of rows of ``facts`` given as columns (each column and per-dimension column cut alike)."""
    cut = lambda v: v[block] if isinstance(v, np.ndarray) else v  # noqa: E731
    return Facts(*(tuple(map(cut, v)) if isinstance(v, tuple) else cut(v) for v in facts))


def _rows(kind: str, configs: Sequence) -> SimpleNamespace:
    """Configs of one kind as (1, C) rows of the fields the score reads."""
    return SimpleNamespace(kind=kind, **{a: np.array([getattr(c, a) for c in configs],
                                                     dtype=object if a == "dtype" else np.int64)[None, :]
                                         for a in SCORE_FIELDS[kind]})


def problem_columns(problems: Sequence[Problem]) -> list[tuple[np.ndarray, Facts, np.ndarray]]:
    """What the score reads of the problems: per (direction, ndim) class, (rows, their ``Facts`` as columns,
    the rows where float64 stays exact -- the others are scored alone)."""
    groups: dict[tuple, list[int]] = {}
    for i, p in enumerate(problems):
        groups.setdefault((p.direction, p.ndim), []).append(i)
    out = []
    for (direction, ndim), ids in groups.items():
        (_, facts, exact), = matrix_columns(*matrix_of([problems[i] for i in ids]), direction, ndim)
        out.append((np.array(ids, dtype=np.intp), facts, exact))
    return out


def matrix_columns(matrix: np.ndarray, big: np.ndarray, direction: str, ndim: int
                   ) -> list[tuple[np.ndarray, Facts, np.ndarray]]:
    """``problem_columns`` of problems of one (direction, ndim) given as ``columns.matrix_of``'s matrix (a
    workload table's rows: no ``Problem`` objects)."""
    facts, exact = facts_of_matrix(matrix, big, direction, ndim)
    fl = lambda x: np.asarray(x, dtype=np.float64)[:, 0]  # noqa: E731
    work = [fl(facts.gemm_m) * fl(facts.gemm_n) * fl(facts.G), fl(facts.gemm_k),
            prod(map(fl, facts.output)) * fl(facts.N) * fl(facts.G)]
    exact &= np.maximum.reduce(work) < _COLUMN_LIMIT
    return [(np.arange(len(matrix), dtype=np.intp), facts, exact)]
