"""Architecture constraints, built from the facts.

CK checks a grouped-conv config in two layers and cksolve applies both:

* ``GroupedConvKernelConfig.is_valid_for_arch`` (unified_grouped_conv_codegen.py),
  whose rules live in grouped_config_rules_default.py / _full.py;
* ``ArchFilter.validate_kernel`` (arch_filter.py) as the codegen's
  ``is_config_valid`` calls it: non-strict, with the wave split's K forced to 1
  and the operator chosen by variant.

Messages name the arch through the ``{arch}`` placeholder, so archs with the
same facts (gfx1200 and gfx1201) get equal constraint values and share solves.

Each rule is one named constraint. The order of ``gemm_constraints`` is CK's
order (layer 1, then layer 2 in ``validate_kernel`` order), so the first
violation cksolve reports is the one CK would report first.
"""

from __future__ import annotations


from ..space.axes import AXES
from ..space.constraints import Check, Constraint, Table, interned
from ..space.kinds import DEPTHWISE, GEMM
from ..space.memos import MEMOS
from ..space.pipelines import PIPELINES, pipelines_with
from ..space.variants import VARIANTS, variants_with
from .facts import arch_facts, archs_with, common_facts
from .versions import active

__all__ = ["gemm_constraints", "depthwise_constraints", "wmma_k_constraint", "wmma_k_for", "vectors_ok", "wmma_shape_ok", "wmma_k_ok", "constraints_for", "OPERATOR_TILE_RULES"]

_UNIFIED = "unified_grouped_conv_codegen.py GroupedConvKernelConfig.is_valid_for_arch"
_FILTER = "arch_filter.py ArchFilter.validate_kernel"


def _interwave_rows(flag: str) -> frozenset[tuple[str, str, str]]:
    """(pipeline, epilogue, "interwave") for every pipeline whose ``flag`` says intrawave-only."""
    return frozenset((p, e, "interwave") for p in pipelines_with(flag) for e in AXES["epilogue"].domain)


def _listing(names) -> str:
    """Pipeline names in domain order, for docs."""
    return ", ".join(p for p in PIPELINES if p in names)


# Per-pipeline facts from pipelines.toml (codegen_common.py TraitConfigBase._UNSUPPORTED,
# arch_specs TRAIT_UNSUPPORTED_COMBINATIONS, arch_filter.py's backward pipelines, ...).
_TRAIT_BASE_UNSUPPORTED = _interwave_rows("intrawave_only")
_FILTER_UNSUPPORTED = _interwave_rows("filter_intrawave_only")
_BWD_PIPELINES = pipelines_with("backward")
_FULL_LOAD_PIPELINES = pipelines_with("full_load_coverage")
_REJECTED_FOR_VARIANT = frozenset((v, p.name) for p in PIPELINES.values() for v in p.rejected_variants)

# OPERATOR_TILE_CONSTRAINTS (arch_filter.py), from variants.toml: (min_m, min_n, min_k, align_m, align_n, align_k).
OPERATOR_TILE_RULES = {n: (*v.tile_min, *v.tile_align) for n, v in VARIANTS.items() if v.kind == GEMM.name}
_OPERATOR_NAME = {n: v.operator for n, v in VARIANTS.items() if v.kind == GEMM.name}
_STREAMK_VARIANTS = variants_with("streamk")
_ASYNC_PIPELINES = pipelines_with("async_copy")
_ASYNC_SOURCE = ("CK Tile grouped_convolution_forward/backward_data/backward_weight kernels IsSupportedArgument "
                 "(applicability.md F2/D1/W1)")
_BACKWARD_VARIANTS = variants_with("backward")


# --- tests: module-level functions so constraints stay inspectable values ----------
# (vectors_ok and the wmma tests are public: the CK Builder import applies them as skip rules)


def vectors_ok(a, b, c):
    return all(v == 1 or v % 2 == 0 for v in (a, b, c))


def wmma_shape_ok(wave_k, tile_k, warp_tile_k, warp_tile_m, warp_size):
    if warp_size != 32:
        return True
    return wave_k * warp_tile_k <= tile_k and warp_tile_m != 32


def wmma_k_ok(warp_tile_k, warp_size):
    return warp_size != 32 or warp_tile_k >= 32


def _coverage_ok(pipeline, tile_m, tile_n, tile_k, wave_m, wave_n, wave_k, vector_a, vector_b, warp_size, checked):
    if pipeline not in checked:
        return True
    block = warp_size * wave_m * wave_n * wave_k
    # ``&``, not ``and``: the same verdict on numbers, and numpy arrays too (tabulated over 46,080 tuples at once)
    return ((tile_m * tile_k) // (block * vector_a) >= 1) & ((tile_n * tile_k) // (block * vector_b) >= 1)


def _coverage_details(pipeline, tile_m, tile_n, tile_k, wave_m, wave_n, wave_k, vector_a, vector_b, warp_size,
                      checked):
    return {"block_size": warp_size * wave_m * wave_n * wave_k}


def _operator_tile_ok(variant, tile_m, tile_n, tile_k):
    min_m, min_n, min_k, al_m, al_n, al_k = OPERATOR_TILE_RULES[variant]
    return (
        tile_m >= min_m and tile_n >= min_n and tile_k >= min_k
        and tile_m % al_m == 0 and tile_n % al_n == 0 and tile_k % al_k == 0
    )


def _operator_details(variant, tile_m, tile_n, tile_k):
    min_m, min_n, min_k, al_m, al_n, al_k = OPERATOR_TILE_RULES[variant]
    return {"operator": _OPERATOR_NAME[variant], "min_m": min_m, "min_n": min_n, "min_k": min_k,
            "align_m": al_m, "align_n": al_n, "align_k": al_k}


def _fits(waves, warp_tile, tile):
    return waves * warp_tile <= tile


def _divides(waves, warp_tile, tile):
    return tile % (waves * warp_tile) == 0


def _lds_bytes(dtype, tile_m, tile_n, tile_k):
    size = common_facts().element_size[dtype]
    return tile_m * tile_k * size + tile_n * tile_k * size


class Budgets(tuple):
    """(pipeline, bytes) pairs as a check's parameter: hashed and compared as the tuple (part of the
    constraint's value), looked up through a dict built once (``of``), since the test runs per tuple,
    millions of times over a wide space."""

    def __new__(cls, pairs):
        self = super().__new__(cls, pairs)
        self.of = dict(self)
        return self


def _lds_ok(dtype, pipeline, tile_m, tile_n, tile_k, budgets):
    return _lds_bytes(dtype, tile_m, tile_n, tile_k) <= budgets.of[pipeline]


def _lds_details(dtype, pipeline, tile_m, tile_n, tile_k, budgets):
    return {"bytes": _lds_bytes(dtype, tile_m, tile_n, tile_k), "limit": budgets.of[pipeline],
            "elem": common_facts().element_size[dtype]}


# The per-arch variant (CK develop, arch_filter.py @bc1dfdc1): A at its element size, B staged at the
# wider of A's and B's (a conv kernel has one dtype, so both are the dtype's), against the arch's budget
# for the pipeline, its double-buffered one when the config double-buffers (CkVersion.budget: at most half
# the arch's LDS).


def _arch_limit(pipeline, double_smem_buffer, single, double):
    return (double if double_smem_buffer else single).of[pipeline]


def _lds_arch_ok(dtype, pipeline, double_smem_buffer, tile_m, tile_n, tile_k, single, double):
    return _lds_bytes(dtype, tile_m, tile_n, tile_k) <= _arch_limit(pipeline, double_smem_buffer, single, double)


def _lds_arch_details(dtype, pipeline, double_smem_buffer, tile_m, tile_n, tile_k, single, double):
    return {"bytes": _lds_bytes(dtype, tile_m, tile_n, tile_k), "elem": common_facts().element_size[dtype],
            "limit": _arch_limit(pipeline, double_smem_buffer, single, double),
            "staging": " double-buffered" if double_smem_buffer else ""}


def _lds_constraint(facts) -> Constraint:
    """``arch.lds_capacity`` in the variant the CK version applies (``facts.lds_rule``)."""
    budgets = Budgets(facts.lds_budgets)
    if facts.lds_rule == "pipeline":
        return Check(
            "arch.lds_capacity", ("dtype", "pipeline", "tile_m", "tile_n", "tile_k"), _lds_ok,
            "LDS capacity exceeded: {bytes} bytes > {limit} bytes limit "
            "(A {tile_m}x{tile_k}x{elem}, B {tile_n}x{tile_k}x{elem})",
            f"arch_specs LDS_CAPACITY_LIMITS via {_FILTER} _validate_lds_capacity", params=(budgets,),
            details=_lds_details, doc="A and B tiles must fit the pipeline's LDS budget.",
        )
    return Check(
        "arch.lds_capacity", ("dtype", "pipeline", "double_smem_buffer", "tile_m", "tile_n", "tile_k"), _lds_arch_ok,
        "LDS capacity exceeded on {arch} (pipeline={pipeline}{staging}): {bytes} bytes > {limit} bytes limit "
        "(A {tile_m}x{tile_k}x{elem}, B {tile_n}x{tile_k}x{elem})",
        f"arch_specs LDS_CAPACITY_LIMITS_BY_ARCH, get_lds_limit via {_FILTER} _validate_lds_capacity",
        params=(budgets, Budgets(facts.lds_budgets_double)), details=_lds_arch_details,
        doc="A and B tiles must fit the arch's LDS budget for the pipeline (a fraction of the arch's LDS), at "
            "most half the LDS when the config double-buffers.",
    )


def _warp_tile_ok(dtype, warp_tile_m, warp_tile_n, warp_tile_k, tiles_by_key):
    allowed = dict(tiles_by_key).get(common_facts().dtype_key(dtype))
    # CK's filter only warns when the arch lists no warp tiles for a dtype key.
    return allowed is None or (warp_tile_m, warp_tile_n, warp_tile_k) in allowed


# --- the constraints -----------------------------------------------------------------


def gemm_constraints(arch: str) -> tuple[Constraint, ...]:
    """Every arch rule for implicit-GEMM kernels on ``arch``, in CK's order (the active CK version's)."""
    version = active()
    return _gemm_constraints(arch_facts(arch), _async_archs(version))


@MEMOS.cached("arch.arch_constraints._async_archs")
def _async_archs(version) -> str:
    """The archs running async-copy pipelines under ``version`` (the active one), as messages name them."""
    return " and ".join(archs_with("async_copy"))


@MEMOS.cached("arch.arch_constraints.gemm_constraints")
def _gemm_constraints(facts, async_archs: str) -> tuple[Constraint, ...]:
    ws = facts.warp_size
    splits = frozenset(facts.wave_splits)
    splits_text = str([list(s) for s in facts.wave_splits])
    # only the keys of the dtypes a conv kernel has (an arch's fp8/int8 tiles never decide a verdict here):
    # archs that differ only in those share the constraint, and so their solves
    keys = {common_facts().dtype_key(d) for d in AXES["dtype"].domain}
    tiles_by_key = tuple(sorted((k, v) for k, v in facts.warp_tiles.items() if k in keys))
    return tuple(map(interned, (
        # ---- layer 1: is_valid_for_arch --------------------------------------------
        Table(
            "arch.trait_combo", ("pipeline", "epilogue", "scheduler"), _TRAIT_BASE_UNSUPPORTED,
            "pipeline {pipeline} with epilogue {epilogue} supports only the intrawave scheduler, not {scheduler}",
            f"codegen_common.py TraitConfigBase.is_valid via {_UNIFIED}", forbid=True,
            doc=f"Intrawave-only pipelines (pipelines.toml intrawave_only): {_listing(pipelines_with('intrawave_only'))}.",
        ),
        Table(
            "arch.streamk_variant", ("variant", "streamk"),
            frozenset((v, True) for v in VARIANTS if v not in _STREAMK_VARIANTS),
            f"stream-K is supported only for {', '.join(_STREAMK_VARIANTS)}, not {{variant}}",
            f"grouped_config_rules_full.py is_streamk_valid_for_variant via {_UNIFIED}", forbid=True,
            doc=f"Stream-K exists only for {', '.join(_STREAMK_VARIANTS)} kernels (variants.toml streamk).",
        ),
        Table(
            "arch.pipeline_variant", ("variant", "pipeline"),
            _REJECTED_FOR_VARIANT,
            "pipeline {pipeline} is not supported for {variant}",
            f"grouped_config_rules_full.py is_valid_pipeline_for_variant via {_UNIFIED}", forbid=True,
            doc="Pipelines some variants reject (pipelines.toml rejected_variants; compv5 for backward: "
                "transpose_tile2d / get_length issues).",
        ),
        Check(
            "arch.vector_size", ("vector_a", "vector_b", "vector_c"), vectors_ok,
            "vector sizes {vector_a}/{vector_b}/{vector_c}: each must be 1 or even",
            f"grouped_config_rules_full.py check_vectors via {_UNIFIED}",
            doc="A vector width must be 1 or even: CK's check, whose comment names widths 1, 2, 4, 8 and 16 "
                "but which also passes 6, 10, 12 and 14.",
        ),
        Table(
            "arch.wave_split", ("wave_m", "wave_n", "wave_k"), splits,
            f"wave split [{{wave_m}}, {{wave_n}}, {{wave_k}}] is not supported on {{arch}}; supported: {splits_text}",
            f"arch_specs WARP_SUPPORTED_COMBINATIONS via {_UNIFIED}",
            doc="The wave split must be one the arch supports.",
        ),
        Check(
            "arch.wmma_shape", ("wave_k", "tile_k", "warp_tile_k", "warp_tile_m"), wmma_shape_ok,
            "WMMA on wave32 {arch}: needs wave_k*warp_tile_k <= tile_k "
            "({wave_k}*{warp_tile_k} vs {tile_k}) and warp_tile_m != 32 (got {warp_tile_m})",
            f"grouped_config_rules_default.py check_wmma_instance via {_UNIFIED}", params=(ws,),
            doc="On wave32 parts (WMMA) the K warp tiles must fit the block's K and 32-row warp tiles do not exist.",
        ),
        Check(
            "arch.tile_coverage",
            ("pipeline", "tile_m", "tile_n", "tile_k", "wave_m", "wave_n", "wave_k", "vector_a", "vector_b"),
            _coverage_ok,
            "{pipeline} needs at least one load instruction per thread: tile {tile_m}x{tile_n}x{tile_k} with "
            "vectors {vector_a}/{vector_b} leaves threads idle in a block of {block_size}",
            f"grouped_config_rules_default.py check_tile_coverage via {_UNIFIED}", params=(ws, _FULL_LOAD_PIPELINES),
            details=_coverage_details,
            doc=f"Pipelines that divide by the per-thread load count ({_listing(_FULL_LOAD_PIPELINES)}): "
                "it must be at least 1 for A and B.",
        ),
        Table(
            "arch.streamk_wave32", ("streamk",), frozenset({(True,)}) if facts.is_wave32 else frozenset(),
            "stream-K is not supported on wave32 {arch}",
            f"grouped_config_rules_default.py check_wmma_native_warp_tile via {_UNIFIED}", forbid=True,
            doc="Wave32 parts have no stream-K kernels.",
        ),
        # ---- layer 2: ArchFilter.validate_kernel -----------------------------------
        Check(
            "arch.operator_tile", ("variant", "tile_m", "tile_n", "tile_k"), _operator_tile_ok,
            "operator {operator}: tile {tile_m}x{tile_n}x{tile_k} below minimum "
            "{min_m}x{min_n}x{min_k} or not aligned to {align_m}/{align_n}/{align_k}",
            f"arch_filter.py OPERATOR_TILE_CONSTRAINTS via {_FILTER}", details=_operator_details,
            doc="Per-operator tile minimums and alignments.",
        ),
        Check(
            "arch.warp_fit_m", ("wave_m", "warp_tile_m", "tile_m"), _fits,
            "wave_m * warp_tile_m ({wave_m}*{warp_tile_m}) exceeds tile_m ({tile_m})",
            f"{_FILTER} _validate_dimensions",
            doc="The waves' warp tiles must fit in the block tile along M.",
        ),
        Check(
            "arch.warp_fit_n", ("wave_n", "warp_tile_n", "tile_n"), _fits,
            "wave_n * warp_tile_n ({wave_n}*{warp_tile_n}) exceeds tile_n ({tile_n})",
            f"{_FILTER} _validate_dimensions",
            doc="The waves' warp tiles must fit in the block tile along N.",
        ),
        Check(
            "arch.warp_fit_k", ("warp_tile_k", "tile_k"), _fits_k,
            "warp_tile_k ({warp_tile_k}) exceeds tile_k ({tile_k})",
            f"{_FILTER} _validate_dimensions (wave_k forced to 1)",
            doc="The warp tile must fit in the block tile along K.",
        ),
        Table(
            "arch.wave_split_filter", ("wave_m", "wave_n"), frozenset((m, n) for m, n, _ in splits if _ == 1),
            f"wave split [{{wave_m}}, {{wave_n}}, 1] is not supported on {{arch}}; supported: {splits_text}",
            f"arch_specs WARP_SUPPORTED_COMBINATIONS via {_FILTER} _validate_warp_config (wave_k forced to 1)",
            doc="The filter checks the wave split with K=1, whatever the config's wave_k.",
        ),
        Check(
            "arch.warp_tile", ("dtype", "warp_tile_m", "warp_tile_n", "warp_tile_k"), _warp_tile_ok,
            "warp tile [{warp_tile_m}, {warp_tile_n}, {warp_tile_k}] is not supported for {dtype} on {arch}",
            f"arch_specs WARP_TILE_SUPPORTED_COMBINATIONS via {_FILTER} _validate_warp_tile_combo",
            params=(tiles_by_key,),
            doc="The MFMA/WMMA warp tile must be one the arch has for the dtype (no list for the dtype: allowed).",
        ),
        Table(
            "arch.backward_pipeline", ("variant", "pipeline"),
            frozenset((v, p) for v in _BACKWARD_VARIANTS for p in PIPELINES if p not in _BWD_PIPELINES),
            f"conv backward kernels need pipeline {' or '.join(sorted(_BWD_PIPELINES))}, not {{pipeline}}",
            f"{_FILTER} _validate_trait_combo", forbid=True,
            doc=f"The arch filter allows only {' and '.join(sorted(_BWD_PIPELINES))} for backward variants.",
        ),
        Table(
            "arch.trait_unsupported", ("pipeline", "epilogue", "scheduler"), _trait_rows(facts.trait_unsupported),
            "unsupported trait combination: pipeline={pipeline}, epilogue={epilogue}, scheduler={scheduler}",
            f"arch_specs TRAIT_UNSUPPORTED_COMBINATIONS via {_FILTER} _validate_trait_combo", forbid=True,
            doc="Trait triples the arch specs list as unsupported.",
        ),
        _lds_constraint(facts),
        Check(
            "arch.tile_divisible_m", ("wave_m", "warp_tile_m", "tile_m"), _divides,
            "tile_m ({tile_m}) is not divisible by wave_m*warp_tile_m ({wave_m}*{warp_tile_m})",
            f"{_FILTER} _validate_dimension_alignment",
            doc="M must split evenly over waves and warp tiles.",
        ),
        Check(
            "arch.tile_divisible_n", ("wave_n", "warp_tile_n", "tile_n"), _divides,
            "tile_n ({tile_n}) is not divisible by wave_n*warp_tile_n ({wave_n}*{warp_tile_n})",
            f"{_FILTER} _validate_dimension_alignment",
            doc="N must split evenly over waves and warp tiles.",
        ),
        Check(
            "arch.tile_divisible_k", ("warp_tile_k", "tile_k"), _divides_k,
            "tile_k ({tile_k}) is not divisible by warp_tile_k ({warp_tile_k})",
            f"{_FILTER} _validate_dimension_alignment (wave_k forced to 1)",
            doc="K must split evenly over warp tiles.",
        ),
        # ---- CK Tile's kernels at run time, on the arch alone (no problem needed) ------
        Table(
            "arch.async_copy", ("pipeline",),
            frozenset() if facts.async_copy else frozenset((p,) for p in _ASYNC_PIPELINES),
            f"pipeline {{pipeline}} copies asynchronously: CK Tile runs it only on {async_archs}, not {{arch}}",
            _ASYNC_SOURCE, forbid=True,
            doc=f"Async-copy pipelines ({_listing(_ASYNC_PIPELINES)}; pipelines.toml async_copy, inferred) run only "
                f"on archs with async_copy in facts.toml ({async_archs}): every grouped-conv kernel's "
                f"IsSupportedArgument refuses them elsewhere, whatever the problem.",
        ),
    )))


def _trait_rows(listed) -> frozenset:
    """The version's unsupported trait triples within the axes' domains (pipelines.toml's when it lists none)."""
    if listed is None:
        return _FILTER_UNSUPPORTED
    domains = [set(AXES[a].domain) for a in ("pipeline", "epilogue", "scheduler")]
    return frozenset(r for r in listed if all(v in d for v, d in zip(r, domains)))


def _fits_k(warp_tile_k, tile_k):
    return warp_tile_k <= tile_k


def _divides_k(warp_tile_k, tile_k):
    return tile_k % warp_tile_k == 0


def wmma_k_constraint(arch: str) -> Constraint:
    """CK's WMMA K rule, which only bites when a config carries a dtype tag.

    ``check_wmma_instance`` rejects warp_tile_k < 32 on wave32 unless the dtype
    it is given is the string "float" -- which is what it gets when a config
    has no dtype tag (``default`` configs). Rule sets whose CK configs carry a
    dtype (``full`` and its subsets) add this constraint; the arch layer alone
    does not.
    """
    return wmma_k_for(arch_facts(arch))


def wmma_k_for(facts) -> Constraint:
    """:func:`wmma_k_constraint` of an arch's facts (what a memo keyed by the facts calls: no arch looked up)."""
    return _wmma_k_constraint(facts.warp_size)


@MEMOS.cached("arch.arch_constraints.wmma_k_constraint")
def _wmma_k_constraint(ws: int) -> Constraint:
    return interned(Check(
        "arch.wmma_k", ("warp_tile_k",), wmma_k_ok,
        "WMMA on wave32 {arch}: warp_tile_k must be at least 32 for a dtype-tagged config, got {warp_tile_k}",
        f"grouped_config_rules_default.py check_wmma_instance (dtype != 'float') via {_UNIFIED}", params=(ws,),
        doc="Wave32 WMMA needs K warp tiles of 32 or more when CK knows the config's dtype.",
    ))


def depthwise_constraints(arch: str) -> tuple[Constraint, ...]:
    """CK applies no arch rule to depthwise kernels; the arch must still be known."""
    arch_facts(arch)
    return ()


#: The arch rules of each kernel kind.
_BY_KIND = {GEMM.name: gemm_constraints, DEPTHWISE.name: depthwise_constraints}


def constraints_for(arch: str, kind: str) -> tuple[Constraint, ...]:
    return _BY_KIND[kind](arch)
