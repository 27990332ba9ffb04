"""A kernel as CK's ML tooling sees it: its dispatcher name, and what CK's parser reads back.

The short names' grammar and ``dispatcher_name`` are ``space.shortnames``' (re-exported here).

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

Measurement files name a kernel in either spelling CK writes (``read_kernel_name``):
the short name, or the full name cksolve's files and CK's generated instances use,
which parses to a ``KernelConfig``. CK's own parser (``convert_csv_to_parquet.py``)
knows no ``_gm<g>``, ``_2stage`` or ``wavelet`` and drops those rows from training;
here every name of the grammar is read, and a name that is neither spelling is one error.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..errors import CksolveError, shorten
from ..space.config import KernelConfig
from ..space.memos import MEMOS
from ..space.naming import parse_name
from ..space.shortnames import dispatcher_name, read_short, short_grammar
from .spec import ENGINE

__all__ = ["CkReading", "dispatcher_name", "read_name", "ck_fields", "read_short", "ShortName", "KernelName",
           "read_kernel_name", "short_reading", "config_short"]


class CkReading(NamedTuple):
    """The kernel fields CK's parser recovers from a name (its own field names)."""

    block_size: int
    gemm_m_per_block: int
    gemm_n_per_block: int
    pipeline: str
    wave_mode: str
    has_dsb: int
    has_si: int


@MEMOS.cached("features.ckname._ck_grammar", maxsize=1)
def _ck_grammar() -> re.Pattern:
    """CK's parser's reading: any variant, any ndim, the pipelines its list names, no ``_gm``/``_2stage``."""
    return short_grammar("[a-z_]+", r"\d+", "|".join(ENGINE["name_pipelines"]), False)


def read_name(name: str) -> CkReading | None:
    """What CK's parser reads from ``name``; None when the name does not match its grammar."""
    m = _ck_grammar().match(name)
    if m is None:
        return None
    g = m.group
    return CkReading(int(g("m")), int(g("n")), int(g("k")), g("pipeline"), g("scheduler") or "intrawave",
                     int(g("dsb") is not None), int(g("si") is not None))


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


class ShortName(NamedTuple):
    """What the dispatcher's short name says of a kernel (every field, the suffixes CK's parser drops too)."""

    variant: str
    dtype: str
    ndim: int
    tile_m: int
    tile_n: int
    tile_k: int
    pipeline: str
    scheduler: str
    groups_to_merge: int
    double_smem_buffer: bool
    split_image: bool
    two_stage: bool


class KernelName(NamedTuple):
    """A measured kernel: its short reading (always) and its exact config (full names only)."""

    name: str
    short: ShortName
    config: KernelConfig | None


def config_short(c: KernelConfig) -> ShortName:
    """The short name's fields of a config."""
    return ShortName(c.variant, c.dtype, c.ndim, c.tile_m, c.tile_n, c.tile_k, c.pipeline, c.scheduler,
                     c.groups_to_merge, bool(c.double_smem_buffer), bool(c.split_image), bool(c.two_stage))


def read_kernel_name(name: str, where: str = "") -> KernelName:
    """The kernel ``name`` (short or full spelling); a CksolveError naming ``where`` when it is neither."""
    fields = read_short(name)
    if fields is not None:
        return KernelName(name, ShortName(*fields), None)
    try:
        config = parse_name(name)
    except CksolveError:
        config = None
    if not isinstance(config, KernelConfig):
        prefix = f"{where}: " if where else ""
        raise CksolveError(f"{prefix}kernel {shorten(name, 120)} is neither a dispatcher short name "
                           f"(grouped_conv_<variant>_<dtype>_<n>d_<m>x<n>x<k>_<pipeline>_<scheduler>...) nor a "
                           f"full GEMM kernel name")
    return KernelName(name, config_short(config), config)


def short_reading(s: ShortName) -> CkReading:
    """CK's field mapping of the name (block_size = tile_m, gemm_m = tile_n, gemm_n = tile_k), every name read."""
    return CkReading(s.tile_m, s.tile_n, s.tile_k, s.pipeline, s.scheduler, int(s.double_smem_buffer),
                     int(s.split_image))
