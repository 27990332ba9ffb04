"""Names are CK's to the letter, unique, and parse back to the same config."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cksolve.space.axes import AXES, DEPTHWISE_AXES, GEMM_AXES
from cksolve.space.config import DepthwiseConfig, KernelConfig
from cksolve.space.naming import NameError_, parse_name

from conftest import oracle

RULE_SETS = ("default", "full", "full-tests", "tiny", "tests", "profiler")


def _all_reference_names():
    names = set()
    for rs in RULE_SETS:
        for combo in oracle(rs).values():
            names.update(combo["accepted"])
            names.update(combo["rejected"])
            names.update(combo.get("ck_only", {}))
    return sorted(names)


@pytest.mark.slow
def test_every_reference_name_round_trips():
    names = _all_reference_names()
    assert len(names) > 30000
    bad = [n for n in names if parse_name(n).name() != n]
    assert not bad, f"{len(bad)} names do not round-trip, e.g. {bad[:3]}"


def _gemm_configs():
    fields = {a: st.sampled_from(AXES[a].domain) for a in GEMM_AXES}
    fields["variant"] = st.sampled_from(("forward", "bwd_data", "bwd_weight"))
    fields["layout"] = st.sampled_from(("nhwgc", "ndhwgc"))
    return st.builds(KernelConfig, **fields).filter(
        lambda c: c.streamk or (c.streamk_strategy == "tree" and not c.streamk_persistent))


def _depthwise_configs():
    fields = {a: st.sampled_from(AXES[a].domain) for a in DEPTHWISE_AXES if a not in ("variant", "layout")}
    return st.builds(DepthwiseConfig, **fields, layout=st.just("ngchw"), variant=st.just("forward_depthwise"))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.one_of(_gemm_configs(), _depthwise_configs()))
def test_parse_inverts_name(config):
    assert parse_name(config.name()) == config


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(_gemm_configs(), _gemm_configs())
def test_different_configs_have_different_names(a, b):
    if a != b:
        assert a.name() != b.name()


@pytest.mark.parametrize("garbage", ["", "grouped_conv", "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave",
                                     "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_1x2x3_1x1x1_16x16x16_bogus"])
def test_garbage_is_rejected(garbage):
    with pytest.raises(NameError_):
        parse_name(garbage)
