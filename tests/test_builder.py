"""Rule sets ``tests`` and ``profiler`` against CK's output, and the ``.conf`` reader's errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from cksolve.arch.facts import arch_facts
from cksolve.solver import enumerate_combo
from cksolve.solver.model import build_model
from cksolve.space.constraints import scope_values
from cksolve.space.naming import parse_name
from cksolve.rulesets import Combo, RuleSetError, get_rule_set
from cksolve.rulesets import builder

from conftest import CK, first_differences, oracle, split_key

ENV_VAR = builder.ENV_VAR

CONFIGS = CK / "builder-configs"
RULE_SETS = ("tests", "profiler")

pytestmark = pytest.mark.ck_data


def rule_set(name: str):
    return get_rule_set(name, builder_configs=str(CONFIGS))


def _assert_names_match(name: str, label: str, got_of, want_of) -> None:
    """``got_of(combo)`` equals ``want_of(entry)`` (sets of names) on every oracle combination."""
    bad = []
    for key, entry in oracle(name).items():
        got, want = got_of(Combo(*split_key(key))), want_of(entry)
        if got != want:
            only_us, only_ck = first_differences(got, want, 3)
            bad.append(f"{label} {key}: {len(got)} vs CK {len(want)}; only cksolve: {only_us}; only CK: {only_ck}")
    assert not bad, f"{len(bad)} of {len(oracle(name))} combinations differ:\n" + "\n".join(bad[:5])


# --- conformance ------------------------------------------------------------------------


@pytest.mark.parametrize("name", RULE_SETS)
def test_builder_rows_are_what_ck_produces(name):
    """Before any arch filter, the parsed configs are exactly CK's: accepted + rejected + ck_only."""
    rs = rule_set(name)
    _assert_names_match(
        name, "produced",
        lambda c: {cfg.name() for cfg in rs.configs(c.variant, c.dtype, c.ndim, arch_facts(c.arch).warp_size)},
        lambda entry: set(entry["accepted"]) | set(entry["rejected"]) | set(entry["ck_only"]))


@pytest.mark.parametrize("name", RULE_SETS)
def test_enumeration_equals_ck_accepted(name):
    rs = rule_set(name)
    _assert_names_match(name, "enumerated", lambda c: {cfg.name() for cfg in enumerate_combo(rs, c)},
                        lambda entry: set(entry["accepted"]))


@pytest.mark.parametrize("name", RULE_SETS)
def test_rejected_and_ck_only_are_invalid(name):
    rs = rule_set(name)
    bad = []
    for key, entry in oracle(name).items():
        model = build_model(Combo(*split_key(key)), rs)
        for kernel in [*entry["rejected"], *entry["ck_only"]]:
            config = parse_name(kernel)
            violated = [c.name for c in model.constraints if not c.holds(scope_values(config, c.scope))]
            # CK's arch filter (or its is_valid_for_arch) rejected it: an arch rule must say so.
            if not any(v.startswith("arch.") for v in violated):
                bad.append(f"{key}: {kernel} violates {violated or 'nothing'}")
    assert not bad, f"{len(bad)} names not reported invalid:\n" + "\n".join(bad[:5])


def test_accepted_names_violate_nothing():
    rs = rule_set("tests")
    for key, entry in oracle("tests").items():
        model = build_model(Combo(*split_key(key)), rs)
        for kernel in entry["accepted"]:
            config = parse_name(kernel)
            violated = [c.name for c in model.constraints if not c.holds(scope_values(config, c.scope))]
            assert not violated, f"{key}: {kernel} violates {violated}"


def test_dtype_tagged_wmma_rule_is_part_of_the_rule_set():
    names = [c.name for c in rule_set("tests").constraints(Combo("gfx1100", "forward", "fp16", 2))]
    assert names == ["rules.tests.instances", "arch.wmma_k"]
    names = [c.name for c in rule_set("tests").constraints(Combo("gfx942", "forward_depthwise", "fp16", 2))]
    assert names == ["rules.tests.instances"]


# --- loading and errors -------------------------------------------------------------------


def _tree(tmp_path: Path, rel: str, text: str) -> Path:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


_FWD_OK = (
    "DeviceGroupedConvFwdMultipleABD_Xdl_CShuffle<2,NHWGC,GKYXC,EmptyTuple,NHWGK,fp16,fp16,fp32,fp16,EmptyTuple,fp16,"
    "PassThrough,PassThrough,PassThrough,Default,MNKPadding,1,256,128,128,32,8,8,32,32,2,2,Seq(4,64,1),Seq(1,0,2),"
    "Seq(1,0,2),2,8,8,true,Seq(4,64,1),Seq(1,0,2),Seq(1,0,2),2,8,8,true,1,1,Seq(1,32,1,8),8,fp16,fp16,Default,1>"
)


def test_small_tree_loads_and_maps(tmp_path):
    _tree(tmp_path, "forward/tests/nhwgc_fp16.conf", "# comment\n" + _FWD_OK + "\n\n" + _FWD_OK + "\n")
    rs = builder.TestsRuleSet(builder_configs=str(tmp_path))
    (config,) = rs.configs("forward", "fp16", 2, 64)  # the duplicate line is deduplicated
    assert config.name() == "grouped_conv_fwd_fp16_nhwgc_2d_compv1_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_vec8_8_8"
    assert rs.configs("forward", "fp32", 2, 64) == ()  # a missing file: no kernels, as in CK


def test_malformed_line_names_file_and_line(tmp_path):
    broken = _FWD_OK.replace(",256,128,128,", ",256,12x8,128,")
    path = _tree(tmp_path, "forward/tests/nhwgc_fp16.conf", _FWD_OK + "\n" + broken + "\n")
    with pytest.raises(RuleSetError) as err:
        builder.TestsRuleSet(builder_configs=str(tmp_path))
    message = str(err.value)
    assert message.startswith(f"{path}:2: ") and "tile_m" in message and "\n" not in message


def test_wrong_argument_count_names_file_and_line(tmp_path):
    path = _tree(tmp_path, "backward_data/profiler/ndhwgc_bf16.conf",
                 "DeviceGroupedConvBwdDataMultipleD_Xdl_CShuffle<3,NDHWGK,GKZYXC>\n")
    with pytest.raises(RuleSetError, match=rf"^{path}:1: .*expected 51 template arguments, got 3"):
        builder.ProfilerRuleSet(builder_configs=str(tmp_path))


def test_unknown_instance_kind_is_reported(tmp_path):
    path = _tree(tmp_path, "forward/tests/nhwgc_bf16.conf",
                 _FWD_OK + "\nDeviceGroupedConvFwdSomethingNew<1,2,3>\n")
    with pytest.raises(RuleSetError) as err:
        builder.TestsRuleSet(builder_configs=str(tmp_path))
    message = str(err.value)
    assert message.startswith(f"{path}:2: unknown instance kind 'DeviceGroupedConvFwdSomethingNew'")
    assert "DeviceGroupedConvFwdMultipleABD_Xdl_CShuffle_V3" in message  # the known kinds are listed


def test_instance_of_another_direction_is_reported(tmp_path):
    line = open(CONFIGS / "backward_data/tests/nhwgc_fp16.conf").readline().strip()
    path = _tree(tmp_path, "forward/tests/nhwgc_fp16.conf", line + "\n")
    with pytest.raises(RuleSetError, match=rf"^{path}:1: bwd_data instance kind"):
        builder.TestsRuleSet(builder_configs=str(tmp_path))


def test_streamk_without_its_fields_is_malformed(tmp_path):
    line = ("GroupedConvolutionBackwardWeightKernel<2,Default,NHWGC,GKYXC,EmptyTuple,NHWGK,4,8,8,1,0,0,16,64,64,1,4,1,"
            "16,16,32,bf16,bf16,WAVELET,Intrawave,0,1,fp32,bf16,EmptyTuple,PassThrough,1>")
    path = _tree(tmp_path, "backward_weight/tests/nhwgc_bf16_streamk.conf", line + "\n")
    with pytest.raises(RuleSetError, match=rf"^{path}:1: .*stream-K"):
        builder.TestsRuleSet(builder_configs=str(tmp_path))


def test_missing_directory_says_how_to_point_at_the_files(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(RuleSetError) as err:
        builder.TestsRuleSet()
    message = str(err.value)  # the library names the parameter; the command line, the flag
    assert "pass builder_configs DIR" in message and ENV_VAR in message and "\n" not in message
    assert "pass --builder-configs DIR" in err.value.for_flag()
    with pytest.raises(RuleSetError, match="not found"):
        builder.ProfilerRuleSet(builder_configs=str(tmp_path / "nope"))
    with pytest.raises(RuleSetError, match="not a CK Builder configs directory"):
        builder.ProfilerRuleSet(builder_configs=str(tmp_path))


def test_environment_variable_is_the_fallback(monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(CONFIGS))
    rs = builder.TestsRuleSet()
    assert rs.root == CONFIGS and rs.files_read > 0


def _balanced_by_definition(s: str) -> bool:
    """Walk every character from the first ``<``: the depth never goes negative and first returns to 0 at the end."""
    depth = 0
    for i in range(s.index("<"), len(s)):
        depth += (s[i] == "<") - (s[i] == ">")
        if depth < 0 or (depth == 0 and i != len(s) - 1):
            return False
    return depth == 0


def test_the_bracket_check_visits_only_brackets_and_still_agrees_with_its_definition():
    from hypothesis import given, settings, strategies as st

    from cksolve.rulesets.builder_lines import _balanced

    @settings(max_examples=2000, deadline=None)
    @given(st.text(alphabet="<>a,(", min_size=1, max_size=16).filter(lambda s: "<" in s))
    def agree(s):
        assert _balanced(s) == _balanced_by_definition(s), s

    agree()
    assert _balanced("Seq<1, <2>>") and not _balanced("<a><b>") and not _balanced("<a")
