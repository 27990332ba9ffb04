"""The schemas of the built-in rule sets' data files (``full.toml``, ``default.toml``), in ``space.datafile``'s
notation: a table names its keys (``?``: optional; ``"*"``: any other key, one table or list per value), a list
its element, a leaf its type. ``data.load_toml`` checks a file against its schema before the rule set reads
it, so an unknown key, a wrong type or a missing key is one error line naming the file and the key.

A new section or key of a file is declared here beside it; the reader still checks what a schema cannot say
(a tile's spelling, a pipeline's name), with its own error lines.
"""

from __future__ import annotations

__all__ = ["FULL_SCHEMA", "DEFAULT_SCHEMA"]

_NAMES = [str]
_INTS = [int]
_VARIANTS = ("forward", "bwd_data", "bwd_weight")


def _per_variant(item, required: bool = True) -> dict:
    """A table with one ``item`` per GEMM variant (every variant, or any of them)."""
    return {(v if required else f"{v}?"): item for v in _VARIANTS}


#: ``full.toml``: CK's complete space (``full.py`` says how each section becomes a constraint)
FULL_SCHEMA = {
    "dtype_class": {"*": str},
    "tiles": _per_variant({"*": _NAMES}),
    "wave_strategies": {"*": _INTS},
    "tile_waves": {"*": _NAMES},
    "tile_waves_override": _per_variant({"*": _NAMES}, required=False),
    "warp_mn": {"large": _INTS, "large_min": int, "small": _INTS, "excluded": [_INTS],
                "exceptions": [[(str, list)]]},
    "warp_tile_k": {"k1_small": int, "k1_small_max_tile_k": int, "k1_large": int, "k_mfma": {"*": {"*": int}},
                    "legacy": {"*": int}, "legacy_cap_divisor": {"*": int},
                    "legacy_wavelet_tiles": _per_variant(_NAMES, required=False)},
    "vectors": {"max": {"*": int}, "formulas": {"*": _NAMES},
                "strategies": _per_variant({"*": {"*": _NAMES}}),
                "extra": _per_variant({"*": {"*": [_INTS]}}, required=False),
                "gate": {"warp_size": int, "widths": _INTS, "vmem_bytes": int, "lds_max_bits": int}},
    "pipelines": _per_variant({"*": _NAMES}),
    "pipelines_dclass": _per_variant({"*": {"*": _NAMES}}, required=False),
    "pipeline_shape_rules": {"compv4_tiles": _NAMES,
                             **_per_variant([{"pipeline": str, "min_tile_k?": int, "max_tile_k?": int, "tile_k?": int,
                                              "min_area?": int, "max_min_mn?": int, "tiles?": str}])},
    "double_smem_buffer": {"pipelines": _NAMES},
    "specializations": _per_variant([{"name": str, "skip_tile_k?": int, "max_area?": int}]),
    "features": _per_variant([{"name": str, "set": {"split_image?": bool, "groups_to_merge?": int,
                                                    "explicit_gemm?": bool, "two_stage?": bool, "streamk?": bool,
                                                    "streamk_strategy?": str, "streamk_persistent?": bool,
                                                    "double_smem_buffer?": bool},
                               "tiles?": _NAMES, "pipelines?": _NAMES, "dtype_classes?": _NAMES, "ndims?": _INTS}],
                             required=False),
    "exclusions": [{"name": str, "explicit_gemm?": bool, "pipeline?": str}],
    "depthwise": {"ndims": _INTS, "fields": _NAMES, "rows": [_INTS]},
}

#: ``default.toml``: CK's original hand-curated set (``default.py``)
DEFAULT_SCHEMA = {
    "tiles": [_INTS],
    "compv4_tiles": [_INTS],
    "compv4_k_factor": int,
    "pipelines": {**_per_variant([_NAMES]), "forward_depthwise?": [_NAMES]},
    "two_stage": _per_variant([bool]),
}
