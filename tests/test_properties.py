"""Property-based validity tests: the backends and the evaluator agree.

* any enumerated config satisfies every constraint under the direct evaluator;
* for random points of the raw domains, CP-SAT membership equals the verdict;
* direct, CP-SAT and python-constraint return identical sets on random combinations
  (large ones narrowed around a random kernel of theirs, so none is skipped).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cksolve.arch.facts import BUNDLED_ARCHS
from cksolve.solver import cpsat, pyconstraint
from cksolve.solver.engine import direct
from cksolve.solver.questions.evaluate import evaluate
from cksolve.solver.model import build_model
from cksolve.space.axes import AXES, GEMM_AXES
from cksolve.space.config import KernelConfig
from cksolve.rulesets import RULE_SETS, get_rule_set
from cksolve.space.combo import Combo

COMBOS = st.builds(
    Combo,
    st.sampled_from(BUNDLED_ARCHS),
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


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BUNDLED_ARCHS), _raw_points())
def test_cpsat_membership_equals_direct_evaluation(arch, config):
    combo = Combo(arch, config.variant, config.dtype, config.ndim)
    model = build_model(combo)
    pins = {a: getattr(config, a) for a in model.axes}
    assert cpsat.is_feasible(model, pins) == evaluate(config, arch).valid, config.name()


#: python-constraint enumerates by search: models are narrowed to about this many solutions
SAMPLE_LIMIT = 400


def _narrowed(model, configs: list, pick: int):
    """``model`` with axes pinned to the values of one of its solutions (``pick``) until at most
    SAMPLE_LIMIT solutions remain, and those solutions (what direct says, filtered).

    A large combination is then sampled from inside, around a real kernel, instead of
    being skipped; a small one (or an empty one) is compared whole.
    """
    if len(configs) <= SAMPLE_LIMIT:
        return model, configs
    target = configs[pick % len(configs)]
    domains = dict(model.domains)
    for axis in model.axes:
        if len(configs) <= SAMPLE_LIMIT:
            break
        value = getattr(target, axis)
        if len(domains[axis]) > 1:
            domains[axis] = (value,)
            configs = [c for c in configs if getattr(c, axis) == value]
    return replace(model, domains=domains), configs


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(COMBOS, st.sampled_from(BUILT_IN), st.integers(min_value=0, max_value=10**6))
def test_three_backends_return_identical_sets(combo, rule_set_name, pick):
    model = build_model(combo, get_rule_set(rule_set_name))
    model, expected = _narrowed(model, direct.solve(model).configs(), pick)
    by_direct = sorted(c.name() for c in direct.solve(model).configs())
    assert by_direct == sorted(c.name() for c in expected), combo  # the narrowed solve agrees with the whole one
    assert len(by_direct) <= SAMPLE_LIMIT
    assert [c.name() for c in cpsat.enumerate_solutions(model)] == by_direct, combo
    assert [c.name() for c in pyconstraint.enumerate_solutions(model)] == by_direct, combo


def test_narrowing_samples_inside_large_combinations():
    """The sampler must actually narrow a large combination (full has hundreds of kernels in many)."""
    model = build_model(Combo("gfx942", "forward", "fp16", 2), get_rule_set("full"))
    configs = direct.solve(model).configs()
    assert len(configs) > SAMPLE_LIMIT
    narrowed, kept = _narrowed(model, configs, 12345)
    assert 0 < len(kept) <= SAMPLE_LIMIT
    assert sorted(c.name() for c in direct.solve(narrowed).configs()) == sorted(c.name() for c in kept)
    assert configs[12345 % len(configs)] in kept


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BUNDLED_ARCHS), st.sampled_from(BUILT_IN))
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
    rule_set = get_rule_set("default")  # reads no ndim
    model = build_model(Combo("gfx942", "forward", "fp16", 2), rule_set)
    # only space.layout_ndim reads it, and default's layout (nhwgc) goes with every rank: leave it out
    model = replace(model, constraints=tuple(c for c in model.constraints if c.name != "space.layout_ndim"))
    assert "ndim" not in {a for c in model.constraints for a in c.scope}
    every_ndim = replace(model, domains={**model.domains, "ndim": AXES["ndim"].domain})
    one = direct.solve(model).count()
    assert one > 0
    assert direct.solve(every_ndim).count() == one * len(AXES["ndim"].domain)
    assert direct.solve(build_model(Combo("gfx942", "forward", "fp16", 3), rule_set)).count() == one
