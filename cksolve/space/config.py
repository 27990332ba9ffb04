"""Kernel configurations: one point of the space each.

A config is an immutable value: two configs with equal fields are the same
kernel and have the same name. They are named tuples rather than dataclasses
because solvers build tens of thousands of them (measured: 3 us per config
against 22 us for a frozen 32-field dataclass). ``KernelConfig`` covers the implicit-GEMM kernels
(forward, bwd_data, bwd_weight); ``DepthwiseConfig`` the direct depthwise
forward kernel, which has its own parameters and its own naming scheme.
"""

from __future__ import annotations

from typing import NamedTuple, Union

from .axes import kind_axes, kind_defaults
from .pipelines import double_buffered
from .spelling import GEMM_FIELDS, depthwise_name as _depthwise_name, gemm_name as _gemm_name

__all__ = [
    "KernelConfig",
    "DepthwiseConfig",
    "AnyConfig",
    "block_per_cu",
    "config_fields",
]


def block_per_cu(pipeline: str, double_smem_buffer: bool) -> int:
    """Minimum blocks per CU, from the LDS buffering as CK's ``deduce_block_per_cu`` derives it.

    Double-buffered pipelines get one block per CU so the compiler may use every
    register; single-buffered ones the CK Tile default 2. Where the pipeline does
    not fix the buffering (``lds_buffering = "configurable"``), the config does.
    """
    return 1 if double_buffered(pipeline, double_smem_buffer) else 2


class KernelConfig(NamedTuple):
    """An implicit-GEMM grouped-convolution kernel (forward, bwd_data, bwd_weight)."""

    variant: str
    dtype: str
    ndim: int
    tile_m: int
    tile_n: int
    tile_k: int
    wave_m: int
    wave_n: int
    wave_k: int
    warp_tile_m: int
    warp_tile_n: int
    warp_tile_k: int
    pipeline: str
    epilogue: str
    scheduler: str
    layout: str = "nhwgc"
    vector_a: int = 4
    vector_b: int = 8
    vector_c: int = 8
    pad_m: bool = True
    pad_n: bool = True
    pad_k: bool = True
    double_smem_buffer: bool = False
    groups_to_merge: int = 1
    wave_groups: int = 1
    split_image: bool = False
    explicit_gemm: bool = False
    two_stage: bool = False
    specialization: str = "default"
    streamk: bool = False
    streamk_strategy: str = "tree"
    streamk_persistent: bool = False

    kind = "gemm"

    @property
    def block_per_cu(self) -> int:
        return block_per_cu(self.pipeline, self.double_smem_buffer)

    def name(self) -> str:
        return _gemm_name(self)

    def as_dict(self) -> dict:
        return self._asdict()

    def replace(self, **changes) -> "KernelConfig":
        return self._replace(**changes)


class DepthwiseConfig(NamedTuple):
    """A direct depthwise forward kernel (CK's ``DepthwiseConvKernelConfig``)."""

    dtype: str
    ndim: int
    tile_h: int
    tile_w: int
    filt: int
    str_h: int
    str_w: int
    pad_h: int
    pad_w: int
    nbatch: int
    sub_h: int
    sub_w: int
    in_vec: int
    out_vec: int
    layout: str = "ngchw"
    variant: str = "forward_depthwise"

    kind = "depthwise"
    # Fixed by the kernel, not choices: CK always emits these values.
    block_size = 64
    dil_h = 1
    dil_w = 1

    def name(self) -> str:
        return _depthwise_name(self)

    def as_dict(self) -> dict:
        return self._asdict()

    def replace(self, **changes) -> "DepthwiseConfig":
        return self._replace(**changes)


AnyConfig = Union[KernelConfig, DepthwiseConfig]


def config_fields(cls) -> tuple[str, ...]:
    """Field names of a config class, in declaration order."""
    return cls._fields


if KernelConfig._fields != GEMM_FIELDS:  # pragma: no cover - guards gemm_name's positional unpacking
    raise ImportError("KernelConfig fields changed: update spelling.GEMM_FIELDS and spelling.gemm_name")
# The schema is axes.toml's: the same axes and the same defaults (a new axis fails here until both agree).
for _cls in (KernelConfig, DepthwiseConfig):
    if set(_cls._fields) != set(kind_axes(_cls.kind)) or _cls._field_defaults != kind_defaults(_cls.kind):
        raise ImportError(f"{_cls.__name__} does not match axes.toml: fields {sorted(_cls._fields)} "  # pragma: no cover
                          f"defaults {_cls._field_defaults} vs {kind_defaults(_cls.kind)}")
