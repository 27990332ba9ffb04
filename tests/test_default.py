"""Rule set ``default`` against CK's reference output, combination by combination."""

from __future__ import annotations

import pytest

from cksolve.solver import enumerate_combo
from cksolve.solver.questions.evaluate import evaluate
from cksolve.space.naming import parse_name
from cksolve.rulesets import Combo, get_rule_set

from conftest import first_differences, oracle, split_key

RULE_SET = get_rule_set("default")


def test_enumeration_equals_ck_accepted_for_every_combination():
    mismatches = []
    for key, ref in oracle("default").items():
        got = [c.name() for c in enumerate_combo(RULE_SET, Combo(*split_key(key)))]
        if sorted(got) != sorted(ref["accepted"]):
            extra, missing = first_differences(got, ref["accepted"])
            mismatches.append(f"{key}: cksolve {len(got)} vs CK {len(ref['accepted'])}; "
                              f"only cksolve: {extra}; only CK: {missing}")
    assert not mismatches, "\n".join(mismatches[:10])


def test_check_calls_accepted_valid_and_rejected_invalid():
    problems = []
    for key, ref in oracle("default").items():
        arch = key.split("/")[0]
        for name in ref["accepted"]:
            verdict = evaluate(parse_name(name), arch, RULE_SET)
            if not (verdict.valid and verdict.member):
                problems.append(f"{key}: accepted {name} judged {verdict}")
        for name, why in ref["rejected"].items():
            verdict = evaluate(parse_name(name), arch, RULE_SET)
            if verdict.valid:
                problems.append(f"{key}: rejected {name} ({why}) judged valid")
    assert not problems, "\n".join(problems[:10])


def test_rejected_reasons_name_the_same_rule_as_ck():
    # CK reports the first arch-filter error; cksolve must report a violation of that rule too.
    keywords = {"LDS capacity": "arch.lds_capacity", "Invalid warp configuration": "arch.wave_split_filter",
                "Invalid warp tile": "arch.warp_tile", "Conv backward operations": "arch.backward_pipeline",
                "Operator conv": "arch.operator_tile"}
    for key, ref in oracle("default").items():
        arch = key.split("/")[0]
        for name, why in ref["rejected"].items():
            expected = next((c for k, c in keywords.items() if why.startswith(k)), None)
            assert expected is not None, f"{key}: {name}: CK's reason {why!r} names no rule this test knows"
            names = {v.constraint for v in evaluate(parse_name(name), arch).violations}
            assert expected in names, f"{key}: {name}: CK says {why!r}; cksolve: {sorted(names)}"


@pytest.mark.parametrize("arch, expect_any", [("gfx908", True), ("gfx1200", False), ("gfx1250", True)])
def test_archs_without_reference_data_enumerate(arch, expect_any):
    # gfx1200 is wave32 with none of default's wave splits; gfx1250 supports some of them.
    total = 0
    for variant in ("forward", "bwd_data", "bwd_weight", "forward_depthwise"):
        for config in enumerate_combo(RULE_SET, Combo(arch, variant, "fp16", 2)):
            assert evaluate(config, arch, RULE_SET).member
            total += 1
    assert (total > 0) == expect_any
