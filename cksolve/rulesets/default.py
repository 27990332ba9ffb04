"""Rule set ``default``: the data file compiled into tables.

Encodes ``grouped_config_rules_default.get_configs``: every base tile with its
wave split and warp tile, for each (pipeline, epilogue) of the variant; compv4
only on its compatible tiles, with K doubled and the double LDS buffer; both
two-stage flags for bwd_weight. CK's ``is_valid_for_arch`` filter inside the
rule set is not repeated here: it is the arch layer, applied to every rule set.
CK's default has no depthwise kernels, so ``forward_depthwise`` is empty.
"""

from __future__ import annotations

from typing import Sequence

from ..space.constraints import Constraint
from ..space.kinds import DEPTHWISE
from ..space.memos import MEMOS
from .rule_set import Combo, RuleSet, kind_of, nothing, pin, pin_defaults, table
from .builtin_data import load_toml
from .schemas import DEFAULT_SCHEMA

__all__ = ["DefaultRuleSet"]

_SOURCE = "grouped_config_rules_default.py get_configs"
_CORE = (
    "pipeline", "epilogue", "double_smem_buffer",
    "tile_m", "tile_n", "tile_k", "wave_m", "wave_n", "wave_k",
    "warp_tile_m", "warp_tile_n", "warp_tile_k",
)


class DefaultRuleSet(RuleSet):
    name = "default"

    def __init__(self) -> None:
        self.data = load_toml(__package__, "default.toml", DEFAULT_SCHEMA)

    @MEMOS.cached("rulesets.default.DefaultRuleSet._core_rows")
    def _core_rows(self, variant: str) -> tuple[tuple, ...]:
        d = self.data
        compv4_tiles = {tuple(t) for t in d["compv4_tiles"]}
        rows = []
        for pipeline, epilogue in d["pipelines"].get(variant, []):
            for tm, tn, tk, wm, wn, wk, wtm, wtn, wtk in d["tiles"]:
                if pipeline == "compv4":
                    if (tm, tn, tk) not in compv4_tiles:
                        continue
                    rows.append((pipeline, epilogue, True, tm, tn, tk * d["compv4_k_factor"], wm, wn, wk, wtm, wtn, wtk))
                else:
                    rows.append((pipeline, epilogue, False, tm, tn, tk, wm, wn, wk, wtm, wtn, wtk))
        return tuple(rows)

    def constraints(self, combo: Combo) -> Sequence[Constraint]:
        return self._constraints(combo.variant)

    @MEMOS.cached("rulesets.default.DefaultRuleSet._constraints")
    def _constraints(self, variant: str) -> tuple[Constraint, ...]:
        # Depends on the variant only: the same objects for every arch, dtype and ndim.
        if kind_of(variant) == DEPTHWISE.name:
            return (nothing("default", DEPTHWISE.name, _SOURCE),)
        return (
            table(
                "rules.default.core", _CORE, self._core_rows(variant),
                "default: pipeline {pipeline}/{epilogue}, tile {tile_m}x{tile_n}x{tile_k}, waves "
                "{wave_m}x{wave_n}x{wave_k}, warp tile {warp_tile_m}x{warp_tile_n}x{warp_tile_k} "
                "(dsb={double_smem_buffer}) is not one of the default tile/pipeline rows for " + variant,
                f"{_SOURCE}: COMMON_TILES/BWD_WEIGHT_TILES, TILE_TO_WAVE, TILE_TO_WARP, COMPV4_COMPATIBLE_TILES",
            ),
            pin("default", "two_stage", self.data["two_stage"].get(variant, [False]), _SOURCE),
            *pin_defaults("default", _SOURCE, skip=("double_smem_buffer", "two_stage")),
        )
