"""The tests behind the applicability rules (``applicability.toml`` names them), each written once.

Each test takes the values of its rule's scope, then the problem's ``Facts``,
the arch and the dtype, and is elementwise (``problem_facts.py``): the same function
answers one (problem, kernel) pair -- plain values, the solver's ``Check`` and
``explain`` -- and a whole workload against every distinct scope value at once
-- columns and rows, ``columns.decide_groups``. So a new rule is one entry in
``applicability.toml`` and one function here. They are module-level functions,
not lambdas, because a constraint's test is part of its identity (it is hashed
and compared) and the constraint reference documents it by name.
"""

from __future__ import annotations

from ..arch.facts import archs_with
from ..space.config import DepthwiseConfig
from ..space.memos import MEMOS
from ..space.pipelines import pipelines_with
from ..space.values import value_facts, values_with
from .problem_facts import all_of, ceil_div, isin, not_
from .problem import DIRECTIONS

#: Pipelines CK Tile marks Async (inferred from their names; applicability.md F2 [I]): pipelines.toml async_copy.
ASYNC_PIPELINES = pipelines_with("async_copy")
#: The arch flags the rules read at run time, from the active CK version's facts (``arch_facts``), never frozen
#: here: stream-K backward weight (BWDW L671-686) and where Async pipelines run (applicability.md F2 [I]).
STREAMK_FLAG, ASYNC_FLAG = "streamk_bwd_weight", "async_copy"


def _listing(archs, word: str) -> str:
    """``a, b and c`` (``word`` = "and") in facts-file order; "no arch" when empty."""
    archs = list(archs)
    return (", ".join(archs[:-1]) + f" {word} " + archs[-1]) if len(archs) > 1 else (archs[0] if archs else "no arch")


def arch_lists() -> tuple[tuple[str, str], ...]:
    """(field, text) of the arch lists the rules' messages and docs name (``{streamk_archs}`` ...), formatted
    from the active CK version's facts, so a version's flags change the text too (a memo per pair of lists)."""
    return _arch_lists(archs_with(ASYNC_FLAG), archs_with(STREAMK_FLAG))


@MEMOS.cached("workload.checks.arch_lists", maxsize=64)
def _arch_lists(async_archs: tuple[str, ...], streamk_archs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return (("async_archs", _listing(async_archs, "and")), ("async_archs_or", _listing(async_archs, "or")),
            ("streamk_archs", _listing(streamk_archs, "and")), ("streamk_archs_or", _listing(streamk_archs, "or")))


#: Output types whose epilogue is not float: they bound and shape split-K (values.toml ``half``).
HALF_TYPES = values_with("dtype", "half")
#: compv6 prefetches 3 stages, so it needs PrefetchStages + 1 K iterations per split.
COMPV6_MIN_K_ITERATIONS = 4
#: The most backward-data GEMMs (filter phases) one launch can hold (MaxGroupedGemmGroupsNum).
MAX_BWD_DATA_GEMMS = 128
#: The most split-K batches when the epilogue writes fp16/bf16 directly.
MAX_HALF_SPLIT_K = 128


def variant_runs_direction(variant, f, arch, dtype):
    return isin(variant, DIRECTIONS[f.direction])


def ndim_matches(ndim, f, arch, dtype):
    return ndim == f.ndim


def async_copy_arch(pipeline, f, arch, dtype):
    return not_(isin(pipeline, ASYNC_PIPELINES)) | (arch in archs_with(ASYNC_FLAG))


def specialization_fits(spec, f, arch, dtype):
    """What each specialization asks of the problem; the default asks nothing (dilation is never checked)."""
    no_pad = all_of(p == 0 for p in f.pad)
    one = all_of(x == 1 for x in f.filter)
    return (((spec != "filter1x1_stride1_pad0") | (one & all_of(s == 1 for s in f.stride) & no_pad))
            & ((spec != "filter1x1_pad0") | (one & no_pad))
            & ((spec != "filter3x3") | ((f.c_per_group == 1) & all_of(x == 3 for x in f.filter))))


#: What each specialization asks of a problem, for messages (values.toml ``needs``).
SPECIALIZATION_NEEDS = value_facts("specialization", "needs")


def split_k_is_one(variant, f, arch, dtype):
    return f.split_k == 1


def explicit_gemm_needs_1x1(explicit_gemm, spec, f, arch, dtype):
    return not_(explicit_gemm) | (spec == "filter1x1_stride1_pad0")


def fwd_vector_a(groups_to_merge, vector_a, f, arch, dtype):
    return (groups_to_merge != 1) | (f.c_per_group % vector_a == 0)


def fwd_merge_groups(groups_to_merge, f, arch, dtype):
    return (groups_to_merge == 1) | ((f.c_per_group == 1) & (f.G % groups_to_merge == 0))


def c_multiple_of(vector, f, arch, dtype):
    return f.c_per_group % vector == 0


def k_multiple_of(vector, f, arch, dtype):
    return f.k_per_group % vector == 0


def fwd_vector_c(groups_to_merge, vector_c, f, arch, dtype):
    return (f.k_per_group % vector_c == 0) | ((groups_to_merge > 1) & (f.G % groups_to_merge == 0)
                                              & (f.G % vector_c == 0))


def depthwise_fits(filt, str_h, str_w, pad_h, pad_w, nbatch, f, arch, dtype):
    if f.ndim != 2:
        return False
    return ((f.c_per_group == 1) & (f.k_per_group == 1) & (f.filter[0] == filt) & (f.filter[1] == filt)
            & (f.stride[0] == str_h) & (f.stride[1] == str_w) & (f.dilation[0] == 1) & (f.dilation[1] == 1)
            & (f.pad[0] == pad_h) & (f.pad[1] == pad_w) & (f.N % nbatch == 0))


def depthwise_tile_per_wave(tile_h, tile_w, sub_h, sub_w):
    """Output tiles one wave processes (CK's ``DepthwiseConvFwdTraits::TilePerWave``; wave = block)."""
    return DepthwiseConfig.block_size // (ceil_div(tile_h, sub_h) * ceil_div(tile_w, sub_w))


def depthwise_output_fits_tile(tile_h, tile_w, sub_h, sub_w, f, arch, dtype):
    one = depthwise_tile_per_wave(tile_h, tile_w, sub_h, sub_w) == 1
    if f.ndim != 2:
        return one
    return one | ((f.output[0] <= tile_h) & (f.output[1] <= tile_w))


def bwd_data_split_k(vector_c, f, arch, dtype):
    return (f.split_k >= 1) & ((f.split_k == 1) | (vector_c % 2 == 0) | (dtype not in HALF_TYPES))


def bwd_data_gemm_count(variant, f, arch, dtype):
    return f.gemm_count <= MAX_BWD_DATA_GEMMS


def no_explicit_gemm(explicit_gemm, f, arch, dtype):
    return not_(explicit_gemm)


def streamk_fits(streamk, f, arch, dtype):
    return not_(streamk) | ((arch in archs_with(STREAMK_FLAG)) & (f.split_k == 1))


def split_k_positive(variant, f, arch, dtype):
    return f.split_k >= 1


def compv6_prefetch(pipeline, tile_k, f, arch, dtype):
    return (pipeline != "compv6") | (ceil_div(f.gemm_k, f.split_k * tile_k) >= COMPV6_MIN_K_ITERATIONS)


def bwd_weight_split_k_limit(two_stage, f, arch, dtype):
    return two_stage | (dtype not in HALF_TYPES) | (f.split_k <= MAX_HALF_SPLIT_K)


def bwd_weight_odd_vector_c(vector_c, two_stage, f, arch, dtype):
    return two_stage | (vector_c % 2 == 0) | (dtype not in HALF_TYPES) | (f.split_k == 1)


def bwd_weight_split_k_warp_tile(streamk, warp_tile_k, f, arch, dtype):
    return streamk | (ceil_div(f.gemm_k, warp_tile_k) >= f.split_k)


def bwd_weight_merge_groups(groups_to_merge, f, arch, dtype):
    return (groups_to_merge == 1) | (f.G % groups_to_merge == 0)


def details(*args) -> dict:
    """Message fields: the problem facts (tuples as 3x3) and what a specialization needs."""
    *values, f, arch, dtype = args
    fields = {k: ("x".join(map(str, v)) if isinstance(v, tuple) else v) for k, v in f._asdict().items()}
    fields["problem_ndim"] = fields.pop("ndim")  # "ndim" stays the kernel's
    for v in values:
        if v in SPECIALIZATION_NEEDS:
            fields["need"] = SPECIALIZATION_NEEDS[v]
    return fields
