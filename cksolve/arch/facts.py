"""Per-architecture facts, loaded from ``facts.toml``.

Facts are data; the constraints in :mod:`cksolve.arch.constraints` are built
from them. Adding a gfx target is a new table in the TOML file.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from ..space.datafile import load
from ..space.memos import MEMOS
from ..space.values import value_facts

__all__ = ["ArchFacts", "CommonFacts", "ARCHS", "arch_facts", "archs_with", "common_facts", "UnknownArch"]


class UnknownArch(ValueError):
    pass


@dataclass(frozen=True)
class CommonFacts:
    element_size: Mapping[str, int]
    accumulator: Mapping[str, str]

    def dtype_key(self, dtype: str) -> str:
        """Key of the warp-tile tables: ``A_B_Acc`` (e.g. ``fp16_fp16_fp32``)."""
        return f"{dtype}_{dtype}_{self.accumulator[dtype]}"


@dataclass(frozen=True)
class ArchFacts:
    name: str
    family: str
    warp_size: int
    wave_splits: tuple[tuple[int, int, int], ...]
    warp_tiles: Mapping[str, tuple[tuple[int, int, int], ...]]
    cu_count: int | None = None  # compute units of the arch's reference part; None where no source gives one
    hw_profile: Mapping[str, int] | None = None  # CK's ML-selector hardware profile; None where CK has none
    streamk_bwd_weight: bool = False  # CK Tile's stream-K backward-weight path runs here
    async_copy: bool = False  # Async (async-copy) pipelines run here

    @property
    def is_wave32(self) -> bool:
        return self.warp_size == 32


_TRIPLES = [[int]]
_SCHEMA = {"*": {"family": str, "warp_size": int, "wave_splits": _TRIPLES, "warp_tiles": {"*": _TRIPLES},
                 "cu_count?": int, "hw_profile?": {"*": (int, float)}, "streamk_bwd_weight?": bool,
                 "async_copy?": bool}}


@MEMOS.cached("arch.facts._raw", maxsize=1)
def _raw() -> dict:
    return load(__package__, "facts.toml", _SCHEMA)


@MEMOS.cached("arch.facts.common_facts", maxsize=1)
def common_facts() -> CommonFacts:
    """Facts of the dtypes every arch shares (their tables are in ``space/values.toml``)."""
    return CommonFacts(
        element_size=MappingProxyType(value_facts("dtype", "element_size")),
        accumulator=MappingProxyType(value_facts("dtype", "accumulator")),
    )


#: Supported architectures, in the order of the facts file.
ARCHS: tuple[str, ...] = tuple(_raw())


@MEMOS.cached("arch.facts.arch_facts")
def arch_facts(arch: str) -> ArchFacts:
    raw = _raw()
    if arch not in ARCHS:
        raise UnknownArch(f"unknown arch {arch!r}; valid: {', '.join(ARCHS)}")
    a = raw[arch]
    return ArchFacts(
        name=arch,
        family=a["family"],
        warp_size=a["warp_size"],
        wave_splits=tuple(tuple(w) for w in a["wave_splits"]),
        warp_tiles=MappingProxyType({k: tuple(tuple(t) for t in v) for k, v in a["warp_tiles"].items()}),
        cu_count=a.get("cu_count"),
        hw_profile=MappingProxyType(dict(a["hw_profile"])) if "hw_profile" in a else None,
        streamk_bwd_weight=a.get("streamk_bwd_weight", False),
        async_copy=a.get("async_copy", False),
    )


def archs_with(flag: str) -> tuple[str, ...]:
    """The archs whose boolean fact ``flag`` is true, in facts-file order."""
    return tuple(a for a in ARCHS if getattr(arch_facts(a), flag))
