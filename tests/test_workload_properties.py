"""Property tests: three independent paths agree on whether a kernel can run a problem.

For random problems and random kernels of enumerated rule sets:

* ``applicable`` (kernels grouped by the axes the rules read, each group decided once),
* the direct evaluator (every constraint tested on the one config), and
* CP-SAT with the problem's rules as constraints and the kernel pinned

must give the same answer. And ``coverage`` counts what ``applicable`` lists.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cksolve import query
from cksolve.solver.cpsat import is_feasible
from cksolve.solver import enumerate_combo, evaluate
from cksolve.solver.model import build_model
from cksolve.workload import (DIRECTIONS, Problem, ProblemError, applicability_constraints, applicable, coverage,
                              read_problems)

from conftest import CK

ARCHS = ("gfx942", "gfx950", "gfx1100")
DTYPES = ("fp16", "bf16", "fp32")
RULE_SETS = ("default", "tests", "profiler")
# Per-group sizes chosen around the vector widths (1, 2, 4, 8) so that every vector rule both holds and fails.
PER_GROUP = st.sampled_from([1, 2, 3, 4, 6, 8, 12, 16, 24, 36, 64, 256])


@st.composite
def problems(draw) -> Problem:
    g = draw(st.sampled_from([1, 2, 4, 8, 12, 16, 32]))
    three_d = draw(st.booleans())
    fields = dict(
        direction=draw(st.sampled_from(sorted(DIRECTIONS))),
        N=draw(st.sampled_from([1, 2, 4, 8, 16])),
        G=g,
        C=g * draw(PER_GROUP),
        K=g * draw(PER_GROUP),
        Hi=draw(st.integers(1, 40)),
        Wi=draw(st.integers(1, 40)),
        Y=draw(st.sampled_from([1, 3, 5])),
        X=draw(st.sampled_from([1, 3, 5])),
        stride_h=draw(st.sampled_from([1, 2])),
        stride_w=draw(st.sampled_from([1, 2])),
        pad_h=draw(st.sampled_from([0, 1, 2])),
        pad_w=draw(st.sampled_from([0, 1, 2])),
        split_k=draw(st.sampled_from([1, 1, 2, 4, 64, 256])),
    )
    if three_d:
        fields.update(Di=draw(st.integers(2, 8)), Z=draw(st.sampled_from([1, 3])))
    try:
        return Problem(**fields)
    except ProblemError:  # e.g. an output size below 1: not a problem at all
        assume(False)


@lru_cache(maxsize=None)
def _rule_set(name: str):
    """Built-in rule sets; the builder sets (tests, profiler) read CK's .conf files from the reference data."""
    return query.load_rule_set(name, builder_configs=str(CK / "builder-configs"))


@lru_cache(maxsize=None)
def _kernels(rule_set: str, arch: str, variant: str, dtype: str, ndim: int) -> tuple:
    return tuple(enumerate_combo(_rule_set(rule_set), query.Combo(arch, variant, dtype, ndim)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(problem=problems(), rule_set=st.sampled_from(RULE_SETS), arch=st.sampled_from(ARCHS),
       dtype=st.sampled_from(DTYPES), data=st.data())
@pytest.mark.ck_data
def test_applicable_evaluator_and_cpsat_agree(problem, rule_set, arch, dtype, data):
    variant = data.draw(st.sampled_from(DIRECTIONS[problem.direction]), label="variant")
    kernels = _kernels(rule_set, arch, variant, dtype, problem.ndim)
    assume(kernels)
    config = data.draw(st.sampled_from(kernels), label="kernel")
    extra = applicability_constraints(problem.facts(), arch, dtype, config.kind)

    verdict = evaluate(config, arch, None, extra)
    assert verdict.valid, f"{config.name()} was enumerated for {arch} but is invalid: {verdict.violations}"
    by_evaluator = verdict.runs

    model = build_model(query.Combo(arch, variant, dtype, problem.ndim), None, extra)
    by_cpsat = is_feasible(model, {a: getattr(config, a) for a in model.axes})

    listed = config.name() in applicable(problem, _rule_set(rule_set), arch, dtype)
    failed = [v.constraint for v in verdict.problem_violations]
    assert listed == by_evaluator == by_cpsat, (
        f"{problem.spec()} x {config.name()} on {arch}: applicable={listed}, evaluator={by_evaluator} "
        f"(fails {failed}), cpsat={by_cpsat}")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(batch=st.lists(problems(), min_size=1, max_size=6), rule_set=st.sampled_from(RULE_SETS),
       arch=st.sampled_from(ARCHS), dtypes=st.lists(st.sampled_from(DTYPES), min_size=1, max_size=2, unique=True))
@pytest.mark.ck_data
def test_coverage_counts_what_applicable_lists(batch, rule_set, arch, dtypes):
    rs = _rule_set(rule_set)
    records = coverage(batch, rs, arch, dtypes)
    assert [(r.row, r.dtype) for r in records] == [(i, d) for i in range(len(batch)) for d in dtypes]
    for r in records:
        want = applicable(batch[r.row], rs, arch, r.dtype)
        assert list(r.kernels) == want, f"row {r.row} {r.dtype}: coverage {len(r.kernels)}, applicable {len(want)}"
        assert r.applicable == len(want)


@pytest.mark.slow
@pytest.mark.ck_data
def test_ck_workload_files_through_coverage_for_every_rule_set():
    """CK's three workload files, every built-in rule set: kernels listed exist in the set, and coverage is
    monotone along CK's containments (a problem a subset covers, its superset covers too)."""

    subset_of = {"tiny": "full-tests", "full-tests": "full", "tests": "full", "profiler": "full"}
    for path in sorted((CK / "workloads").glob("*.csv")):
        batch = read_problems(path)
        covered: dict[str, set] = {}
        for name in query.rule_set_names():
            rs = _rule_set(name)
            records = coverage(batch, rs, "gfx942", ["fp16"])
            assert len(records) == len(batch), f"{path.name} {name}: {len(records)} records for {len(batch)} rows"
            members = {}
            for r in records:
                p = r.problem
                for variant in DIRECTIONS[p.direction]:
                    key = (variant, p.ndim)
                    if key not in members:
                        members[key] = {c.name() for c in _kernels(name, "gfx942", variant, "fp16", p.ndim)}
                stray = set(r.kernels) - set().union(*(members[(v, p.ndim)] for v in DIRECTIONS[p.direction]))
                assert not stray, f"{path.name} row {r.row} {name}: not in the rule set: {sorted(stray)[:3]}"
            covered[name] = {r.row for r in records if r.applicable}
        for small, big in subset_of.items():
            lost = covered[small] - covered[big]
            assert not lost, f"{path.name}: {small} covers rows {sorted(lost)[:5]} that {big} does not"
