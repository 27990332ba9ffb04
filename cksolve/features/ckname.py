"""A kernel as CK's ML tooling sees it: its dispatcher name, and what CK's parser reads back.

CK benchmarks kernels under the dispatcher's short names
(``grouped_conv_forward_bf16_2d_128x64x64_compv3_intrawave_dsb``) and recovers
the kernel features from them with a regular expression. The name omits the
wave split, warp tile, vectors and epilogue, and the parser maps the tile's
three numbers to block_size, gemm_m_per_block and gemm_n_per_block. A name
with a suffix its grammar does not expect (``_gm8``, ``_2stage``) or a pipeline
it does not list (wavelet) goes to its fallback, which keeps only the first
``_compv<n>``, ``_mem`` or ``_async`` found anywhere in the name as the
pipeline; the engine's defaults fill in the rest. Reproducing that reading is
what lets ``--semantics ck`` feed CK's trained models what they were trained on.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..space.config import KernelConfig
from ..space.memos import MEMOS
from ..space.pipelines import PIPELINES
from ..space.variants import VARIANTS
from .spec import ENGINE

__all__ = ["CkReading", "dispatcher_name", "read_name", "ck_fields", "read_short"]


class CkReading(NamedTuple):
    """The kernel fields CK's parser recovers from a name (its own field names)."""

    block_size: int
    gemm_m_per_block: int
    gemm_n_per_block: int
    pipeline: str
    wave_mode: str
    has_dsb: int
    has_si: int


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


def _grammar(variants: str, ndims: str, pipelines: str, every_suffix: bool) -> re.Pattern:
    """The short name's grammar, the one statement of it (``dispatcher_name`` writes its parts in this order):
    ``grouped_conv_{variant}_{dtype}_{n}d_{m}x{n}x{k}_{pipeline}[_{scheduler}][_gm{g}][_dsb][_si][_2stage]``,
    read with the given alternatives; without ``every_suffix`` it has no ``_gm{g}`` and ``_2stage`` (CK's parser)."""
    gm, two = (r"(?:_gm(?P<gm>\d+))?", r"(?P<two>_2stage)?") if every_suffix else ("", "")
    return re.compile(rf"grouped_conv_(?P<variant>{variants})_(?P<dtype>[a-z0-9]+)_(?P<ndim>{ndims})d_"
                      rf"(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)_(?P<pipeline>{pipelines})"
                      rf"(?:_(?P<scheduler>intrawave|interwave))?{gm}(?P<dsb>_dsb)?(?P<si>_si)?{two}$")


@MEMOS.cached("features.ckname._ck_grammar", maxsize=1)
def _ck_grammar() -> re.Pattern:
    """CK's parser's reading: any variant, any ndim, the pipelines its list names, no ``_gm``/``_2stage``."""
    return _grammar("[a-z_]+", r"\d+", "|".join(ENGINE["name_pipelines"]), False)


@MEMOS.cached("features.ckname._full_grammar", maxsize=1)
def _full_grammar() -> re.Pattern:
    """Every name of the grammar: cksolve's variants and pipelines (longest first), every suffix."""
    variants = "|".join(sorted(VARIANTS, key=len, reverse=True))
    pipelines = "|".join(sorted(PIPELINES, key=len, reverse=True))
    return _grammar(variants, "[123]", pipelines, True)


def read_name(name: str) -> CkReading | None:
    """What CK's parser reads from ``name``; None when the name does not match its grammar."""
    m = _ck_grammar().match(name)
    if m is None:
        return None
    g = m.group
    return CkReading(int(g("m")), int(g("n")), int(g("k")), g("pipeline"), g("scheduler") or "intrawave",
                     int(g("dsb") is not None), int(g("si") is not None))


def read_short(name: str) -> tuple | None:
    """Every field of a short name (the suffixes CK's parser drops too): (variant, dtype, ndim, tile_m, tile_n,
    tile_k, pipeline, scheduler, groups_to_merge, double_smem_buffer, split_image, two_stage); None when
    ``name`` is not one."""
    m = _full_grammar().match(name)
    if m is None:
        return None
    g = m.group
    return (g("variant"), g("dtype"), int(g("ndim")), int(g("m")), int(g("n")), int(g("k")), g("pipeline"),
            g("scheduler") or "intrawave", int(g("gm") or 1), g("dsb") is not None, g("si") is not None,
            g("two") is not None)


@MEMOS.cached("features.ckname._fallback", maxsize=1)
def _fallback() -> re.Pattern:
    return re.compile(ENGINE["fallback_pipeline"])


def ck_fields(name: str) -> CkReading:
    """The kernel fields CK's engine computes with for ``name``: the grammar's reading, or for a name
    the grammar cannot read the fallback's pipeline (if it finds one) and the engine's defaults."""
    r = read_name(name)
    if r is not None:
        return r
    d = ENGINE["defaults"]
    m = _fallback().search(name)
    return CkReading(d["block_size"], d["gemm_m_per_block"], d["gemm_n_per_block"],
                     m.group(1) if m else d["pipeline"], d["wave_mode"], d["has_dsb"], d["has_si"])
