"""The feature formulas: a problem block, a kernel block, their interactions, the hardware.

Both semantics share one set of formulas over a ``KernelShape``. CK's reading
of a dispatcher name is the shape whose M and N tiles are the name's second
and third numbers and whose K tile *and* block size are its first (CK's engine
divides the problem's K by block_size); the exact shape is the kernel's own
tile, block size and pipeline. The ``ck`` problem GEMM is the forward one with
all K output channels, the ``exact`` one the workload's per-group GEMM of the
problem's direction. Values are computed in the order CK computes them, so
floats match its float64 arithmetic.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..arch.facts import arch_facts, archs, lds_budget
from ..errors import CksolveError
from ..space.config import KernelConfig
from ..space.pipelines import double_buffered
from ..workload.problem import Problem
from .ckname import ck_fields, dispatcher_name
from .spec import ENGINE

__all__ = ["SEMANTICS", "KernelShape", "ProblemGemm", "kernel_shape", "kernel_block", "problem_block",
           "problem_gemm", "interactions", "hardware_block", "lds_limit", "NoHardwareProfile"]

SEMANTICS = ("ck", "exact")


class NoHardwareProfile(CksolveError):
    """The arch has no CK hardware profile, and a column needs one."""


class KernelShape(NamedTuple):
    """What the formulas read of a kernel (per semantics)."""

    block_size: int
    tile_m: int
    tile_n: int
    tile_k: int
    num_warps: float
    pipeline: str
    wave_mode: str
    has_dsb: int
    has_si: int
    groups_to_merge: int
    lds_limit: int


class ProblemGemm(NamedTuple):
    m: int
    n: int
    k: int
    batches: int  # GEMMs the launch covers (exact: G; ck: 1, CK's engine counts one group)


def _profile(arch: str) -> dict:
    facts = arch_facts(arch)
    if facts.hw_profile is None:
        # the archs the active version knows (an --arch-specs file may know none of the bundled ones)
        profiled = ", ".join(a for a in archs() if arch_facts(a).hw_profile is not None) or "none of the known archs"
        raise NoHardwareProfile(f"arch {arch} has no CK hardware profile (CK profiles {profiled}); "
                                f"the hw_* columns and CK's lds_usage_ratio need one")
    return {"wavefront_size": facts.warp_size, **facts.hw_profile}


def hardware_block(arch: str, semantics: str = "ck") -> tuple:
    """hw_num_cus ... hw_num_xcd of the arch's CK profile; in the exact semantics hw_lds_capacity is the
    active CK version's LDS of the arch where the version gives one (develop: 160 KB on gfx950)."""
    hw = _profile(arch)
    own = arch_facts(arch).lds_capacity
    if semantics == "exact" and own is not None:
        hw = {**hw, "lds_capacity": own}
    return (hw["num_cus"], hw["simds_per_cu"], hw["num_cus"] * hw["simds_per_cu"], hw["shader_engines"],
            hw["max_clock_mhz"], hw["max_waves_per_cu"], hw["wavefront_size"], hw["lds_capacity"],
            hw["l1_cache_kb"], hw["l2_cache_kb"], hw["l3_cache_kb"], hw["num_xcd"])


def lds_limit(pipeline: str, semantics: str, arch: str, double_smem_buffer: bool = False) -> int:
    """The LDS budget lds_usage_ratio divides by: CK's engine's, or the arch filter's (the active CK
    version's budget of the pipeline on the arch, for the kernel's buffering)."""
    if semantics == "exact":
        return lds_budget(arch, pipeline, double_smem_buffer)
    return ENGINE["compv4_lds"] if pipeline.startswith("compv4") else _profile(arch)["lds_capacity"]


def kernel_shape(config: KernelConfig, semantics: str, arch: str) -> KernelShape:
    if semantics == "exact":
        waves = config.wave_m * config.wave_n * config.wave_k
        return KernelShape(waves * arch_facts(arch).warp_size, config.tile_m, config.tile_n, config.tile_k, waves,
                           config.pipeline, config.scheduler, int(double_buffered(config.pipeline,
                                                                                  config.double_smem_buffer)),
                           int(config.split_image), config.groups_to_merge,
                           lds_limit(config.pipeline, semantics, arch, config.double_smem_buffer))
    bs, gm, gn, pipeline, wave, dsb, si = ck_fields(dispatcher_name(config))
    return KernelShape(bs, gm, gn, bs, bs / 4.0, pipeline, wave, dsb, si, 1, lds_limit(pipeline, semantics, arch))


def kernel_block(s: KernelShape, bytes_per_element: float) -> tuple:
    """block_size ... is_mem."""
    tm, tn, tk, bs, p = s.tile_m, s.tile_n, s.tile_k, s.block_size, s.pipeline
    lds = (tm * tk + tn * tk) * bytes_per_element
    return (
        bs, tm, tn, ENGINE["pipeline_codes"].get(p, 0), s.num_warps, tm * tn * tk, tm * tn,
        lds, lds / max(s.lds_limit, 1), tm / max(bs, 1), tn / max(bs, 1), min(tm, tn) / max(tm, tn, 1),
        int(p == "compv3"), int(p == "compv4"), int(p == "compv5"),
        int(s.wave_mode == "intrawave"), s.has_dsb, s.has_si, int(p.startswith("basic_v")),
        int(p == "compv6"), int(p == "mem"),
    )


def problem_block(p: Problem, bytes_per_element: float) -> tuple:
    """N ... is_small_batch_grouped (the same in both semantics)."""
    s = p.spatial()
    is3 = p.ndim == 3
    out = s["output"]
    ho, wo, do = out[-2], out[-1], (out[0] if is3 else 1)
    spatial, filt, outv = math.prod(s["input"]), math.prod(s["filter"]), math.prod(out)
    n, c, k, g = p.N, p.C, p.K, p.G
    cpg, kpg = c / max(g, 1), k / max(g, 1)
    bpe = bytes_per_element
    flops = float(n) * k * outv * cpg * filt * 2
    moved = n * c * spatial * bpe + k * cpg * filt * bpe + n * k * outv * bpe
    three = (p.Y == 3 and p.X == 3 and p.Z == 3) if is3 else (p.Y == 3 and p.X == 3)
    lg = math.log2
    return (
        n, c, k, g, p.Hi, p.Wi, p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w, ho, wo,
        lg(max(n, 1)), lg(max(c, 1)), lg(max(k, 1)), lg(max(g, 1)), lg(max(p.Hi, 1)), lg(max(p.Wi, 1)),
        lg(max(spatial, 1)), lg(max(filt, 1)), lg(max(outv, 1)), flops / max(moved, 1), filt,
        int(p.Y == 1 and p.X == 1 and p.Z == 1), int(three), cpg, p.Hi / max(p.Wi, 1), p.Y / max(p.X, 1),
        int(is3), p.Di, p.Z, do, p.stride_d, p.pad_d, p.dilation_h, p.dilation_w,
        lg(max(cpg, 1)), lg(max(kpg, 1)), int(g == c and g == k), g / max(c, 1), int(cpg < 16 or kpg < 16),
        cpg * kpg, n * g, int(n < 8 and g > 1),
    )


def problem_gemm(p: Problem, semantics: str) -> ProblemGemm:
    if semantics == "exact":
        f = p.facts()
        return ProblemGemm(f.gemm_m, f.gemm_n, f.gemm_k, f.gemm_batch)
    s = p.spatial()
    return ProblemGemm(p.N * math.prod(s["output"]), p.K, int(p.C / max(p.G, 1) * math.prod(s["filter"])), 1)


def _eff(size: int, tile: int) -> float:
    rem = size % tile if tile > 0 else 0
    return rem / tile if rem > 0 else 1.0


def interactions(gemm: ProblemGemm, s: KernelShape, num_cus: int) -> tuple:
    """gemm_m_output ... problem_smaller_than_tile_k."""
    m, n, k = gemm.m, gemm.n, gemm.k
    tm, tn, tk = s.tile_m, s.tile_n, s.tile_k
    nm, nn, nk = math.ceil(m / max(tm, 1)), math.ceil(n / max(tn, 1)), math.ceil(k / max(tk, 1))
    total = nm * nn * -(-gemm.batches // s.groups_to_merge)
    em, en, ek = _eff(m, tm), _eff(n, tn), _eff(k, tk)
    return (m, n, k, nm, nn, nk, total, em, en, ek, em * en * ek, total / max(num_cus, 1),
            m / max(tm, 1), n / max(tn, 1), k / max(tk, 1), int(m < tm), int(n < tn), int(k < tk))
