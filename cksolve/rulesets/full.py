"""Rule set ``full``: CK's complete space, ``full.toml`` compiled into tables.

Encodes ``grouped_config_rules_full.get_configs`` (CK 610e69bf) and the
``tile_math`` helpers it calls (CK 60b27664) as constraints, one per CK rule,
instead of CK's emission loops:

``rules.full.family``
    which (feature variant, tile, pipeline, scheduler) CK emits: the base tile
    table of the (variant, ndim, dtype) with the tile's pipelines, plus every
    feature variant of the variant (``VARIANT_FEATURES``) on its own tiles with
    its pipeline override or the tile's pipelines; the double LDS buffer is on
    for compv4 (or when a feature sets it). 1D has no base tiles, so 1D kernels
    come only from features, as in CK.
``rules.full.wave_warp``
    the (wave split, warp m x n) pairs of a tile (``get_wave_warp_pairs``):
    curated waves x warp-shape rule, kept where tile_math's structural pairs
    for the arch agree; CK's fallback to *all* tile_math pairs when none agree
    is compiled in here (arch facts are an input, so new archs just work).
``rules.full.warp_tile_k``
    ``compute_warp_tile_k`` per (tile, warp m, pipeline, stream-K): normal
    formula, or the legacy one for stream-K and the bwd_weight wavelet tiles.
``rules.full.tile_config_k``
    ``TileConfig.is_valid``'s K split with the real wave_k (the arch filter
    only checks K with wave_k forced to 1).
``rules.full.vectors`` / ``rules.full.vector_gate``
    the tile's vector strategies and extra triples (``get_vec_strategies``,
    ``get_extra_vec_triples``), each kept only if ``tile_math.get_valid_vec_sizes``
    allows it for the wave split.
``rules.full.specialization``, ``rules.full.explicit_gemm_wavelet``
    ``get_specs_for_tile``; no wavelet with explicit GEMM.
``rules.full.depthwise``
    the curated ``DEPTHWISE_PARAMS`` (2D forward, every dtype).

``is_valid_for_arch`` and the arch filter are the arch layer (applied by the
solver); ``full`` configs carry a dtype tag in CK, so the dtype-tagged WMMA K
rule (:func:`cksolve.arch.arch_constraints.wmma_k_constraint`) is added here.
"""

from __future__ import annotations

from typing import Sequence

from ..arch.arch_constraints import wmma_k_for
from ..arch.facts import arch_facts, common_facts
from ..space.constraints import Check, Constraint, Table
from ..space.kinds import DEPTHWISE
from ..space.memos import MEMOS
from .rule_set import GEMM_DEFAULTS, Combo, RuleSet, kind_of, nothing, pin, pin_defaults, table
from .builtin_data import load_toml
from .schemas import FULL_SCHEMA

__all__ = ["FullRuleSet"]

_SRC = "grouped_config_rules_full.py"
_TM = "tile_math.py"
_TILE = ("tile_m", "tile_n", "tile_k")
_WAVE = ("wave_m", "wave_n", "wave_k")
_VEC = ("vector_a", "vector_b", "vector_c")
#: The axes a feature variant sets (FeatureSpec fields), with their base values (CK's defaults).
_FEATURES = ("split_image", "groups_to_merge", "explicit_gemm", "two_stage", "streamk", "streamk_strategy",
             "streamk_persistent", "double_smem_buffer")
_FEATURE_BASE = {a: GEMM_DEFAULTS[a] for a in _FEATURES}
_DEPTHWISE = ("tile_h", "tile_w", "filt", "str_h", "str_w", "pad_h", "pad_w", "nbatch",
              "sub_h", "sub_w", "in_vec", "out_vec")


@MEMOS.cached("rulesets.full._tile")
def _tile(text: str) -> tuple[int, int, int]:
    m, n, k = map(int, text.split("x"))
    return m, n, k


def _pipes(items) -> tuple[tuple[str, str], ...]:
    return tuple(tuple(p.split("/")) for p in items)


# --- tests of the checks (module-level, see cksolve.space.constraints) ---------------


@MEMOS.cached("rulesets.full._valid_widths")
def _valid_widths(dtype, tile_m, tile_n, tile_k, wave_m, wave_n, wave_k, gate):
    """tile_math.get_valid_vec_sizes: the allowed widths for A, B and C."""
    warp_size, widths, vmem_bytes, lds_max_bits = gate
    size = common_facts().element_size[dtype]
    threads = warp_size * wave_m * wave_n * wave_k
    if (tile_m * tile_k) % threads or (tile_n * tile_k) % threads:
        return frozenset(), frozenset(), frozenset()
    per_a, per_b = tile_m * tile_k // threads, tile_n * tile_k // threads

    def fits(v):
        bits = v * size * 8
        return v <= vmem_bytes // size and bits <= lds_max_bits and bits & (bits - 1) == 0

    def spans(v, per_thread):
        return per_thread % v == 0 or v % per_thread == 0

    a = frozenset(v for v in widths if fits(v) and spans(v, per_a))
    b = frozenset(v for v in widths if fits(v) and spans(v, per_b))
    c = frozenset(v for v in widths if fits(v) and tile_n % v == 0)
    return a, b, c


def _vector_gate_ok(dtype, tile_m, tile_n, tile_k, wave_m, wave_n, wave_k, vector_a, vector_b, vector_c, gate):
    a, b, c = _valid_widths(dtype, tile_m, tile_n, tile_k, wave_m, wave_n, wave_k, gate)
    return vector_a in a and vector_b in b and vector_c in c


def _tile_config_k_ok(wave_k, warp_tile_k, tile_k):
    return tile_k % (wave_k * warp_tile_k) == 0


# --- the rule set ---------------------------------------------------------------------


class FullRuleSet(RuleSet):
    name = "full"

    def __init__(self) -> None:
        self.data = load_toml(__package__, "full.toml", FULL_SCHEMA)
        d = self.data
        self._strategies = {k: tuple(v) for k, v in d["wave_strategies"].items()}
        self._exceptions = {
            (var, _tile(t), self._strategies[w]): tuple(tuple(mn) for mn in cands)
            for var, t, w, cands in d["warp_mn"]["exceptions"]
        }
        self._excluded = frozenset(tuple(mn) for mn in d["warp_mn"]["excluded"])
        self._gate = (d["vectors"]["gate"]["warp_size"], tuple(d["vectors"]["gate"]["widths"]),
                      d["vectors"]["gate"]["vmem_bytes"], d["vectors"]["gate"]["lds_max_bits"])

    # ---- per-tile lookups (CK's get_* helpers, over the data) ------------------------

    def _dclass(self, dtype: str) -> str:
        return self.data["dtype_class"][dtype]

    def _waves(self, variant: str, tile: tuple) -> tuple:
        """get_wave_strategies: the variant's override, else the base list, else SINGLE."""
        key = "x".join(map(str, tile))
        names = (self.data["tile_waves_override"].get(variant, {}).get(key)
                 or self.data["tile_waves"].get(key) or ["SINGLE"])
        return tuple(self._strategies[n] for n in names)

    def _warp_mn(self, variant: str, tile: tuple, wave: tuple) -> tuple:
        """get_warp_mn_candidates: the exception list, else 32x32 when the per-wave tile allows it."""
        exc = self._exceptions.get((variant, tile, wave))
        if exc is not None:
            return exc
        rule = self.data["warp_mn"]
        per_m, per_n = tile[0] // wave[0], tile[1] // wave[1]
        big = rule["large_min"]
        if per_m >= big and per_n >= big and per_m % big == 0 and per_n % big == 0:
            return (tuple(rule["large"]),)
        return (tuple(rule["small"]),)

    def _pipelines(self, variant: str, dclass: str, tile: tuple) -> tuple:
        """get_pipelines_for_tile: class override, else the curated table, else the shape rules."""
        d, key = self.data, "x".join(map(str, tile))
        by_class = d["pipelines_dclass"].get(variant, {}).get(key, {})
        if dclass in by_class:
            return _pipes(by_class[dclass])
        if key in d["pipelines"].get(variant, {}):
            return _pipes(d["pipelines"][variant][key])
        m, n, k = tile
        out = []
        for rule in d["pipeline_shape_rules"].get(variant, ()):
            ok = (k >= rule.get("min_tile_k", k) and k <= rule.get("max_tile_k", k) and k == rule.get("tile_k", k)
                  and m * n >= rule.get("min_area", m * n) and min(m, n) <= rule.get("max_min_mn", min(m, n))
                  and ("tiles" not in rule or key in d["pipeline_shape_rules"][rule["tiles"]]))
            if ok and tuple(rule["pipeline"].split("/")) not in out:
                out.append(tuple(rule["pipeline"].split("/")))
        return tuple(out)

    def _specs(self, variant: str, tile: tuple) -> tuple:
        """get_specs_for_tile."""
        m, n, k = tile
        return tuple(
            s["name"] for s in self.data["specializations"][variant]
            if k != s.get("skip_tile_k") and m * n <= s.get("max_area", m * n)
        )

    def _vector_candidates(self, variant: str, dclass: str, tile: tuple) -> frozenset:
        """get_vec_strategies (absent tile: GENERIC; absent class: none) + get_extra_vec_triples."""
        v, key = self.data["vectors"], "x".join(map(str, tile))
        mx = v["max"][dclass]
        sym = {"m": mx, "h": max(1, mx // 2), "q": max(1, mx // 4), "1": 1}
        entry = v["strategies"].get(variant, {}).get(key)
        names = ["GENERIC"] if entry is None else entry.get(dclass, [])
        out = {tuple(sym[x] for x in v["formulas"][s]) for s in names}
        out.update(tuple(t) for t in v["extra"].get(variant, {}).get(key, {}).get(dclass, []))
        return frozenset(out)

    def _warp_tile_k(self, dclass: str, warp_m: int, tile_k: int, legacy: bool) -> int:
        """compute_warp_tile_k / get_k_mfma (legacy: the pre-MFMA-size formula)."""
        r = self.data["warp_tile_k"]
        size = "m32" if warp_m == 32 else "other"
        if legacy:
            return min(r["legacy"][size], tile_k // r["legacy_cap_divisor"][dclass])
        k1 = r["k1_small"] if tile_k <= r["k1_small_max_tile_k"] else r["k1_large"]
        return min(max(k1, r["k_mfma"][dclass][size]), tile_k)

    # ---- tables ----------------------------------------------------------------------

    @MEMOS.cached("rulesets.full.FullRuleSet._family_rows")
    def _family_rows(self, variant: str, ndim: int, dtype: str) -> frozenset:
        d, dclass = self.data, self._dclass(dtype)
        base_tiles = d["tiles"].get(variant, {}).get(f"{ndim}d/{dtype}", [])
        sources = [(_FEATURE_BASE, base_tiles, None)]
        for f in d["features"].get(variant, []):
            if dclass not in f.get("dtype_classes", [dclass]) or ndim not in f.get("ndims", [ndim]):
                continue
            # a feature without its own tiles uses the base tiles (tile_override None)
            sources.append(({**_FEATURE_BASE, **f["set"]}, f.get("tiles", base_tiles),
                            _pipes(f["pipelines"]) if "pipelines" in f else None))
        dsb_pipelines = set(d["double_smem_buffer"]["pipelines"])
        dsb_at = _FEATURES.index("double_smem_buffer")
        rows = set()
        for feature, tiles, pipes in sources:
            flags = [feature[a] for a in _FEATURES]
            for t in map(_tile, tiles):
                for p, s in pipes if pipes is not None else self._pipelines(variant, dclass, t):
                    # double LDS buffer: forced by the pipeline, or set by the feature
                    flags[dsb_at] = feature["double_smem_buffer"] or p in dsb_pipelines
                    rows.add((*flags, *t, p, s))
        return frozenset(rows)  # a frozenset hashes once: tables are looked up by their rows

    @MEMOS.cached("rulesets.full.FullRuleSet._tiles")
    def _tiles(self, variant: str, ndim: int, dtype: str) -> tuple:
        return tuple(sorted({r[len(_FEATURES):len(_FEATURES) + 3] for r in self._family_rows(variant, ndim, dtype)}))

    @MEMOS.cached("rulesets.full.FullRuleSet._wave_warp_rows")
    def _wave_warp_rows(self, variant: str, tiles: tuple, splits: tuple, warp_tiles: tuple) -> frozenset:
        warp_mn = tuple(dict.fromkeys((wm, wn) for wm, wn, _k in warp_tiles))
        rows = set()
        for t in tiles:
            rows.update(self._wave_warp_of_tile(variant, t, splits, warp_mn))
        return frozenset(rows)

    @MEMOS.cached("rulesets.full.FullRuleSet._wave_warp_of_tile")
    def _wave_warp_of_tile(self, variant: str, t: tuple, splits: tuple, warp_mn: tuple) -> tuple:
        """One tile's rows (cached per tile: tiles recur across ndims, dtypes and archs)."""
        m, n, _ = t

        def divides(w, mn):  # tile_math.get_valid_wave_warp_pairs: the arch pair divides the tile
            return m % (w[0] * mn[0]) == 0 and n % (w[1] * mn[1]) == 0

        arch_pairs = set(warp_mn)
        curated = [(w, mn) for w in self._waves(variant, t) if w in splits for mn in self._warp_mn(variant, t, w)
                   if mn not in self._excluded and mn in arch_pairs and divides(w, mn)]
        # CK: "if no curated pair survives, use all tile_math pairs" (unfiltered fallback)
        pairs = curated or [(w, mn) for w in splits for mn in warp_mn if divides(w, mn)]
        return tuple((*t, *w, *mn) for w, mn in pairs)

    @MEMOS.cached("rulesets.full.FullRuleSet._vector_rows")
    def _vector_rows(self, variant: str, dclass: str, tiles: tuple) -> frozenset:
        return frozenset((*t, *v) for t in tiles for v in self._vector_candidates(variant, dclass, t))

    @MEMOS.cached("rulesets.full.FullRuleSet._spec_rows")
    def _spec_rows(self, variant: str, tiles: tuple) -> frozenset:
        return frozenset((*t, s) for t in tiles for s in self._specs(variant, t))

    @MEMOS.cached("rulesets.full.FullRuleSet._warp_tile_k_keys")
    def _warp_tile_k_keys(self, variant: str, ndim: int, dtype: str) -> tuple:
        """(tile, pipeline, stream-K, legacy) of the family: the rule reads these only, so it is computed once
        per distinct key, not per family row (nor per arch: the archs differ in their warp m only)."""
        legacy_tiles = {_tile(t) for t in self.data["warp_tile_k"]["legacy_wavelet_tiles"].get(variant, [])}
        n_f = len(_FEATURES)
        streamk_at = _FEATURES.index("streamk")
        keys = {(r[n_f:n_f + 3], r[n_f + 3], r[streamk_at]) for r in self._family_rows(variant, ndim, dtype)}
        return tuple((t, p, sk, sk or (t in legacy_tiles and p == "wavelet")) for t, p, sk in keys)

    @MEMOS.cached("rulesets.full.FullRuleSet._warp_tile_k_rows")
    def _warp_tile_k_rows(self, variant: str, ndim: int, dtype: str, warp_ms: tuple) -> frozenset:
        dclass = self._dclass(dtype)
        k_of: dict = {}  # (warp m, tile K, legacy) -> warp_tile_k: a few distinct per family
        rows = []
        for t, pipeline, streamk, legacy in self._warp_tile_k_keys(variant, ndim, dtype):
            for wm in warp_ms:
                at = (wm, t[2], legacy)
                k = k_of.get(at)
                if k is None:
                    k = k_of[at] = self._warp_tile_k(dclass, wm, t[2], legacy)
                rows.append((*t, wm, pipeline, streamk, k))
        return frozenset(rows)

    @MEMOS.cached("rulesets.full.FullRuleSet._gemm_constraints")
    def _gemm_constraints(self, facts, variant: str, ndim: int, dtype: str) -> tuple:
        # keyed by the arch's facts (one object per CK version and arch), not its name; the tables read only the
        # wave splits, the dtype's warp tiles and the WMMA rule, which several archs share: built once per distinct
        # three (enumerate -r full: 216 -> 153 builds)
        warp_tiles = facts.warp_tiles.get(common_facts().dtype_key(dtype), ())
        return self._gemm_tables(variant, ndim, dtype, facts.wave_splits, warp_tiles, wmma_k_for(facts))

    @MEMOS.cached("rulesets.full.FullRuleSet._gemm_tables")
    def _gemm_tables(self, variant: str, ndim: int, dtype: str, wave_splits: tuple, warp_tiles: tuple,
                     wmma_k: Constraint) -> tuple:
        tiles = self._tiles(variant, ndim, dtype)
        dclass = self._dclass(dtype)
        return (
            _table("rules.full.family", (*_FEATURES, *_TILE, "pipeline", "scheduler"),
                   self._family_rows(variant, ndim, dtype),
                   "full: tile {tile_m}x{tile_n}x{tile_k} with {pipeline}/{scheduler} (split_image={split_image}, "
                   "gm={groups_to_merge}, explicit_gemm={explicit_gemm}, two_stage={two_stage}, "
                   "streamk={streamk}/{streamk_persistent}, dsb={double_smem_buffer}) is not a base or feature "
                   "kernel of {variant} {ndim}d {dtype}",
                   f"{_SRC} get_configs: get_tiles, VARIANT_FEATURES, get_pipelines_for_tile, "
                   "_emit_configs_for_tile (double_smem_buffer)"),
            _explicit_gemm_wavelet(),
            _table("rules.full.specialization", (*_TILE, "specialization"), self._spec_rows(variant, tiles),
                   "full: specialization {specialization} is not used for tile {tile_m}x{tile_n}x{tile_k} ({variant})",
                   f"{_SRC} get_specs_for_tile"),
            _table("rules.full.wave_warp", (*_TILE, *_WAVE, "warp_tile_m", "warp_tile_n"),
                   self._wave_warp_rows(variant, tiles, wave_splits, warp_tiles),
                   "full: waves {wave_m}x{wave_n}x{wave_k} with warp {warp_tile_m}x{warp_tile_n} are not a wave/warp "
                   "pair of tile {tile_m}x{tile_n}x{tile_k} ({variant} {dtype} on {arch})",
                   f"{_SRC} get_wave_warp_pairs (curated waves, warp m/n rule, exceptions, excluded shapes; "
                   f"fallback to {_TM} get_valid_wave_warp_pairs)"),
            _table("rules.full.warp_tile_k", (*_TILE, "warp_tile_m", "pipeline", "streamk", "warp_tile_k"),
                   self._warp_tile_k_rows(variant, ndim, dtype, tuple(sorted({w[0] for w in warp_tiles}))),
                   "full: warp_tile_k {warp_tile_k} is not CK's for {dtype} warp m {warp_tile_m}, tile K "
                   "{tile_k}, pipeline {pipeline}, streamk={streamk}",
                   f"{_SRC} compute_warp_tile_k / get_k_mfma (legacy for stream-K and wavelet legacy tiles)"),
            _tile_config_k(),
            _table("rules.full.vectors", (*_TILE, *_VEC), self._vector_rows(variant, dclass, tiles),
                   "full: vectors {vector_a}/{vector_b}/{vector_c} are not a strategy or extra triple of tile "
                   f"{{tile_m}}x{{tile_n}}x{{tile_k}} ({{variant}}, {dclass})",
                   f"{_SRC} get_vec_strategies / compute_vector_size / get_extra_vec_triples"),
            _vector_gate(self._gate),
            wmma_k,
            *_pins(),
        )

    @MEMOS.cached("rulesets.full.FullRuleSet._depthwise_constraints")
    def _depthwise_constraints(self, ndim: int) -> tuple:
        d = self.data["depthwise"]
        if ndim not in d["ndims"]:
            return (nothing("full", DEPTHWISE.name, f"{_SRC} get_depthwise_configs (2D only)"),)
        rows = []
        for r in d["rows"]:
            v = dict(zip(d["fields"], r))
            v["pad_h"] = v["pad_w"] = (v["filt"] - 1) // 2
            rows.append(tuple(v[a] for a in _DEPTHWISE))
        return (
            table("rules.full.depthwise", _DEPTHWISE, rows,
                  "full: depthwise {tile_h}x{tile_w} f{filt} s{str_h}x{str_w} nb{nbatch} sub{sub_h}x{sub_w} "
                  "vec{in_vec}/{out_vec} is not one of CK's curated depthwise kernels",
                  f"{_SRC} DEPTHWISE_PARAMS / get_depthwise_configs", applies_to=DEPTHWISE.name),
            pin("full", "layout", ("ngchw",), f"{_SRC} get_depthwise_configs", applies_to=DEPTHWISE.name),
        )

    def constraints(self, combo: Combo) -> Sequence[Constraint]:
        if kind_of(combo.variant) == DEPTHWISE.name:
            return self._depthwise_constraints(combo.ndim)
        return self._gemm_constraints(arch_facts(combo.arch), combo.variant, combo.ndim, combo.dtype)


# --- constraints that do not depend on the combination --------------------------------

# The archs of one (variant, ndim, dtype) share most tables: build each one once (``table``
# interns its result anyway; the memo saves re-building and re-hashing the rows, 0.05 s per run).
_table = MEMOS.cached("rulesets.full._table")(table)



@MEMOS.cached("rulesets.full._explicit_gemm_wavelet")
def _explicit_gemm_wavelet() -> Table:
    return Table("rules.full.explicit_gemm_wavelet", ("explicit_gemm", "pipeline"), frozenset({(True, "wavelet")}),
                 "full: explicit GEMM kernels never use the wavelet pipeline",
                 f"{_SRC} _emit_configs_for_tile (skips wavelet with explicit_gemm)", forbid=True)


@MEMOS.cached("rulesets.full._tile_config_k")
def _tile_config_k() -> Check:
    return Check("rules.full.tile_config_k", ("wave_k", "warp_tile_k", "tile_k"), _tile_config_k_ok,
                 "full: tile_k {tile_k} is not divisible by wave_k*warp_tile_k ({wave_k}*{warp_tile_k})",
                 "codegen_common.py TileConfig.is_valid via _emit_configs_for_tile")


@MEMOS.cached("rulesets.full._vector_gate")
def _vector_gate(gate: tuple) -> Check:
    return Check("rules.full.vector_gate", ("dtype", *_TILE, *_WAVE, *_VEC), _vector_gate_ok,
                 "full: vectors {vector_a}/{vector_b}/{vector_c} do not split tile {tile_m}x{tile_n}x{tile_k} "
                 "over waves {wave_m}x{wave_n}x{wave_k} ({dtype})",
                 f"{_TM} get_valid_vec_sizes via {_SRC} _emit_configs_for_tile", params=(gate,))


@MEMOS.cached("rulesets.full._pins")
def _pins() -> tuple:
    src = f"{_SRC} _emit_configs_for_tile (fixed trait fields)"
    return (pin("full", "epilogue", ("cshuffle",), src),
            *pin_defaults("full", src, skip=("scheduler", *_VEC, "specialization", *_FEATURES)))
