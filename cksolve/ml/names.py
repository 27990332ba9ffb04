"""Kernel names in measurement files, in either spelling CK writes, read into what a feature row needs.

CK's tile-engine benchmark names a kernel by the dispatcher's short name
(``grouped_conv_forward_bf16_2d_64x128x64_compv3_intrawave_dsb``; its grammar is
``features.ckname``'s, which writes the name and reads it both as CK's parser does and in full);
cksolve's files and CK's generated instances use the full name, which parses to a
``KernelConfig``. CK's own parser (``convert_csv_to_parquet.py``) knows no
``_gm<g>``, ``_2stage`` or ``wavelet`` and drops those rows from training; here
every name of the grammar is read, and a name that is neither spelling is one error.
"""

from __future__ import annotations

from typing import NamedTuple

from ..errors import CksolveError, shorten
from ..features.ckname import CkReading, read_short
from ..space.config import KernelConfig
from ..space.naming import parse_name

__all__ = ["ShortName", "KernelName", "read_kernel_name", "short_reading", "config_short"]


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
