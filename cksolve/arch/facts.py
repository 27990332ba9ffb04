"""Per-architecture facts, loaded from ``facts.toml``.

Facts are data; the constraints in :mod:`cksolve.arch.constraints` are built
from them. Adding a gfx target is a new table in the TOML file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Mapping

__all__ = ["ArchFacts", "CommonFacts", "ARCHS", "arch_facts", "common_facts", "UnknownArch"]


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

    @property
    def is_wave32(self) -> bool:
        return self.warp_size == 32


@lru_cache(maxsize=1)
def _raw() -> dict:
    text = resources.files(__package__).joinpath("facts.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@lru_cache(maxsize=1)
def common_facts() -> CommonFacts:
    c = _raw()["common"]
    return CommonFacts(
        element_size=MappingProxyType(dict(c["element_size"])),
        accumulator=MappingProxyType(dict(c["accumulator"])),
    )


#: Supported architectures, in the order of the facts file.
ARCHS: tuple[str, ...] = tuple(k for k in _raw() if k != "common")


@lru_cache(maxsize=None)
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
    )
