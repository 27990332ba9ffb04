"""Per-architecture facts of the active CK version (:mod:`.versions`: ``facts.toml`` and the deltas).

Facts are data; the constraints in :mod:`cksolve.arch.arch_constraints` are built
from them. Adding a gfx target is a new table in the TOML file (or in a
version's delta). Every memo here keys on the active version.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from ..errors import valid_list
from ..space.memos import MEMOS
from ..space.pipelines import PIPELINES
from ..space.values import value_facts
from .versions import CkVersion, active, bundled

__all__ = ["ArchFacts", "CommonFacts", "BUNDLED_ARCHS", "arch_facts", "archs", "archs_with", "common_facts", "lds_budget",
           "UnknownArch"]


class UnknownArch(ValueError):
    pass


@dataclass(frozen=True)
class CommonFacts:
    """Facts every arch shares: element sizes and accumulator types per dtype."""

    element_size: Mapping[str, int]
    accumulator: Mapping[str, str]

    def dtype_key(self, dtype: str) -> str:
        """Key of the warp-tile tables: ``A_B_Acc`` (e.g. ``fp16_fp16_fp32``)."""
        return f"{dtype}_{dtype}_{self.accumulator[dtype]}"


@dataclass(frozen=True, eq=False)  # one object per (version, arch): memos above arch/ key on it
class ArchFacts:
    """One arch's facts under one CK version (wave splits, warp tiles, LDS, flags)."""

    name: str
    family: str
    warp_size: int
    wave_splits: tuple[tuple[int, int, int], ...]
    warp_tiles: Mapping[str, tuple[tuple[int, int, int], ...]]
    hw_profile: Mapping[str, int] | None = None  # CK's ML-selector hardware profile (num_cus ...); None where CK has none
    streamk_bwd_weight: bool = False  # CK Tile's stream-K backward-weight path runs here
    async_copy: bool = False  # Async (async-copy) pipelines run here
    lds_capacity: int | None = None  # bytes of LDS, where the CK version gives it (the per-arch LDS rule)
    lds_rule: str = "pipeline"  # the variant of the LDS check the CK version applies (versions.LDS_RULES)
    lds_budgets: tuple[tuple[str, int], ...] = ()  # (pipeline, bytes of A+B) of every pipeline, single-buffered
    lds_budgets_double: tuple[tuple[str, int], ...] = ()  # the same when the config double-buffers its LDS
    trait_unsupported: frozenset | None = None  # (pipeline, epilogue, scheduler) rows the arch filter refuses; None:
    #                                             the pipelines.toml default (the constraints build it)

    @property
    def is_wave32(self) -> bool:
        return self.warp_size == 32


@MEMOS.cached("arch.facts.common_facts", maxsize=1)
def common_facts() -> CommonFacts:
    """Facts of the dtypes every arch shares (their tables are in ``space/values.toml``)."""
    return CommonFacts(
        element_size=MappingProxyType(value_facts("dtype", "element_size")),
        accumulator=MappingProxyType(value_facts("dtype", "accumulator")),
    )


#: Architectures the bundled versions know, oldest version first, each in its facts' order. For help texts and
#: completion only: what a command works on is :func:`archs`, what the active CK version knows.
BUNDLED_ARCHS: tuple[str, ...] = tuple(dict.fromkeys(a for v in bundled() for a in v.archs))


def archs() -> tuple[str, ...]:
    """The architectures the active CK version knows: the bundled ones first, in their order."""
    return _archs(active())


@MEMOS.cached("arch.facts.archs")
def _archs(version: CkVersion) -> tuple[str, ...]:
    known = version.archs
    return (*(a for a in BUNDLED_ARCHS if a in known), *(a for a in known if a not in BUNDLED_ARCHS))


def arch_facts(arch: str) -> ArchFacts:
    """The facts of ``arch`` under the active CK version (UnknownArch when it does not know the arch)."""
    return _arch_facts(active(), arch)


@MEMOS.cached("arch.facts.arch_facts")
def _arch_facts(version: CkVersion, arch: str) -> ArchFacts:
    a = version.archs.get(arch)
    if a is None:
        where = f" in {version.label}" if arch in BUNDLED_ARCHS else ""
        raise UnknownArch(f"unknown arch {arch!r}{where}; valid: {valid_list(archs(), see='`cksolve archs`')}")
    budgets, doubled = [], []
    for p in PIPELINES:
        try:
            budgets.append((p, version.budget(arch, p)))
            doubled.append((p, version.budget(arch, p, double_smem_buffer=True)))
        except KeyError:  # a pipeline the version has no budget for: the LDS check says so per config
            pass
    return ArchFacts(
        name=arch,
        family=a["family"],
        warp_size=a["warp_size"],
        wave_splits=a["wave_splits"],
        warp_tiles=a["warp_tiles"],
        hw_profile=MappingProxyType(dict(a["hw_profile"])) if "hw_profile" in a else None,
        streamk_bwd_weight=a.get("streamk_bwd_weight", False),
        async_copy=a.get("async_copy", False),
        lds_capacity=version.lds_capacity(arch) if version.lds_rule == "arch" else a["lds_capacity"],
        lds_rule=version.lds_rule,
        lds_budgets=tuple(budgets),
        lds_budgets_double=tuple(doubled),
        trait_unsupported=version.trait_unsupported,
    )


def lds_budget(arch: str, pipeline: str, double_smem_buffer: bool = False) -> int:
    """Bytes of A+B tiles ``pipeline`` may stage on ``arch`` under the active CK version (KeyError: none)."""
    return active().budget(arch, pipeline, double_smem_buffer)


def archs_with(flag: str) -> tuple[str, ...]:
    """The archs of the active CK version whose boolean fact ``flag`` is true, in :func:`archs` order."""
    return _archs_with(active(), flag)


@MEMOS.cached("arch.facts.archs_with")
def _archs_with(version: CkVersion, flag: str) -> tuple[str, ...]:
    return tuple(a for a in _archs(version) if getattr(_arch_facts(version, a), flag))
