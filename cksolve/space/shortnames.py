"""The dispatcher's short kernel names (``grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave``): the grammar.

CK's dispatcher, its tile-engine benchmark and the benchmark CSVs name a GEMM
kernel by a short name that omits the wave split, warp tile, vectors and
epilogue. The grammar is stated here once, at the bottom of the package, so
that the measurement reader (``workload.labels``) and CK's feature parser
(``features.ckname``) read the same names.
"""

from __future__ import annotations

import re

from .config import KernelConfig
from .memos import MEMOS
from .pipelines import PIPELINES
from .variants import VARIANTS

__all__ = ["dispatcher_name", "short_grammar", "read_short"]


def dispatcher_name(config: KernelConfig) -> str:
    """The name CK's dispatcher (and its benchmark CSVs) give the kernel."""
    parts = [f"grouped_conv_{config.variant}_{config.dtype}_{config.ndim}d",
             f"{config.tile_m}x{config.tile_n}x{config.tile_k}", config.pipeline, config.scheduler]
    if config.groups_to_merge != 1:
        parts.append(f"gm{config.groups_to_merge}")
    if config.double_smem_buffer:
        parts.append("dsb")
    if config.split_image:
        parts.append("si")
    if config.two_stage:
        parts.append("2stage")
    return "_".join(parts)


def short_grammar(variants: str, ndims: str, pipelines: str, every_suffix: bool) -> re.Pattern:
    """The short name's grammar, the one statement of it (``dispatcher_name`` writes its parts in this order):
    ``grouped_conv_{variant}_{dtype}_{n}d_{m}x{n}x{k}_{pipeline}[_{scheduler}][_gm{g}][_dsb][_si][_2stage]``,
    read with the given alternatives; without ``every_suffix`` it has no ``_gm{g}`` and ``_2stage`` (CK's parser)."""
    gm, two = (r"(?:_gm(?P<gm>\d+))?", r"(?P<two>_2stage)?") if every_suffix else ("", "")
    return re.compile(rf"grouped_conv_(?P<variant>{variants})_(?P<dtype>[a-z0-9]+)_(?P<ndim>{ndims})d_"
                      rf"(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)_(?P<pipeline>{pipelines})"
                      rf"(?:_(?P<scheduler>intrawave|interwave))?{gm}(?P<dsb>_dsb)?(?P<si>_si)?{two}$")


@MEMOS.cached("space.shortnames._full_grammar", maxsize=1)
def _full_grammar() -> re.Pattern:
    """Every name of the grammar: cksolve's variants and pipelines (longest first), every suffix."""
    variants = "|".join(sorted(VARIANTS, key=len, reverse=True))
    pipelines = "|".join(sorted(PIPELINES, key=len, reverse=True))
    return short_grammar(variants, "[123]", pipelines, True)


def read_short(name: str) -> tuple | None:
    """Every field of a short name (the suffixes CK's parser drops too): (variant, dtype, ndim, tile_m, tile_n,
    tile_k, pipeline, scheduler, groups_to_merge, double_smem_buffer, split_image, two_stage); None when
    ``name`` is not one (no scheduler token: intrawave)."""
    m = _full_grammar().match(name)
    if m is None:
        return None
    g = m.group
    return (g("variant"), g("dtype"), int(g("ndim")), int(g("m")), int(g("n")), int(g("k")), g("pipeline"),
            g("scheduler") or "intrawave", int(g("gm") or 1), g("dsb") is not None, g("si") is not None,
            g("two") is not None)
