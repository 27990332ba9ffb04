"""Kernel variants as data: one table per variant in ``variants.toml``.

A variant's facts -- its tag in kernel names, the kind of config it takes, the
arch filter's operator tile rules, whether stream-K exists for it, and the C++
spellings of its kernel -- used to be spread over naming, the arch rules, the
renderer and the workload module. They are read from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from .datafile import load

__all__ = ["Variant", "VARIANTS", "variants_with"]


@dataclass(frozen=True)
class Variant:
    """One convolution variant of variants.toml: its config kind, name tag, direction and CK facts."""

    name: str
    kind: str                             # "gemm" or "depthwise": which config class
    tag: str                              # grouped_conv_<tag>_... in kernel names
    direction: str                        # the convolution direction it runs
    label: str                            # in generated headers' comments
    operator: str = ""                    # arch filter operator (GEMM variants)
    tile_min: tuple[int, ...] = ()        # minimum tile M, N, K
    tile_align: tuple[int, ...] = ()      # tile M, N, K alignment
    backward: bool = False
    streamk: bool = False
    two_stage: bool = False
    registers_as: str = ""                # the variant whose dispatcher entry it uses ("" = its own)
    cpp: Mapping[str, str] = field(default_factory=dict)

    @property
    def dispatch(self) -> "Variant":
        """The variant whose C++ spellings the dispatcher wrapper uses."""
        return VARIANTS[self.registers_as] if self.registers_as else self


_SCHEMA = {"*": {"kind": str, "tag": str, "direction": str, "label": str, "operator?": str, "tile_min?": [int],
                 "tile_align?": [int], "backward?": bool, "streamk?": bool, "two_stage?": bool, "registers_as?": str,
                 "cpp?": {"*": str}}}


def _load() -> Mapping[str, Variant]:
    raw = load(__package__, "variants.toml", _SCHEMA)
    out = {}
    for name, spec in raw.items():
        spec = {k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()}
        spec["cpp"] = MappingProxyType(dict(spec.get("cpp", {})))
        try:
            out[name] = Variant(name=name, **spec)
        except TypeError as exc:  # a missing or unknown field: say which variant
            raise ValueError(f"variants.toml [{name}]: {exc}") from None
    return MappingProxyType(out)


#: Every variant, in the order of the ``variant`` axis domain.
VARIANTS: Mapping[str, Variant] = _load()


def variants_with(flag: str) -> tuple[str, ...]:
    """Names of the variants whose boolean fact ``flag`` is true, in domain order."""
    return tuple(n for n, v in VARIANTS.items() if getattr(v, flag))
