"""How good kernel k is for problem p: the analytic score, and measured results.

The analytic score does not predict TFLOPS; it ranks the obviously better
kernel higher, from facts only, as a product of four terms in (0, 1]:

``tile``
    the share of useful work in the padded implicit-GEMM tiles:
    (M N K) / (ceil(M/tm) tm . ceil(N/tn) tn . ceil(K/tk) tk), with M, N, K the
    direction's GEMM sizes (``ProblemFacts``). A 256x256 tile on M = 64 keeps a
    quarter of its rows busy.
``occupancy``
    how evenly the output tiles fill the arch's compute units: tiles /
    (waves . CUs), where waves = ceil(tiles / CUs). One tile on a 228-CU part
    leaves 227 idle for the whole kernel.
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

from math import ceil, prod
from operator import attrgetter
from typing import Sequence

from ..arch.facts import arch_facts, common_facts
from ..errors import CksolveError
from .problem import ProblemFacts

__all__ = ["analytic_score", "analytic_scores", "cu_count", "score_terms", "score_key"]

#: The widest global load CK Tile issues per thread, in bytes (dwordx4). A vector
#: wider than this is not faster, so it is the "best" a dimension can ask for.
MAX_LOAD_BYTES = 16
#: MACs per loaded element and k-step of a 128x128 tile (128*128 / (128+128)). Tiles at
#: least this square keep CDNA's matrix cores fed from LDS; smaller ones wait on loads.
FULL_REUSE = 64.0


def cu_count(arch: str) -> int:
    n = arch_facts(arch).cu_count
    if n is None:
        raise CksolveError(f"no compute-unit count for {arch} in facts.toml; the analytic score needs one "
                           "(give measured results with --perf)")
    return n


def _padded_share(size: int, tile: int) -> float:
    return size / (ceil(size / tile) * tile)


def _occupancy(blocks: int, cus: int) -> float:
    waves = ceil(blocks / cus)
    return blocks / (waves * cus)


def _best_vector(dim: int, dtype: str) -> int:
    """The widest power-of-two vector (at most 16 bytes of the dtype) that divides ``dim``."""
    v = MAX_LOAD_BYTES // common_facts().element_size[dtype]
    while v > 1 and dim % v:
        v //= 2
    return v


def _vector_dims(f: ProblemFacts) -> tuple[int, int, int]:
    """The tensor dimension each of vector_a, vector_b, vector_c reads (applicability.md C6)."""
    if f.direction == "forward":
        return f.c_per_group, f.c_per_group, f.k_per_group
    if f.direction == "bwd_data":
        return f.k_per_group, f.c_per_group, f.c_per_group
    return f.k_per_group, f.c_per_group, f.c_per_group


def score_terms(f: ProblemFacts, config, arch: str) -> dict[str, float]:
    """The four terms of the analytic score (see the module docstring)."""
    cus = cu_count(arch)
    if config.kind == "depthwise":
        ho, wo = f.output
        tile = (ho * wo) / (ceil(ho / config.tile_h) * config.tile_h * ceil(wo / config.tile_w) * config.tile_w)
        return {"tile": tile, "occupancy": _occupancy(f.G * ceil(f.N / config.nbatch), cus), "reuse": 1.0,
                "vector": 1.0}
    tile = (_padded_share(f.gemm_m, config.tile_m) * _padded_share(f.gemm_n, config.tile_n)
            * _padded_share(f.gemm_k, config.tile_k))
    blocks = ceil(f.gemm_m / config.tile_m) * ceil(f.gemm_n / config.tile_n) * ceil(f.G / config.groups_to_merge)
    vectors = (config.vector_a, config.vector_b, config.vector_c)
    best = [_best_vector(d, config.dtype) for d in _vector_dims(f)]
    vector = sum(min(v, b) / b for v, b in zip(vectors, best)) / 3
    reuse = min(1.0, config.tile_m * config.tile_n / (config.tile_m + config.tile_n) / FULL_REUSE)
    return {"tile": tile, "occupancy": _occupancy(blocks, cus), "reuse": reuse, "vector": vector}


#: The config fields ``score_terms`` reads, per kind: configs equal on these score alike on any problem.
SCORE_FIELDS = {"gemm": ("dtype", "tile_m", "tile_n", "tile_k", "groups_to_merge", "vector_a", "vector_b", "vector_c"),
                "depthwise": ("dtype", "tile_h", "tile_w", "nbatch")}


def score_key(config) -> tuple:
    """What of ``config`` the analytic score depends on (a memo key: a workload's kernels share few)."""
    return (config.kind, *(getattr(config, a) for a in SCORE_FIELDS[config.kind]))


def analytic_score(f: ProblemFacts, config, arch: str) -> float:
    return prod(score_terms(f, config, arch).values())


#: Sizes below this keep every step of ``analytic_scores`` exact in float64 (tiles and CU counts are far
#: smaller than the 2**53 margin); a problem with a larger one is scored by ``analytic_score`` instead.
_COLUMN_LIMIT = 2 ** 50


def analytic_scores(problems: Sequence, configs: Sequence, arch: str, columns: dict | None = None):
    """``analytic_score`` of every (problem, config) pair as a (problems, configs) float64 array.

    minimize scores each distinct problem against every score class of kernels
    (``score_key``): 10^5 problems x 60 classes is 6 million calls of the scalar
    form, seconds of Python, but one pass of numpy here. The facts are derived
    from the problems' fields as columns (``problem._facts``'s formulas) and the
    steps are the scalar form's, in its order, on values where float64 is exact,
    so every score is bit-identical to ``analytic_score``'s (tests/test_minimize_scale.py
    holds them equal); a problem with sizes past that range is scored by the scalar form.
    ``columns`` is ``problem_columns(problems)`` when the caller scores the same problems again.
    """
    import numpy as np  # deferred: the scalar form serves callers that never load numpy

    out = np.zeros((len(problems), len(configs)), dtype=np.float64)
    if not len(problems) or not len(configs):
        return out
    cus = float(cu_count(arch))
    f = problem_columns(problems) if columns is None else columns
    m, n, k, G, N = f["m"], f["n"], f["k"], f["G"], f["N"]

    def share(size, tile):
        return size / (np.ceil(size / tile) * tile)

    def occupancy(blocks):
        return blocks / (np.ceil(blocks / cus) * cus)

    for kind in ("gemm", "depthwise"):
        at = [j for j, c in enumerate(configs) if c.kind == kind]
        if not at:
            continue
        row = lambda a: np.array([getattr(configs[j], a) for j in at], dtype=np.float64)[None, :]  # noqa: E731
        if kind == "depthwise":
            ho, wo, th, tw = f["ho"], f["wo"], row("tile_h"), row("tile_w")
            tile = (ho * wo) / (np.ceil(ho / th) * th * np.ceil(wo / tw) * tw)
            out[:, at] = tile * occupancy(G * np.ceil(N / row("nbatch"))) * 1.0 * 1.0
            continue
        tm, tn, tk = row("tile_m"), row("tile_n"), row("tile_k")
        tile = share(m, tm) * share(n, tn) * share(k, tk)
        blocks = np.ceil(m / tm) * np.ceil(n / tn) * np.ceil(G / row("groups_to_merge"))
        vector = np.zeros((len(problems), len(at)))
        for name, dim in zip(("vector_a", "vector_b", "vector_c"), f["vectors"]):
            best = _best_vectors(dim, [configs[j].dtype for j in at])
            vector = vector + np.minimum(row(name), best) / best
        reuse = np.minimum(1.0, tm * tn / (tm + tn) / FULL_REUSE)
        out[:, at] = tile * occupancy(blocks) * reuse * (vector / 3)
    for i in np.flatnonzero(f["big"]).tolist():
        facts = problems[i].facts()
        out[i] = [analytic_score(facts, c, arch) for c in configs]
    return out


_FIELDS = ("N", "G", "C", "K", "Di", "Hi", "Wi", "Z", "Y", "X", "stride_d", "stride_h", "stride_w",
           "pad_d", "pad_h", "pad_w", "dilation_d", "dilation_h", "dilation_w")


def problem_columns(problems: Sequence) -> dict:
    """What the score reads of each problem, as (P, 1) float64 columns, and ``big``: the rows where float64
    might not be exact (they are scored one by one)."""
    import numpy as np

    rows = list(map(attrgetter(*_FIELDS), problems))
    big = np.array([max(r) >= 2 ** 31 for r in rows], dtype=bool)
    v = np.array([r if not b else (1,) * len(_FIELDS) for r, b in zip(rows, big)], dtype=np.int64)
    N, G, C, K, inp, filt, stride, pad, dil = (v[:, 0], v[:, 1], v[:, 2], v[:, 3], v[:, 4:7], v[:, 7:10],
                                                v[:, 10:13], v[:, 13:16], v[:, 16:19])
    out = (inp + 2 * pad - dil * (filt - 1) - 1) // stride + 1  # d, h, w; d is 1 in 2D
    three = np.array([p.ndim == 3 for p in problems], dtype=bool)
    direction = np.array([p.direction for p in problems], dtype=object)
    fl = lambda x: x.astype(np.float64)  # noqa: E731
    # Fields are below 2**31, so out, C/G, K/G are exact int64; the products are taken in float64 and are
    # exact where they stay below _COLUMN_LIMIT (the other rows are ``big``).
    N, G, cg, kg = fl(N), fl(G), fl(C // G), fl(K // G)
    pf, pdi, pdo = fl(filt).prod(axis=1), fl(inp).prod(axis=1), fl(out).prod(axis=1)
    fwd, bwd_data = direction == "forward", direction == "bwd_data"
    m = np.where(fwd, N * pdo, np.where(bwd_data, N * pdi, kg))
    n = np.where(fwd, kg, np.where(bwd_data, cg, pf * cg))
    k = np.where(fwd, cg * pf, np.where(bwd_data, kg * pf, N * pdo))
    big |= np.maximum.reduce([m * n * G, k, pdi * N, pdo * N * G, pf * np.maximum(cg, kg)]) >= _COLUMN_LIMIT
    col = lambda x: np.where(big, 1.0, x)[:, None]  # noqa: E731
    vectors = (np.where(fwd, cg, kg), cg, np.where(fwd, kg, cg))  # _vector_dims
    return {"m": col(m), "n": col(n), "k": col(k), "G": col(G), "N": col(N), "big": big,
            "ho": col(np.where(three, out[:, 0], out[:, 1])), "wo": col(np.where(three, out[:, 1], out[:, 2])),
            "vectors": [col(x) for x in vectors]}


def _best_vectors(dim, dtypes: Sequence[str]):
    """``_best_vector`` over a (P, 1) column of dimensions, for a row of dtypes: the same halving loop,
    once per element size."""
    import numpy as np

    sizes = common_facts().element_size
    d = dim.astype(np.int64)
    best = {}
    for size in {sizes[t] for t in dtypes}:
        v = np.full(d.shape, MAX_LOAD_BYTES // size, dtype=np.int64)
        for _ in range(MAX_LOAD_BYTES.bit_length()):
            v = np.where((v > 1) & (d % np.maximum(v, 1) != 0), v // 2, v)
        best[size] = v.astype(np.float64)
    return np.hstack([best[sizes[t]] for t in dtypes])
