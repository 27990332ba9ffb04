"""The analytic scorer: a performance model's estimate of a kernel's TFLOPS on a problem (higher is better).

Every term reads the kernel's own axes and the device's facts (``devices.toml``);
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
  latency hidden (one wave per SIMD hides all of it only with prefetch), the
  scheduler (interwave needs a second wave per SIMD) and the K split across waves;
* **roofline**: global traffic (the operand tensors as stored, not their
  im2col expansion: the M-side one re-read once per N tile and the N-side one
  per M tile, a share of re-reads missing L2; C written once, in fp32 per split-K slice
  plus the two-stage conversion pass) over bandwidth times the pipeline's
  memory share and the vector width's share; time = max(compute, memory) +
  K-step overhead + launch.

The score is useful FLOPs / time. It is a model, not a measurement: it has not
been fitted to any GPU, and it ranks only by its assumptions (docs/selection.md).
"""

from __future__ import annotations

import math
from typing import Sequence

from ..arch.facts import arch_facts, common_facts
from ..space.pipelines import double_buffered
from .device import Device, device, factors

__all__ = ["AnalyticScorer", "estimate"]


def _vector_share(width: int, bpe: float, full: float) -> float:
    return min(1.0, width * bpe / full) ** 0.5


def _tensors(f) -> tuple[int, int, int]:
    """Elements of the GEMM's A (M side) and B (N side) operands and its C, over all groups: the real
    tensors (an implicit GEMM reads each input element once per tile pass, not once per filter tap)."""
    pdi, pf, pdo = math.prod(f.input), math.prod(f.filter), math.prod(f.output)
    x = f.N * pdi * f.c_per_group * f.G
    w = f.k_per_group * f.c_per_group * pf * f.G
    y = f.N * pdo * f.k_per_group * f.G
    if f.direction == "forward":
        return x, w, y
    if f.direction == "bwd_data":
        return y, w, x
    return y, x, w


def estimate(f, c, dev: Device, dtype: str, family: str, warp_size: int) -> dict:
    """The model's terms for problem facts ``f`` and config ``c`` (module docstring); ``tflops`` is the score."""
    fx = factors()
    pipe = fx["pipeline"].get(c.pipeline, {"compute": 0.8, "memory": 0.8, "prefetch": True})
    bpe = common_facts().element_size[dtype]
    clock = dev.clock_mhz * 1e6
    phases = max(f.gemm_count, 1) if f.direction == "bwd_data" else 1
    split = max(f.split_k, 1)
    m = math.ceil(f.gemm_m / phases)
    n = f.gemm_n
    k = math.ceil(f.gemm_k / (phases * split))
    groups = f.gemm_batch
    tm, tn, tk, gm = c.tile_m, c.tile_n, c.tile_k, max(c.groups_to_merge, 1)
    waves = c.wave_m * c.wave_n * c.wave_k
    tiles = math.ceil(m / tm) * math.ceil(n / tn) * math.ceil(groups / gm) * phases * split
    steps = math.ceil(k / tk)
    wg_flops = 2.0 * tm * tn * steps * tk * gm
    useful = 2.0 * f.gemm_m * f.gemm_n * f.gemm_k * groups

    # occupancy: LDS and registers
    dbuf = double_buffered(c.pipeline, c.double_smem_buffer)
    lds = (tm + tn) * tk * bpe * (2 if dbuf else 1)
    by_lds = int(dev.lds_kb * 1024 // max(lds, 1))
    lanes = waves * warp_size
    vgpr = tm * tn / lanes + (tm + tn) * tk * bpe / 4 / lanes * (2 if pipe["prefetch"] else 1) + 32
    spill = 1.0 if vgpr <= dev.max_vgprs else 0.3
    per_simd = math.ceil(waves / dev.simds)
    by_regs = min(dev.waves_per_simd, max(1, int(dev.vgprs // vgpr))) // per_simd
    occupancy = max(1, min(by_lds, by_regs))

    # wave quantisation over the CUs
    per_cu = tiles / dev.cus if c.streamk else math.ceil(tiles / dev.cus)
    concurrent = max(1.0, min(occupancy, per_cu))
    simd_share = min(1.0, concurrent * waves / dev.simds)
    waves_per_simd = concurrent * per_simd
    lat = fx["latency"]
    base = lat["prefetch"] if (pipe["prefetch"] or dbuf) else lat["no_prefetch"]
    hidden = min(1.0, base + (1 - base) * max(0.0, waves_per_simd - 1))
    sched = fx["scheduler"]["interwave_single_wave"] if c.scheduler == "interwave" and waves_per_simd < 2 else 1.0
    warp = fx["warp_tile"].get(family, {}).get(f"{c.warp_tile_m}x{c.warp_tile_n}x{c.warp_tile_k}", 1.0)
    other = fx["other"]
    extra = (other["wave_k_split"] if c.wave_k > 1 else 1.0) * \
            (other["specialized"] if c.specialization != "default" else 1.0) * \
            (other["split_image"] if c.split_image else 1.0)
    rate = dev.matrix.get(dtype, 256) * clock * simd_share * warp * pipe["compute"] * hidden * sched * spill * extra
    t_compute = per_cu * wg_flops / rate
    if c.streamk:
        t_compute += wg_flops / rate  # the partial tiles' fixup

    # roofline: global traffic
    mem = fx["memory"]
    reread = lambda times: 1 + (times - 1) * mem["l2_miss"]  # noqa: E731
    full = mem["full_vector_bytes"]
    a_bytes, b_bytes, c_elems = _tensors(f)
    a = a_bytes * bpe * reread(math.ceil(n / tn))
    b = b_bytes * bpe * reread(math.ceil(m / tm))
    out_bpe = 4 if split > 1 or c.two_stage else bpe
    cbytes = c_elems * out_bpe * split + (c_elems * (4 + bpe) if c.two_stage else 0)
    store = 1.0 if c.epilogue == "cshuffle" else other["default_epilogue_store"]
    traffic = (a / _vector_share(c.vector_a, bpe, full) + b / _vector_share(c.vector_b, bpe, full)
               + cbytes / (_vector_share(c.vector_c, bpe, full) * store))
    t_memory = traffic / (dev.hbm_tbps * 1e12 * pipe["memory"])
    loop = fx["loop"]
    t_loop = math.ceil(per_cu / concurrent) * steps * loop["cycles_per_k_step"] / clock
    seconds = max(t_compute, t_memory) + t_loop + loop["launch_us"] * 1e-6
    return {"tflops": useful / seconds / 1e12, "workgroups": tiles, "occupancy": occupancy,
            "per_cu": per_cu, "compute_us": t_compute * 1e6, "memory_us": t_memory * 1e6, "loop_us": t_loop * 1e6,
            "rate_share": rate / (dev.matrix.get(dtype, 256) * clock)}


class AnalyticScorer:
    kind = "analytic"

    def __init__(self, device: str | None = None, **_ignored):
        self.device_name = device
        self._devices: dict = {}
        self._facts: dict = {}

    def _device(self, arch: str) -> Device:
        d = self._devices.get(arch)
        if d is None:
            d = self._devices[arch] = device(arch, self.device_name)
        return d

    def describe(self) -> str:
        which = self.device_name or "the arch's default device"
        return f"the analytic performance model ({which}; docs/selection.md)"

    def device_for(self, arch: str) -> Device:
        return self._device(arch)

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        dev = self._device(arch)
        a = arch_facts(arch)
        out = []
        memo: dict = {}
        for problem, config in pairs:
            if getattr(config, "kind", "gemm") != "gemm":
                out.append(0.0)
                continue
            key = (problem, config)
            v = memo.get(key)
            if v is None:
                facts = self._facts.get(problem)
                if facts is None:
                    if len(self._facts) > 4096:
                        self._facts.clear()
                    facts = self._facts[problem] = problem.facts()
                v = memo[key] = estimate(facts, config, dev, dtype, a.family, a.warp_size)["tflops"]
            out.append(v)
        return out
