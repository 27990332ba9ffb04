"""Property-based validity tests: the backends and the evaluator agree.

* any enumerated config satisfies every constraint under the direct evaluator;
* for random points of the raw domains, CP-SAT membership equals the verdict;
* direct, CP-SAT and python-constraint return identical sets on random selections.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cksolve.arch.facts import ARCHS
from cksolve.solver import cpsat, direct, pyconstraint
from cksolve.solver.evaluate import evaluate
from cksolve.solver.model import build_model
from cksolve.space.axes import AXES, GEMM_AXES
from cksolve.space.config import KernelConfig
from cksolve.rulesets import Combo, RULE_SETS, get_rule_set

COMBOS = st.builds(
    Combo,
    st.sampled_from(ARCHS),
    st.sampled_from(AXES["variant"].domain),
    st.sampled_from(AXES["dtype"].domain),
    st.sampled_from(AXES["ndim"].domain),
)
BUILT_IN = [n for n in ("default", "full") if n in RULE_SETS]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(COMBOS, st.sampled_from(BUILT_IN))
def test_every_enumerated_config_satisfies_every_constraint(combo, rule_set_name):
    rule_set = get_rule_set(rule_set_name)
    for config in direct.solve(build_model(combo, rule_set)).configs():
        verdict = evaluate(config, combo.arch, rule_set)
        assert verdict.valid and verdict.member, (combo, config.name(), verdict)


def _raw_points():
    fields = {a: st.sampled_from(AXES[a].domain) for a in GEMM_AXES}
    fields["variant"] = st.sampled_from(("forward", "bwd_data", "bwd_weight"))
    # Bias towards plausible kernels so both verdicts occur often.
    fields["tile_m"] = st.sampled_from((16, 32, 64, 128, 256))
    fields["tile_n"] = st.sampled_from((16, 32, 64, 128, 256))
    fields["tile_k"] = st.sampled_from((16, 32, 64, 128))
    fields["wave_k"] = st.just(1)
    fields["vector_a"] = st.sampled_from((1, 2, 4, 8))
    return st.builds(KernelConfig, **fields)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ARCHS), _raw_points())
def test_cpsat_membership_equals_direct_evaluation(arch, config):
    combo = Combo(arch, config.variant, config.dtype, config.ndim)
    model = build_model(combo)
    pins = {a: getattr(config, a) for a in model.axes}
    assert cpsat.is_feasible(model, pins) == evaluate(config, arch).valid, config.name()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(COMBOS, st.sampled_from(BUILT_IN))
def test_three_backends_return_identical_sets(combo, rule_set_name):
    model = build_model(combo, get_rule_set(rule_set_name))
    by_direct = sorted(c.name() for c in direct.solve(model).configs())
    if len(by_direct) > 400:  # keep python-constraint's search small
        return
    assert [c.name() for c in cpsat.enumerate_solutions(model)] == by_direct
    assert [c.name() for c in pyconstraint.enumerate_solutions(model)] == by_direct


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ARCHS), st.sampled_from(BUILT_IN))
def test_names_are_unique_per_arch(arch, rule_set_name):
    rule_set = get_rule_set(rule_set_name)
    names = []
    for variant in AXES["variant"].domain:
        for dtype in AXES["dtype"].domain:
            for ndim in AXES["ndim"].domain:
                names.extend(c.name() for c in direct.solve(build_model(Combo(arch, variant, dtype, ndim), rule_set)).configs())
    assert len(names) == len(set(names))


def test_factorised_count_equals_expansion_for_every_combination():
    """``count`` sums, over core rows, the product of leaf option counts; ``configs`` expands them.

    Both must agree on every combination, and ``full`` must actually take the
    leaf path (otherwise this test would not exercise it).
    """
    from cksolve import query

    leaves = 0
    for name in BUILT_IN:
        rule_set = get_rule_set(name)
        for combo in query.select().combos():
            solved = direct.solve(build_model(combo, rule_set))
            configs = solved.configs()
            assert solved.count() == len(configs), (name, combo)
            assert len({c.name() for c in configs}) == len(configs), (name, combo, "duplicate names")
            leaves += sum(len(c.leaves) for c in solved.components)
    assert leaves > 0


def test_shared_solves_never_mix_models_with_different_domains():
    """Models that differ only on an axis no constraint reads share one solve -- unless that
    axis keeps several values, which the solve then expands: such a model is solved on its own."""
    from dataclasses import replace

    rule_set = get_rule_set("default")  # reads no ndim
    model = build_model(Combo("gfx942", "forward", "fp16", 2), rule_set)
    assert "ndim" not in {a for c in model.constraints for a in c.scope}
    every_ndim = replace(model, domains={**model.domains, "ndim": AXES["ndim"].domain})
    one = direct.solve(model).count()
    assert one > 0
    assert direct.solve(every_ndim).count() == one * len(AXES["ndim"].domain)
    assert direct.solve(build_model(Combo("gfx942", "forward", "fp16", 3), rule_set)).count() == one
