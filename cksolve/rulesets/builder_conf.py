"""CK Builder instances: the record a ``.conf`` line is read into, and its mapping to a target.

A ``.conf`` file lists one kernel instance per line (old-CK device ops, native
CK Tile kernel strings, the depthwise list); :mod:`.builder_lines` reads each
line into an :class:`Instance` -- the template arguments its kind carries,
typed and checked, everything that does not depend on the target. Here
:meth:`Instance.config` maps an instance to a config for one warp size and
dtype, the way the Builder's ``generate_instances.py`` and CK's
``grouped_config_rules_builder.py`` do: waves derived from the block size and
the warp size, the warp tile's K from K1 and the MFMA K, pipeline and
specialization names mapped, and the Builder's own skip rules applied
(``None`` = the Builder drops the instance on that target).

Field positions and name maps are data (``builder.toml``, :func:`builder_data`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ..arch.arch_constraints import vectors_ok, wmma_k_ok, wmma_shape_ok
from ..space.axes import AXES
from ..space.config import DepthwiseConfig, KernelConfig
from ..space.datafile import Any
from ..space.memos import MEMOS
from ..space.values import value_facts
from .rule_set import RuleSetError
from .builtin_data import load_toml

__all__ = ["Instance", "builder_data"]


#: Checked here: what the file-name layout needs; the field tables are checked as they are read.
_SCHEMA = {"dtypes": [str], "subsets": {"*": str}, "directories": {"*": str},
           "layouts": {"*": {"ndim": int, "layout": str}}, "*": Any}


@MEMOS.cached("rulesets.builder_conf.builder_data")
def builder_data() -> dict:
    data = load_toml(__package__, "builder.toml", _SCHEMA)
    if not set(data["dtypes"]) <= set(AXES["dtype"].domain):
        raise RuleSetError(f"builder.toml: dtypes {data['dtypes']} are not all values of the dtype axis")
    data["_by_match"] = {k["match"]: (name, k) for name, k in data["kinds"].items()}
    return data


# --- the Builder's skip rules (generate_instances.py / grouped_config_rules_default.py) ----


#: The Builder's dtype names (values.toml ``builder``: derived from its problem name, fp32 is "float").
_BUILDER_DTYPE = value_facts("dtype", "builder")


def _builder_dtype(dtype: str) -> str:
    return _BUILDER_DTYPE.get(dtype, dtype)


def _mfma_k(dtype: str, xdl: int) -> int:
    """Smallest K of one MFMA for the per-XDL size (get_k_mfma)."""
    if _builder_dtype(dtype) == "float":
        return 2 if xdl == 32 else 4
    return 16 if xdl == 32 else 32


def _wmma_keeps(warp_size: int, tile_k: int, wave_k: int, warp_tile_k: int, warp_tile_m: int, dtype: str) -> bool:
    # CK's WMMA rule as the Builder applies it: its fp32 is "float", which skips the K minimum.
    if _builder_dtype(dtype) != "float" and not wmma_k_ok(warp_tile_k, warp_size):
        return False
    return wmma_shape_ok(wave_k, tile_k, warp_tile_k, warp_tile_m, warp_size)


def _coverage_keeps(a_dim: int, tile_n: int, vec_a: int, vec_b: int, warp_size: int) -> bool:
    """One warp's vector loads must cover the contiguous A and B tile dims."""
    return a_dim <= warp_size * vec_a and tile_n <= warp_size * vec_b


def _bwd_data_vectors_keep(tile_m, tile_n, tile_k, wave_m, wave_n, wave_k, vec_a, vec_b, warp_size) -> bool:
    block = warp_size * wave_m * wave_n * wave_k
    if block == 0:
        return False
    return vec_a <= (tile_m * tile_k) // block and vec_b <= (tile_n * tile_k) // block


# --- instances ------------------------------------------------------------------------


@dataclass(frozen=True)
class Instance:
    """One instance line, read but not yet mapped to a target."""

    path: str
    line: int
    kind: str  # key of [kinds.*] in builder.toml
    variant: str
    form: str  # "xdl", "native", "explicit" or "depthwise"
    f: Mapping[str, object] = field(repr=False)

    def config(self, warp_size: int, dtype: str, ndim: int, layout: str):
        """The config this instance becomes on a target, or ``None`` if the Builder skips it."""
        if self.form == "depthwise":
            return DepthwiseConfig(dtype=dtype, ndim=ndim, layout=layout, **self.f)
        if self.form == "native":
            return self._native(warp_size, dtype, ndim, layout)
        return self._xdl(warp_size, dtype, ndim, layout)

    # Old-CK device ops (and the explicit-GEMM form, read into the same fields).
    def _xdl(self, ws: int, dtype: str, ndim: int, layout: str):
        f = self.f
        wave_m, wave_n = f["wave_m"], f["wave_n"]
        wave_k = f["block_size"] // (ws * wave_m * wave_n)
        warp_tile_k = min(max(f["k1"], _mfma_k(dtype, f["xdl"])), f["tile_k"])
        if not _wmma_keeps(ws, f["tile_k"], wave_k, warp_tile_k, f["xdl"], dtype):
            return None
        va, vb, vc = f["vector_a"], f["vector_b"], f["vector_c"]
        if self.variant in ("bwd_weight", "bwd_data"):
            if not vectors_ok(va, vb, vc):
                return None
            a_dim = f["tile_k"] if self.variant == "bwd_data" else f["tile_m"]
            if not _coverage_keeps(a_dim, f["tile_n"], va, vb, ws):
                return None
        if self.variant == "bwd_data" and not _bwd_data_vectors_keep(
            f["tile_m"], f["tile_n"], f["tile_k"], wave_m, wave_n, wave_k, va, vb, ws
        ):
            return None
        two_stage = f["two_stage"]
        if f["explicit_gemm"] and _builder_dtype(dtype) != "float" and vc % 2 != 0:
            two_stage = True
        return self._make(
            dtype, ndim, layout, wave_m=wave_m, wave_n=wave_n, wave_k=wave_k,
            warp_tile_m=f["xdl"], warp_tile_n=f["xdl"], warp_tile_k=warp_tile_k, two_stage=two_stage,
        )

    # Native CK Tile kernel strings: waves and warp tile are given.
    def _native(self, ws: int, dtype: str, ndim: int, layout: str):
        f = self.f
        streamk = f["streamk"]
        two_stage = False
        if self.variant == "bwd_weight":
            two_stage = _builder_dtype(dtype) != "float" and f["vector_c"] == 1 and not streamk
            if streamk and _builder_dtype(dtype) == "float" and "ASYNC" in f["version"]:
                return None
            if ws == 32 and streamk:
                return None
            if not _wmma_keeps(ws, f["tile_k"], f["wave_k"], f["warp_tile_k"], f["warp_tile_m"], dtype):
                return None
        return self._make(
            dtype, ndim, layout, wave_m=f["wave_m"], wave_n=f["wave_n"], wave_k=f["wave_k"],
            warp_tile_m=f["warp_tile_m"], warp_tile_n=f["warp_tile_n"], warp_tile_k=f["warp_tile_k"],
            two_stage=two_stage,
        )

    def _make(self, dtype, ndim, layout, **target) -> KernelConfig:
        f = self.f
        streamk = bool(f.get("streamk", False))
        return KernelConfig(
            variant=self.variant, dtype=dtype, ndim=ndim, layout=layout,
            tile_m=f["tile_m"], tile_n=f["tile_n"], tile_k=f["tile_k"],
            pipeline=f["pipeline"], epilogue="cshuffle", scheduler=f["scheduler"],
            vector_a=f["vector_a"], vector_b=f["vector_b"], vector_c=f["vector_c"],
            pad_m=True, pad_n=True, pad_k=True,
            double_smem_buffer=f["double_smem_buffer"], groups_to_merge=f["groups_to_merge"],
            wave_groups=f["wave_groups"], split_image=f["split_image"], explicit_gemm=f["explicit_gemm"],
            specialization=f["specialization"],
            streamk=streamk,
            streamk_strategy=f["streamk_strategy"] if streamk else "tree",
            streamk_persistent=bool(f["streamk_persistent"]) if streamk else False,
            **target,
        )
