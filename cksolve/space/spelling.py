"""Kernel names as CK spells them, from a config's fields.

Split from :mod:`.naming` (which parses names back into configs) so that the
config classes can name themselves without an import cycle: ``config`` imports
this module, ``naming`` imports both.
"""

from __future__ import annotations


from .axes import AXES, kind_fields
from .memos import MEMOS
from .values import value_facts
from .variants import VARIANTS

__all__ = ["gemm_name", "depthwise_name", "clear_name_memos", "VARIANT_TAG", "DEPTHWISE_PREFIX", "DEFAULT_VECTORS", "GEMM_FIELDS",
           "GEMM_HEAD_AXES", "GEMM_GROUP_AXES", "GEMM_TAIL_PARTS", "spell_gemm_values", "spell_gemm_head", "SPECIALIZATION_SUFFIX", "STREAMK_WORD"]

#: GEMM variant as it appears in a kernel name (variants.toml ``tag``).
VARIANT_TAG = {n: v.tag for n, v in VARIANTS.items() if v.kind == "gemm"}
#: Prefix of every depthwise kernel name.
DEPTHWISE_PREFIX = f"grouped_conv_{VARIANTS['forward_depthwise'].tag}_"

#: Vector sizes a name leaves out (the axes' defaults).
DEFAULT_VECTORS = tuple(AXES[a].default_for("gemm") for a in ("vector_a", "vector_b", "vector_c"))
#: Kernel-name suffix per specialization ("" for none) and word per stream-K strategy (values.toml).
SPECIALIZATION_SUFFIX = {v: f"_{n}" if n else "" for v, n in value_facts("specialization", "name").items()}
STREAMK_WORD = value_facts("streamk_strategy", "name")
#: Wave groups and merged groups a name leaves out (the axes' defaults; a flag's default is false: "_dsb" etc.).
DEFAULT_WAVE_GROUPS = AXES["wave_groups"].default_for("gemm")
DEFAULT_GROUPS_TO_MERGE = AXES["groups_to_merge"].default_for("gemm")

#: ``KernelConfig``'s fields in order (kinds.toml): ``gemm_name`` passes a config's values positionally
#: (40k names per full run) to ``_spell_gemm``, whose parameters are checked against these at import.
GEMM_FIELDS = kind_fields("gemm")

#: The fields ``gemm_name`` always writes, before any optional part: a name is the *head* these spell
#: (with every other field at its default the name is the head alone) followed by a *tail* spelled by the
#: other fields only. Listing in name order renders each once (``solver.listing.stream``; tested on random configs).
GEMM_HEAD_AXES = ("variant", "dtype", "layout", "ndim", "pipeline", "epilogue", "scheduler", "tile_m", "tile_n",
                  "tile_k", "wave_m", "wave_n", "wave_k", "warp_tile_m", "warp_tile_n", "warp_tile_k")
#: The leading head fields a combination can leave free (variant, dtype and ndim are the combination's), each
#: followed by ``_`` in the name: listing goes one value of them at a time.
GEMM_GROUP_AXES = ("layout", "pipeline", "epilogue", "scheduler")
#: Leading parts of a name's tail: each part's text depends on its fields alone and comes before the rest of the
#: tail, so a tail is each part's text (every other tail field at its default) and then the rest's. Listing a
#: whole space renders each part once (``solver.listing.stream``: a head there takes a million tails; tested on random
#: configs).
GEMM_TAIL_PARTS = (("vector_a", "vector_b", "vector_c"),)

# Names are asked for many times per config (sorting, emission, diffing); a
# config is an immutable tuple, so its name is memoised on it.
@MEMOS.cached("space.spelling.gemm_name", maxsize=1 << 17)
def gemm_name(c) -> str:
    return _spell_gemm(*c)  # positionally: the parameters are the fields in order (checked below)


def _gemm_speller(head, tail):
    """A GEMM name from its field values (positionally, in field order) as ``head(...) + tail(...)``."""
    def spell(variant, dtype, ndim, tile_m, tile_n, tile_k, wave_m, wave_n, wave_k, warp_tile_m, warp_tile_n,
              warp_tile_k, pipeline, epilogue, scheduler, layout, vector_a, vector_b, vector_c, pad_m, pad_n, pad_k,
              double_smem_buffer, groups_to_merge, wave_groups, split_image, explicit_gemm, two_stage,
              specialization, streamk, streamk_strategy, streamk_persistent) -> str:
        return head(variant, dtype, layout, ndim, pipeline, epilogue, scheduler, tile_m, tile_n, tile_k, wave_m,
                    wave_n, wave_k, warp_tile_m, warp_tile_n, warp_tile_k) + \
            tail(vector_a, vector_b, vector_c, wave_groups, groups_to_merge, double_smem_buffer, two_stage,
                 specialization, explicit_gemm, streamk, streamk_strategy, streamk_persistent, split_image, pad_m,
                 pad_n, pad_k)
    return spell


@MEMOS.cached("space.spelling.gemm_tail", maxsize=1 << 12)
def _gemm_tail(vector_a, vector_b, vector_c, wave_groups, groups_to_merge, double_smem_buffer, two_stage,
               specialization, explicit_gemm, streamk, streamk_strategy, streamk_persistent, split_image, pad_m, pad_n,
               pad_k) -> str:
    """What a name adds to its head: the optional parts, each empty at its default (few distinct: rendered once)."""
    name = ""
    if (vector_a, vector_b, vector_c) != DEFAULT_VECTORS:
        name += f"_vec{vector_a}_{vector_b}_{vector_c}"
    if wave_groups != DEFAULT_WAVE_GROUPS:
        name += f"_wg{wave_groups}"
    if groups_to_merge != DEFAULT_GROUPS_TO_MERGE:
        name += f"_gm{groups_to_merge}"
    if double_smem_buffer:
        name += "_dsb"
    if two_stage:
        name += "_2stage"
    name += SPECIALIZATION_SUFFIX[specialization]
    if explicit_gemm:
        name += "_explicit_gemm"
    if streamk:
        name += f"_streamk_{STREAMK_WORD[streamk_strategy]}"
        if streamk_persistent:
            name += "_persistent"
    if split_image:
        name += "_large_tensor"
    if not (pad_m and pad_n and pad_k):
        name += f"_pad{int(pad_m)}{int(pad_n)}{int(pad_k)}"
    return name


# A name's head is most of its text and shared by every config that differs only in the tail (vectors,
# specialization, feature flags): rendered once per head (sixteen values formatted: two thirds of a name's cost),
# bounded, as listings stream millions of names through it.
@MEMOS.cached("space.spelling.gemm_head", maxsize=1 << 14)
def _gemm_head(variant, dtype, layout, ndim, pipeline, epilogue, scheduler, tile_m, tile_n, tile_k, wave_m, wave_n,
               wave_k, warp_tile_m, warp_tile_n, warp_tile_k) -> str:
    return (f"grouped_conv_{VARIANT_TAG[variant]}_{dtype}_{layout}_{ndim}d_{pipeline}_{epilogue}_{scheduler}"
            f"_{tile_m}x{tile_n}x{tile_k}_{wave_m}x{wave_n}x{wave_k}_{warp_tile_m}x{warp_tile_n}x{warp_tile_k}")


# Names of configs (``gemm_name``, listings) share heads and tails, rendered once each through the memos; a draw
# from a whole space meets a head once (a million draws: two memo misses and evictions each, 2 s, measured),
# so the values speller renders both parts directly.
_spell_gemm = _gemm_speller(_gemm_head, _gemm_tail)
#: A GEMM name from its field values, positionally in field order: no config and no memo entry (many names at
#: once, each met once).
spell_gemm_values = _gemm_speller(_gemm_head.__wrapped__, _gemm_tail.__wrapped__)
#: A GEMM name's head from its head values, positionally in ``GEMM_HEAD_AXES`` order (no memo entry): the name of
#: those values with every other field at its default.
spell_gemm_head = _gemm_head.__wrapped__


@MEMOS.cached("space.spelling.depthwise_name", maxsize=1 << 12)
def depthwise_name(c) -> str:
    return _spell_depthwise(*c)  # positionally, as gemm_name (checked below)


def _spell_depthwise(dtype, ndim, tile_h, tile_w, filt, str_h, str_w, pad_h, pad_w, nbatch, sub_h, sub_w, in_vec,
                     out_vec, layout, variant) -> str:
    return (
        f"{DEPTHWISE_PREFIX}{dtype}_{layout}_{ndim}d"
        f"_{tile_h}x{tile_w}_f{filt}_s{str_h}x{str_w}_p{pad_h}x{pad_w}"
        f"_nb{nbatch}_sub{sub_h}x{sub_w}_vec{in_vec}_{out_vec}"
    )


def clear_name_memos() -> None:
    """Empty the name memos (GEMM and depthwise). A streamed listing or a long draw asks each name once: the
    memos would only hold memory (2^17 GEMM names, about 60 MB); called per block (names are recomputed,
    never wrong)."""
    gemm_name.cache_clear()
    depthwise_name.cache_clear()


# A name is spelled from a config's values in field order, so a plain tuple of them is named as the config is
# (and hits the same memo entry: equal tuples): listing names forms no config (``solver.listing.combos``).
for _spell, _kind, _what in ((_spell_gemm, "gemm", "_spell_gemm"), (_spell_depthwise, "depthwise", "_spell_depthwise")):
    _code = _spell.__code__
    if _code.co_varnames[:_code.co_argcount] != kind_fields(_kind):  # pragma: no cover - kinds.toml's order moved
        raise ImportError(f"kinds.toml [{_kind}] fields and spelling.{_what}'s parameters differ: keep them in step")
del _spell, _kind, _what, _code
