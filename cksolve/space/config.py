"""Kernel configurations: one point of the space each.

A config is an immutable value: two configs with equal fields are the same
kernel and have the same name. They are named tuples rather than dataclasses
because solvers build tens of thousands of them (measured: 3 us per config
against 22 us for a frozen 32-field dataclass). ``KernelConfig`` covers the implicit-GEMM kernels
(forward, bwd_data, bwd_weight); ``DepthwiseConfig`` the direct depthwise
forward kernel, which has its own parameters and its own naming scheme.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Union

from .axes import kind_defaults, kind_fields
from .pipelines import double_buffered
from .spelling import depthwise_name as _depthwise_name, gemm_name as _gemm_name

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


def _config_tuple(cls_name: str, kind: str):
    """The named tuple of a kind's config: kinds.toml's field order, axes.toml's defaults (the one schema)."""
    fields, defaults = kind_fields(kind), kind_defaults(kind)
    tail = fields[len(fields) - len(defaults):]
    if set(tail) != set(defaults):  # pragma: no cover - a data error: kinds.toml must list defaulted fields last
        raise ImportError(f"kinds.toml [{kind}]: the fields with a default ({', '.join(defaults)}) must come last")
    return namedtuple(cls_name, fields, defaults=[defaults[f] for f in tail])


class KernelConfig(_config_tuple("KernelConfig", "gemm")):
    """An implicit-GEMM grouped-convolution kernel (forward, bwd_data, bwd_weight).

    Its fields are the GEMM kind's axes (kinds.toml ``[gemm] fields``, in that
    order), each defaulting as axes.toml says.
    """

    __slots__ = ()
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


class DepthwiseConfig(_config_tuple("DepthwiseConfig", "depthwise")):
    """A direct depthwise forward kernel (CK's ``DepthwiseConvKernelConfig``); fields: kinds.toml ``[depthwise]``."""

    __slots__ = ()
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
