"""The analytic scorer: a performance model's estimate of a kernel's TFLOPS on a problem (higher is better).

Every term reads the kernel's own axes and the device's facts (``arch/devices.toml``);
the efficiency factors, each with its reason, are one table (``factors.toml``).
For the problem's implicit GEMM (``Problem.facts()``: M, N, K of its direction
for one group, G groups, backward-data phases, split-K):

* **work**: workgroups = ceil(M/tile_m) * ceil(N/tile_n) * ceil(G/groups_to_merge)
  * phases * split_k; each computes its padded tile over ceil(K/tile_k) K steps;
* **occupancy**: workgroups per CU from the LDS the tile takes (twice when the
  pipeline double-buffers) against the device's LDS, and from registers
  (fp32 accumulators tile_m*tile_n per workgroup's lanes, plus staged A/B
  tiles) against the wave slots and register file; more registers than a wave
  may hold spills (a factor of 0.3);
* **wave quantisation**: each CU runs ceil(workgroups / CUs) of them (stream-K
  kernels: exactly workgroups / CUs, plus one partial-tile fixup);
* **matrix-core rate**: the device's dense FLOPs per clock per CU for the dtype,
  times the share of SIMDs the concurrent waves fill, the warp tile's
  instruction rate on the arch family, the pipeline's compute share, the
  latency hidden (one wave per SIMD hides most of it only with prefetch;
  ``latency.waves_to_hide`` waves per SIMD hide all of it), the scheduler
  (interwave needs a second wave per SIMD), the K split across waves
  and how many waves share a K step's copies;
* **roofline**: global traffic (the operand tensors as stored, not their
  im2col expansion: the M-side one re-read once per N tile and the N-side one
  per M tile, a share of re-reads missing L2; C written once, in fp32 per split-K slice
  plus the two-stage conversion pass) over bandwidth times the pipeline's
  memory share and the vector width's share; time = max(compute, memory) + a
  share of min(compute, memory) (``overlap.exposed``: the overlap is not perfect,
  so a padded tile's wasted math costs time even when loads bound the loop) +
  K-step overhead + launch;
* **what the hardware charges shapes no rule prices otherwise** (``factors.toml``,
  each with its reason): workgroups of more than ``waves.many_waves`` waves, tile
  extents that are not powers of two, vectors wider than one load instruction;
  each a share of the math rate, the load rate and the CU's load path and LDS;
* **CU load path and LDS** (terms 0 -- not modelled -- in ``factors.toml``, set by
  calibrations): the bytes per clock a CU brings into LDS bound the K loop (every
  workgroup's A and B tiles of every step) and each workgroup pays its first tile
  (two, double-buffered) and its C tile on it unoverlapped, with fixed
  per-workgroup cycles; the bytes per clock its LDS gives the waves bound the K
  loop too (each wave reads its tile_m/wave_m rows of A and tile_n/wave_n columns
  of B per K).

The score is useful FLOPs / time. It is a model, not a measurement: its factors
are ``factorfile.factors_for(arch)``'s -- first principles, or an arch's shipped
calibration fitted to measured TFLOPS (docs/calibration.md).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..arch.facts import arch_facts, common_facts
from ..space.kinds import GEMM, kernel_kind
from ..space.pipelines import double_buffered
from ..workload.problem_facts import ceil_div
from .device import Device, device
from .factorfile import base_factors, calibration_of, factors_for
from .scorer_base import ScorerBase

__all__ = ["AnalyticScorer", "estimate", "estimate_batch", "bound_batch", "Choices", "problem_terms", "COLUMNS",
           "per_distinct"]


def problem_terms(f) -> dict:
    """The problem's side of the model (per problem: computed once)."""
    phases = max(f.gemm_count, 1) if f.direction == "bwd_data" else 1
    split = max(f.split_k, 1)
    pdi, pf, pdo = math.prod(f.input), math.prod(f.filter), math.prod(f.output)
    x = f.N * pdi * f.c_per_group * f.G
    w = f.k_per_group * f.c_per_group * pf * f.G
    y = f.N * pdo * f.k_per_group * f.G
    # the operand tensors as stored (an implicit GEMM reads each element once per tile pass, not per tap):
    # A on the M side, B on the N side, C the output
    a, b, c = {"forward": (x, w, y), "bwd_data": (y, w, x)}.get(f.direction, (y, x, w))
    return {"m": math.ceil(f.gemm_m / phases), "n": f.gemm_n, "k": math.ceil(f.gemm_k / (phases * split)),
            "groups": f.gemm_batch, "phases": phases, "split": split, "mn_all": f.gemm_m * f.gemm_n * f.gemm_batch,
            "useful": f.useful_flops(), "a": a, "b": b, "c": c}


def _as_floats(P: dict) -> dict:
    """``P`` with its integers as floats: the model's arithmetic is in float64, exact below 2**53 (every
    real problem), and a problem of 18-digit fields neither overflows int64 nor wraps a tile count."""
    return {key: float(v) if isinstance(v, int) else v for key, v in P.items()}


#: config columns the model reads (every other axis does not change its estimate)
COLUMNS = ("tile_m", "tile_n", "tile_k", "groups_to_merge", "wave_m", "wave_n", "wave_k", "warp_tile_m",
           "warp_tile_n", "warp_tile_k", "pipeline", "scheduler", "double_smem_buffer", "vector_a", "vector_b",
           "vector_c", "epilogue", "specialization", "split_image", "two_stage", "streamk")


class Choices(tuple):
    """The values an axis may still take (``bound_batch``): each term of the model that reads the axis takes the
    value best for that term, so the estimate is an upper bound over every choice."""


def _best(col, f, better):
    """``f(col)``; for ``Choices``: ``better`` (np.maximum or np.minimum) of ``f`` over the choices."""
    if not isinstance(col, Choices):
        return f(col)
    got = [f(np.asarray(v)) for v in col]
    out = got[0]
    for g in got[1:]:
        out = better(out, g)
    return out


def _power_of_two(x) -> np.ndarray:
    x = np.asarray(x).astype(np.int64)
    return (x > 0) & ((x & (x - 1)) == 0)


def _columns(configs) -> dict:
    return {c: np.array([getattr(x, c) for x in configs]) for c in COLUMNS}


def per_distinct(f, *columns, dtype=float) -> np.ndarray:
    """``f`` of each pair's values of ``columns`` as a numpy column, ``f`` called once per distinct combination
    of values (a batch has millions of pairs and a handful of pipelines or warp tiles)."""
    values, codes = [], []
    for col in columns:
        u, inv = np.unique(np.asarray(col), return_inverse=True)
        values.append(u.tolist())
        codes.append(inv.reshape(-1))
    if not codes[0].size:
        return np.zeros(0, dtype=dtype)
    if len(codes) == 1:
        keys, inv = np.arange(len(values[0]))[:, None], codes[0]
    else:
        keys, inv = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
    out = np.array([f(*(v[i] for v, i in zip(values, key))) for key in keys.tolist()], dtype=dtype)
    return out[inv.reshape(-1)]


def estimate_batch(P: dict, C: dict, dev: Device, dtype: str, family: str, warp_size: int,
                   fx: dict | None = None) -> dict:
    """The model's terms for problem terms ``P`` (``problem_terms``, scalars or arrays) and config columns ``C``
    (arrays, one element per pair): the module docstring, in array form; ``tflops`` is the score. ``fx``: the
    factor table (``factorfile.factors_for``; default: ``factors.toml`` alone)."""
    fx = base_factors() if fx is None else fx
    P = _as_floats(P)
    pipes = fx["pipeline"]
    bpe = common_facts().element_size[dtype]
    clock = dev.clock_mhz * 1e6
    peak = dev.matrix.get(dtype, 256) * clock
    names = C["pipeline"]
    compute = per_distinct(lambda p: pipes.get(p, {}).get("compute", 0.8), names)
    memory = per_distinct(lambda p: pipes.get(p, {}).get("memory", 0.8), names)
    prefetch = per_distinct(lambda p: pipes.get(p, {}).get("prefetch", True), names, dtype=bool)
    dbuf = per_distinct(lambda p, d: double_buffered(p, bool(d)), names, C["double_smem_buffer"], dtype=bool)
    tm, tn, tk = (C[a].astype(np.int64) for a in ("tile_m", "tile_n", "tile_k"))
    gm = np.maximum(C["groups_to_merge"].astype(np.int64), 1)
    waves = (C["wave_m"] * C["wave_n"] * C["wave_k"]).astype(np.int64)
    m, n, k = P["m"], P["n"], P["k"]
    tiles = ceil_div(m, tm) * ceil_div(n, tn) * ceil_div(P["groups"], gm) * P["phases"] * P["split"]
    steps = ceil_div(k, tk)
    wg_flops = 2.0 * tm * tn * steps * tk * gm

    # occupancy: LDS and registers
    lds = (tm + tn) * tk * bpe * np.where(dbuf, 2, 1)
    by_lds = (dev.lds_kb * 1024) // np.maximum(lds, 1)
    lanes = waves * warp_size
    vgpr = tm * tn / lanes + (tm + tn) * tk * bpe / 4 / lanes * np.where(prefetch, 2, 1) + 32
    spill = np.where(vgpr <= dev.max_vgprs, 1.0, 0.3)
    per_simd = ceil_div(waves, dev.simds)
    by_regs = np.minimum(dev.waves_per_simd, np.maximum(1, (dev.vgprs // vgpr).astype(np.int64))) // per_simd
    occupancy = np.maximum(1, np.minimum(by_lds, by_regs))

    # wave quantisation over the CUs
    streamk = np.asarray(C["streamk"]).astype(bool)
    per_cu = np.where(streamk, tiles / dev.cus, ceil_div(tiles, dev.cus))
    concurrent = np.maximum(1.0, np.minimum(occupancy, per_cu))
    simd_share = np.minimum(1.0, concurrent * waves / dev.simds)
    waves_per_simd = concurrent * per_simd
    lat = fx["latency"]
    base = np.where(prefetch | dbuf, lat["prefetch"], lat["no_prefetch"])
    hidden = np.minimum(1.0, base + (1 - base) * np.maximum(0.0, waves_per_simd - 1) / (lat["waves_to_hide"] - 1))
    sched = np.where((C["scheduler"] == "interwave") & (waves_per_simd < 2),
                     fx["scheduler"]["interwave_single_wave"], 1.0)
    table = fx["warp_tile"].get(family, {})
    warp = per_distinct(lambda a, b, c: table.get(f"{a}x{b}x{c}", 1.0), C["warp_tile_m"], C["warp_tile_n"],
                        C["warp_tile_k"])
    other = fx["other"]
    extra = (np.where(C["wave_k"] > 1, other["wave_k_split"], 1.0)
             * _best(C["specialization"], lambda s: np.where(s != "default", other["specialized"], 1.0), np.maximum)
             * _best(C["split_image"], lambda s: np.where(s.astype(bool), other["split_image"], 1.0), np.maximum))
    wv = fx["waves"]
    per_wg = wv["per_workgroup"]
    copies = np.array(per_wg)[np.minimum(waves, len(per_wg)) - 1]
    # what the hardware charges shapes no rule prices otherwise: workgroups of many waves (one barrier for all,
    # one workgroup's waves filling each SIMD), tile dimensions that are not powers of two (LDS bank conflicts,
    # index arithmetic), vectors wider than one load instruction (twice the staging registers)
    many = np.where(waves > wv["many_waves"], wv["many_waves_rate"], 1.0)
    odd = sum((~_power_of_two(x)).astype(np.int64) for x in (tm, tn, tk))
    vec = fx["vector"]
    wide = lambda v: np.where(np.asarray(v) * bpe > vec["load_bytes"], vec["wide"], 1.0)  # noqa: E731
    hw = (many * fx["tile"]["non_power_of_two"] ** odd * _best(C["vector_a"], wide, np.maximum)
          * _best(C["vector_b"], wide, np.maximum) * _best(C["vector_c"], wide, np.maximum))
    cu = fx["cu"]
    rate = peak * simd_share * warp * compute * hidden * sched * spill * extra * copies * hw
    t_compute = per_cu * wg_flops / rate + np.where(streamk, wg_flops / rate, 0.0)  # stream-K: partial-tile fixup
    tile_bytes = (tm + tn) * tk * gm * bpe  # a K step's A and B tiles
    bandwidth = cu["load_bytes_per_clock"] * clock  # the CU's load path (0: not modelled)
    if bandwidth > 0:  # every workgroup's tiles of every K step share it
        t_compute = np.maximum(t_compute, per_cu * steps * tile_bytes / (bandwidth * hw))
    lds_rate = cu["lds_bytes_per_clock"] * clock  # LDS reads into the waves' registers (0: not modelled)
    if lds_rate > 0:  # each wave reads its own rows of A and columns of B of every K step
        wave_reads = (tm // np.maximum(C["wave_m"], 1) + tn // np.maximum(C["wave_n"], 1)) * tk * gm * bpe
        t_compute = np.maximum(t_compute, per_cu * steps * waves * wave_reads / (lds_rate * hw))

    # roofline: global traffic
    mem = fx["memory"]
    full = mem["full_vector_bytes"]
    share = lambda v: np.minimum(1.0, v * bpe / full) ** 0.5  # noqa: E731
    a = P["a"] * bpe * (1 + (ceil_div(n, tn) - 1) * mem["l2_miss"])
    b = P["b"] * bpe * (1 + (ceil_div(m, tm) - 1) * mem["l2_miss"])

    def c_bytes(two):
        two = two.astype(bool)
        out_bpe = np.where((P["split"] > 1) | two, 4, bpe)
        return P["c"] * out_bpe * P["split"] + np.where(two, P["c"] * (4 + bpe), 0)

    store = _best(C["epilogue"], lambda e: np.where(e == "cshuffle", 1.0, other["default_epilogue_store"]),
                  np.maximum)
    traffic = (a / _best(C["vector_a"], share, np.maximum) + b / _best(C["vector_b"], share, np.maximum)
               + _best(C["two_stage"], c_bytes, np.minimum) / (_best(C["vector_c"], share, np.maximum) * store))
    t_memory = traffic / (dev.hbm_tbps * 1e12 * memory * hw)  # the same costs slow the loads' issue
    loop = fx["loop"]
    t_loop = np.ceil(per_cu / concurrent) * steps * loop["cycles_per_k_step"] / clock
    # each workgroup's prologue (its first tile, two when double-buffered, loaded before any math) and epilogue
    # (its C tile stored): fixed cycles per round of concurrent workgroups, and their bytes on the load path
    t_loop = t_loop + np.ceil(per_cu / concurrent) * loop["cycles_per_tile"] / clock
    if bandwidth > 0:
        t_loop = t_loop + per_cu * (tile_bytes * np.where(dbuf, 2, 1) + tm * tn * gm * bpe) / (bandwidth * hw)
    # the shorter of the math and the loads hides under the longer but for a share (so the padded tile's wasted
    # math costs time even when the loads bound the loop)
    seconds = (np.maximum(t_compute, t_memory) + fx["overlap"]["exposed"] * np.minimum(t_compute, t_memory) + t_loop
               + loop["launch_us"] * 1e-6)
    return {"tflops": P["useful"] / seconds / 1e12, "workgroups": tiles, "occupancy": occupancy, "per_cu": per_cu,
            "compute_us": t_compute * 1e6, "memory_us": t_memory * 1e6, "loop_us": t_loop * 1e6,
            "rate_share": rate / peak}


def bound_batch(P: dict, C: dict, dev: Device, dtype: str, family: str, warp_size: int,
                fx: dict | None = None) -> np.ndarray:
    """An upper bound of the score over the ``Choices`` some of ``C``'s columns hold (the others: arrays, one
    element per row): ``estimate_batch`` with every term at the value best for it, each stream-K choice
    estimated whole. Every term is a product of non-negative factors or a sum of non-negative costs, so no
    config with those choices scores above it, whatever numbers the factor table holds."""
    sk = C["streamk"]
    if not isinstance(sk, Choices):
        return estimate_batch(P, C, dev, dtype, family, warp_size, fx)["tflops"]
    size = len(C["tile_m"])
    return np.max([estimate_batch(P, {**C, "streamk": np.full(size, s)}, dev, dtype, family, warp_size, fx)["tflops"]
                   for s in sk], axis=0)


def estimate(f, c, dev: Device, dtype: str, family: str, warp_size: int, fx: dict | None = None) -> dict:
    """``estimate_batch`` for one problem's facts ``f`` and one config ``c``: its terms as floats."""
    got = estimate_batch(problem_terms(f), _columns([c]), dev, dtype, family, warp_size, fx)
    return {key: float(v[0]) for key, v in got.items()}


class AnalyticScorer(ScorerBase):
    kind = "analytic"

    def __init__(self, device: str | None = None, factors: str | None = None, **_ignored):
        self.device_name = device
        self.factors_path = factors  # a factors file (``--factors``); None: the arch's default (factorfile)
        self._devices: dict = {}
        self._prepared: str | None = None  # the arch prepare() was given (describe says its factors)

    def _device(self, arch: str) -> Device:
        d = self._devices.get(arch)
        if d is None:
            d = self._devices[arch] = device(arch, self.device_name)
        return d

    def describe(self) -> str:
        which = self.device_name or "the arch's default device"
        if self._prepared is not None:  # where the factors come from, when not factors.toml alone
            which += "".join(f"; {c}" for c in [calibration_of(self._prepared, self.factors_path)] if c)
        return f"the analytic performance model ({which}; docs/selection.md)"

    def device_for(self, arch: str) -> Device:
        return self._device(arch)

    def factors_for(self, arch: str) -> dict:
        """The factor table this scorer's estimates for ``arch`` use (``factorfile.factors_for``)."""
        return factors_for(arch, self.factors_path)

    def prepare(self, arch: str, dtype: str) -> None:
        self._device(arch)
        self.factors_for(arch)  # a bad factors file: one error before any output
        self._prepared = arch

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        dev = self._device(arch)
        fx = self.factors_for(arch)
        a = arch_facts(arch)
        out = [0.0] * len(pairs)
        by_problem: dict = {}
        for i, (problem, config) in enumerate(pairs):
            if kernel_kind(getattr(config, "kind", GEMM)) is GEMM:  # a depthwise kernel has no GEMM tile: 0
                by_problem.setdefault(problem, []).append(i)
        for problem, rows in by_problem.items():
            terms = problem_terms(problem.facts())
            got = estimate_batch(terms, _columns([pairs[i][1] for i in rows]), dev, dtype, a.family, a.warp_size,
                                 fx)
            for i, v in zip(rows, got["tflops"].tolist()):
                out[i] = v
        return out
