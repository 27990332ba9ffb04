"""The tests behind the applicability rules (``applicability.toml`` names them).

Each test takes the values of its rule's scope, then the problem's facts, the
arch and the dtype. They are module-level functions, not lambdas, because a
constraint's test is part of its identity (it is hashed and compared) and the
constraint reference documents it by name.
"""

from __future__ import annotations

from math import ceil

from ..arch.facts import archs_with
from ..space.pipelines import pipelines_with
from ..space.values import value_facts, values_with
from .problem import DIRECTIONS

#: Pipelines CK Tile marks Async (inferred from their names; applicability.md F2 [I]): pipelines.toml async_copy.
ASYNC_PIPELINES = pipelines_with("async_copy")
#: Archs with the stream-K backward-weight path (BWDW L671-686): facts.toml streamk_bwd_weight.
STREAMK_ARCHS = frozenset(archs_with("streamk_bwd_weight"))
#: Archs where Async pipelines run (applicability.md F2 [I]): facts.toml async_copy.
ASYNC_ARCHS = frozenset(archs_with("async_copy"))


def _listing(archs, word: str) -> str:
    """``a, b and c`` (``word`` = "and") in facts-file order; "no arch" when empty."""
    archs = list(archs)
    return (", ".join(archs[:-1]) + f" {word} " + archs[-1]) if len(archs) > 1 else (archs[0] if archs else "no arch")


#: Arch lists the rules' messages and docs name (``{streamk_archs}`` ...): formatted from the facts,
#: when ``rules`` loads ``applicability.toml``, so a new arch's flags change the text too.
ARCH_LISTS = {
    "async_archs": _listing(archs_with("async_copy"), "and"),
    "async_archs_or": _listing(archs_with("async_copy"), "or"),
    "streamk_archs": _listing(archs_with("streamk_bwd_weight"), "and"),
    "streamk_archs_or": _listing(archs_with("streamk_bwd_weight"), "or"),
}
#: Output types whose epilogue is not float: they bound and shape split-K (values.toml ``half``).
HALF_TYPES = values_with("dtype", "half")
#: compv6 prefetches 3 stages, so it needs PrefetchStages + 1 K iterations per split.
COMPV6_MIN_K_ITERATIONS = 4
#: The most backward-data GEMMs (filter phases) one launch can hold (MaxGroupedGemmGroupsNum).
MAX_BWD_DATA_GEMMS = 128
#: The most split-K batches when the epilogue writes fp16/bf16 directly.
MAX_HALF_SPLIT_K = 128


def variant_runs_direction(variant, f, arch, dtype) -> bool:
    return variant in DIRECTIONS[f.direction]


def ndim_matches(ndim, f, arch, dtype) -> bool:
    return ndim == f.ndim


def async_copy_arch(pipeline, f, arch, dtype) -> bool:
    return pipeline not in ASYNC_PIPELINES or arch in ASYNC_ARCHS


def specialization_fits(spec, f, arch, dtype) -> bool:
    no_pad = all(p == 0 for p in f.pad)
    if spec == "filter1x1_stride1_pad0":
        return all(x == 1 for x in f.filter) and all(s == 1 for s in f.stride) and no_pad
    if spec == "filter1x1_pad0":
        return all(x == 1 for x in f.filter) and no_pad
    if spec == "filter3x3":
        return f.c_per_group == 1 and all(x == 3 for x in f.filter)
    return True  # default: nothing checked (dilation never is)


#: What each specialization asks of a problem, for messages (values.toml ``needs``).
SPECIALIZATION_NEEDS = value_facts("specialization", "needs")


def split_k_is_one(variant, f, arch, dtype) -> bool:
    return f.split_k == 1


def explicit_gemm_needs_1x1(explicit_gemm, spec, f, arch, dtype) -> bool:
    return not explicit_gemm or spec == "filter1x1_stride1_pad0"


def fwd_vector_a(groups_to_merge, vector_a, f, arch, dtype) -> bool:
    return groups_to_merge != 1 or f.c_per_group % vector_a == 0


def fwd_merge_groups(groups_to_merge, f, arch, dtype) -> bool:
    return groups_to_merge == 1 or (f.c_per_group == 1 and f.G % groups_to_merge == 0)


def c_multiple_of(vector, f, arch, dtype) -> bool:
    return f.c_per_group % vector == 0


def k_multiple_of(vector, f, arch, dtype) -> bool:
    return f.k_per_group % vector == 0


def fwd_vector_c(groups_to_merge, vector_c, f, arch, dtype) -> bool:
    if f.k_per_group % vector_c == 0:
        return True
    return groups_to_merge > 1 and f.G % groups_to_merge == 0 and f.G % vector_c == 0


def depthwise_fits(filt, str_h, str_w, pad_h, pad_w, nbatch, f, arch, dtype) -> bool:
    return (f.ndim == 2 and f.c_per_group == 1 and f.k_per_group == 1
            and f.filter == (filt, filt) and f.stride == (str_h, str_w)
            and f.dilation == (1, 1) and f.pad == (pad_h, pad_w) and f.N % nbatch == 0)


def bwd_data_split_k(vector_c, f, arch, dtype) -> bool:
    return f.split_k >= 1 and (f.split_k == 1 or vector_c % 2 == 0 or dtype not in HALF_TYPES)


def bwd_data_gemm_count(variant, f, arch, dtype) -> bool:
    return f.gemm_count <= MAX_BWD_DATA_GEMMS


def no_explicit_gemm(explicit_gemm, f, arch, dtype) -> bool:
    return not explicit_gemm


def streamk_fits(streamk, f, arch, dtype) -> bool:
    return not streamk or (arch in STREAMK_ARCHS and f.split_k == 1)


def split_k_positive(variant, f, arch, dtype) -> bool:
    return f.split_k >= 1


def compv6_prefetch(pipeline, tile_k, f, arch, dtype) -> bool:
    return pipeline != "compv6" or ceil(f.gemm_k / (f.split_k * tile_k)) >= COMPV6_MIN_K_ITERATIONS


def bwd_weight_split_k_limit(two_stage, f, arch, dtype) -> bool:
    return two_stage or dtype not in HALF_TYPES or f.split_k <= MAX_HALF_SPLIT_K


def bwd_weight_odd_vector_c(vector_c, two_stage, f, arch, dtype) -> bool:
    return two_stage or vector_c % 2 == 0 or dtype not in HALF_TYPES or f.split_k == 1


def bwd_weight_split_k_warp_tile(streamk, warp_tile_k, f, arch, dtype) -> bool:
    return streamk or ceil(f.gemm_k / warp_tile_k) >= f.split_k


def bwd_weight_merge_groups(groups_to_merge, f, arch, dtype) -> bool:
    return groups_to_merge == 1 or f.G % groups_to_merge == 0


def details(*args) -> dict:
    """Message fields: the problem facts (tuples as 3x3) and what a specialization needs."""
    *values, f, arch, dtype = args
    fields = {k: ("x".join(map(str, v)) if isinstance(v, tuple) else v) for k, v in f._asdict().items()}
    fields["problem_ndim"] = fields.pop("ndim")  # "ndim" stays the kernel's
    for v in values:
        if v in SPECIALIZATION_NEEDS:
            fields["need"] = SPECIALIZATION_NEEDS[v]
    return fields
