"""Rule set ``full`` against CK's reference output, combination by combination.

CK's ``full`` emits a config when its tables produce it and ``is_valid_for_arch``
keeps it; the codegen's arch filter then accepts or rejects it. So for every
combination of ``full.json.gz``:

* the enumerated names are exactly CK's ``accepted``;
* every ``rejected`` name is one the rule set produces (no ``rules.full.*``
  constraint is violated) and that the arch layer refuses (some ``arch.*``
  constraint is violated).

Archs without reference data here (gfx908, gfx1200, gfx1250) must enumerate
cleanly: every config satisfies every constraint of its model.
"""

from __future__ import annotations

import pytest

from cksolve.query import select
from cksolve.solver import solve_combo
from cksolve.solver.engine import direct
from cksolve.solver.model import build_model
from cksolve.space.constraints import scope_values
from cksolve.space.naming import parse_name
from cksolve.rulesets import Combo, get_rule_set

from conftest import first_differences, oracle, split_key

RULE_SET = get_rule_set("full")
DTYPES = ("fp16", "bf16", "fp32")


def _names(combo: Combo) -> list[str]:
    return [c.name() for c in solve_combo(RULE_SET, combo).configs()]


def test_enumeration_equals_ck_accepted_for_every_combination():
    mismatches = []
    for key, ref in oracle("full").items():
        got = _names(Combo(*split_key(key)))
        assert len(got) == len(set(got)), f"{key}: duplicate names"
        if set(got) != set(ref["accepted"]):
            only_us, only_ck = first_differences(got, ref["accepted"])
            mismatches.append(f"{key}: cksolve {len(got)} vs CK {len(ref['accepted'])}; "
                              f"only cksolve: {only_us}; only CK: {only_ck}")
    assert not mismatches, f"{len(mismatches)} combinations differ:\n" + "\n".join(mismatches[:10])


@pytest.mark.slow
def test_rejected_names_are_produced_by_the_rules_and_refused_by_the_arch():
    problems = []
    for key, ref in oracle("full").items():
        if not ref["rejected"]:
            continue
        model = build_model(Combo(*split_key(key)), RULE_SET)
        rules = [c for c in model.constraints if c.name.startswith("rules.")]
        arch = [c for c in model.constraints if c.name.startswith("arch.")]
        for name, why in ref["rejected"].items():
            config = parse_name(name)
            broken_rules = [c.name for c in rules if not c.holds(scope_values(config, c.scope))]
            if broken_rules:
                problems.append(f"{key}: CK produced {name}, but it breaks {broken_rules}")
            if all(c.holds(scope_values(config, c.scope)) for c in arch):
                problems.append(f"{key}: {name} (CK: {why}) passes every arch constraint")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:10])


@pytest.mark.parametrize("arch", ["gfx908", "gfx1200", "gfx1250"])
def test_archs_without_reference_enumerate_valid_configs(arch):
    total = 0
    for combo in select([arch]).combos():
        model = build_model(combo, RULE_SET)
        configs = direct.solve(model).configs()
        names = [c.name() for c in configs]
        assert len(names) == len(set(names)), f"{combo.key}: duplicate names"
        for config in configs:
            for c in model.constraints:
                assert c.holds(scope_values(config, c.scope)), f"{combo.key}: {config.name()} breaks {c.name}"
        total += len(configs)
    assert total > 0


def test_depthwise_only_in_2d_and_in_every_dtype():
    for dtype in DTYPES:
        for ndim, want in ((1, 0), (2, 20), (3, 0)):
            assert len(_names(Combo("gfx942", "forward_depthwise", dtype, ndim))) == want


def test_one_d_has_only_feature_kernels():
    # CK has no 1D base tiles: every 1D kernel comes from a feature variant.
    for variant in ("forward", "bwd_weight"):
        configs = solve_combo(RULE_SET, Combo("gfx942", variant, "fp16", 1)).configs()
        assert configs
        assert all(c.split_image or c.groups_to_merge > 1 or c.explicit_gemm or c.two_stage or c.streamk
                   for c in configs)
