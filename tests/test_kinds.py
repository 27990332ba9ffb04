"""The kernel kind as a value (``space.kinds``): one place for each kind's axes, config class, grammar, tile."""

import pytest

from cksolve.errors import CksolveError
from cksolve.space import AXES, DEPTHWISE, GEMM, KINDS, VARIANTS, DepthwiseConfig, KernelConfig, kernel_kind, parse_name
from cksolve.space.axes import KIND_NAMES
from cksolve.space.combo import kind_of

NAMES = {
    "gemm": "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16",
    "depthwise": "grouped_conv_fwd_depthwise_fp16_ngchw_2d_32x32_f3_s1x1_p1x1_nb1_sub1x1_vec1_1",
}


def test_every_kind_of_the_data_is_a_value_with_its_config_class():
    assert tuple(KINDS) == KIND_NAMES == ("gemm", "depthwise")
    assert (GEMM.config, DEPTHWISE.config) == (KernelConfig, DepthwiseConfig)
    for kind in KINDS.values():
        assert kind.config.kind == kind.name == str(kind)
        assert kind.config._fields == kind.fields and sorted(kind.fields) == sorted(kind.axes)
        assert kind.axes == tuple(n for n, a in AXES.items() if a.kind in ("common", kind.name)), kind.name
        assert set(kind.tile) <= set(kind.axes)
    assert {v.kind for v in VARIANTS.values()} == set(KINDS)
    assert all(kernel_kind(kind_of(v)).name == VARIANTS[v].kind for v in VARIANTS)


def test_a_name_is_read_by_its_kind_s_grammar_and_spelt_back():
    for kind_name, name in NAMES.items():
        kind = kernel_kind(kind_name)
        if not kind.grammar.fullmatch(name):
            pytest.skip(f"{name} is not a {kind_name} name of this space")  # pragma: no cover
        config = parse_name(name)
        assert type(config) is kind.config and kind.spell(config) == name == config.name()
        assert all(not other.grammar.fullmatch(name) for other in KINDS.values() if other is not kind), name


def test_the_tile_shape_is_the_kind_s_tile_fields():
    config = parse_name(NAMES["gemm"])
    assert GEMM.tile == ("tile_m", "tile_n", "tile_k") and GEMM.tile_of(config) == (128, 128, 64)
    assert DEPTHWISE.tile == ("tile_h", "tile_w")


def test_a_kind_is_looked_up_by_name_and_an_unknown_one_is_bad_input():
    assert kernel_kind("gemm") is GEMM and kernel_kind(DEPTHWISE) is DEPTHWISE
    with pytest.raises(CksolveError, match="unknown kernel kind 'dw'; valid: gemm, depthwise"):
        kernel_kind("dw")


def test_the_grammar_names_its_groups_after_the_fields_they_spell():
    """A group of a kind's grammar named after a field spells that field; depthwise names spell every field
    but the variant (the prefix says it), GEMM names the rest by words and flags (``naming._read``)."""
    dw = set(DEPTHWISE.grammar.groupindex) & set(DEPTHWISE.fields)
    assert dw == set(DEPTHWISE.fields) - {"variant"}
    gemm = set(GEMM.grammar.groupindex) & set(GEMM.fields)
    assert {"variant", "dtype", "layout", "ndim", "pipeline", "epilogue", "scheduler", *GEMM.tile,
            "vector_a", "vector_b", "vector_c"} <= gemm


def test_the_kind_holds_its_listing_head_and_group_axes():
    for k in (GEMM, DEPTHWISE):
        assert set(k.head_axes) <= set(k.fields), f"{k}: head axes {set(k.head_axes) - set(k.fields)} are not fields"
        assert set(k.group_axes) <= set(k.head_axes), f"{k}: group axes outside the head"
    assert GEMM.group_axes and set(GEMM.head_axes) < set(GEMM.fields), "a GEMM name has a head and a tail"
    assert DEPTHWISE.head_axes == DEPTHWISE.fields and DEPTHWISE.group_axes == (), "a depthwise name is all head"
