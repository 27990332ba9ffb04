"""minimize at scale: its array form gives the per-problem definition's answer, score for score.

``score.analytic_scores`` (``score_terms`` over columns) must be bit-identical to ``analytic_score``
(the same function on one pair) -- a tie at ``keep = 1.0`` decided by the last bit would change
the kept set -- and ``plan`` (groups of alike problems and atoms of alike kernels
from the column engine) must keep the same kernels, count the same good and
covered problems and report the same ratios as solving the per-problem
``Instance`` built from coverage records, with repeated rows, two dtypes and
measured scores full of ties.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cksolve import query
from cksolve.space.combo import Combo
from cksolve.space.naming import parse_name
from cksolve.workload import Workspace, coverage, read_problems
from cksolve.workload.minimize import Instance, Request, _good, solve
from cksolve.workload.minimize_plan import plan
from cksolve.workload.score import analytic_score, analytic_scores, score_key

from conftest import CK
from test_columns import problems as problem_strategy


def _score_classes() -> list:
    """One config per score class of every gemm and depthwise pool of full on gfx942, three dtypes."""
    ws = Workspace(query.load_rule_set("full"))
    reps: dict[tuple, object] = {}
    for variant, dtype, ndim in (("forward", "fp16", 2), ("forward", "fp32", 3), ("forward_depthwise", "fp16", 2),
                                 ("bwd_data", "bf16", 2), ("bwd_weight", "fp16", 2)):
        for c, _ in ws.pool(Combo("gfx942", variant, dtype, ndim)).order:
            reps.setdefault(score_key(c), c)
    return list(reps.values())


CONFIGS = _score_classes()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(ps=st.lists(problem_strategy(), min_size=1, max_size=12))
def test_column_scores_equal_the_scalar_form(ps):
    # depthwise kernels run 2D problems only (the scalar form has no answer for a 3D one)
    for configs, mine in (([c for c in CONFIGS if c.kind == "gemm"], ps),
                          ([c for c in CONFIGS if c.kind == "depthwise"], [p for p in ps if p.ndim == 2])):
        got = analytic_scores(mine, configs, "gfx942")
        for i, p in enumerate(mine):
            facts = p.facts()
            for j, c in enumerate(configs):
                want = analytic_score(facts, c, "gfx942")
                assert got[i, j] == want, f"{p.spec()} x {c.name()}: columns {got[i, j]!r}, scalar {want!r}"


def _per_problem(records, scores_of) -> Instance:
    """The definition: one problem per (row, dtype), its kernels by name, each scored on its own."""
    kernels = tuple(sorted({n for r in records for n in r.kernels}))
    index = {n: i for i, n in enumerate(kernels)}
    applicable, scores = [], []
    for r in records:
        names = sorted(r.kernels)
        s = scores_of(r)
        applicable.append(tuple(index[n] for n in names))
        scores.append(tuple(float(s(n)) for n in names))
    return Instance(kernels, tuple((r.row, r.dtype) for r in records), tuple(applicable), tuple(scores))


def _ratios(inst: Instance, kept) -> list[float]:
    kept = set(kept)
    return [max((s for k, s in zip(ks, ss) if inst.kernels[k] in kept), default=0.0) / max(ss)
            for ks, ss in zip(inst.applicable, inst.scores) if ks and max(ss) > 0]


@pytest.fixture(scope="module")
def workload():
    base = read_problems(CK / "workloads" / "validation_holdout.csv")[:60]
    rng = random.Random(20)
    return base + [rng.choice(base) for _ in range(40)]  # repeated rows, out of order


def _compare(ps, rs, request, perf=None):
    dtypes = ["fp16", "bf16"]
    records = coverage(ps, rs, "gfx942", dtypes)
    if perf is None:
        scores_of = lambda r: (lambda n, f=r.problem.facts(): analytic_score(f, parse_name(n), "gfx942"))  # noqa: E731
    else:
        scores_of = lambda r: (lambda n, m=perf.get(r.problem, {}): m.get(n, 0.0))  # noqa: E731
    want_inst = _per_problem(records, scores_of)
    want = solve(want_inst, request)
    got = plan(ps, rs, "gfx942", dtypes, request, perf)
    assert got.kept == want.kept, f"kept: array form {len(got.kept)}, per problem {len(want.kept)}: " \
                                  f"{sorted(set(got.kept) ^ set(want.kept))[:4]}"
    assert (got.result.good, got.result.covered, got.result.status) == (want.good, want.covered, want.status)
    assert list(got.ratios) == _ratios(want_inst, want.kept)
    kept = set(got.kept)
    good = sum(1 for ks, ss in zip(want_inst.applicable, want_inst.scores)
               if ks and any(want_inst.kernels[ks[j]] in kept for j in _good(ss, request.keep)))
    assert got.result.good == good, f"good problems: {got.result.good}, by the scalar test {good}"
    assert got.grouped.problems == len(records) and len(got.grouped.kernels) == len(want_inst.kernels)


@pytest.mark.ck_data
@pytest.mark.parametrize("keep, per_problem", [(1.0, 1), (0.8, 2)])
def test_plan_equals_the_per_problem_definition(workload, keep, per_problem):
    _compare(workload, query.load_rule_set("full"), Request(keep=keep, per_problem=per_problem))


@pytest.mark.ck_data
def test_plan_equals_the_definition_on_measured_ties(workload):
    """8-16 measured kernels per problem at one of four TFLOPS values (the ties that once blew up the model)."""
    rs = query.load_rule_set("full")
    rng = random.Random(4)
    perf = {}
    for r in coverage(workload, rs, "gfx942", ["fp16"]):
        names = sorted(r.kernels)
        perf[r.problem] = {n: rng.choice((100.0, 200.0, 300.0, 400.0))
                           for n in rng.sample(names, min(len(names), rng.randint(8, 16)))}
    _compare(workload, rs, Request(keep=0.9), perf)


def test_plan_equals_the_definition_past_exact_columns():
    """Sizes the column engine and the column scores leave to the per-pair forms (a 2**33 image, N = 2**40),
    beside ordinary and depthwise problems, one of them repeated."""
    from cksolve.workload import parse_problem

    huge = "N=2,C=64,K=128,Hi=8589934592,Wi=8,Y=1,X=1"
    ps = [parse_problem(s) for s in ("N=4,C=256,K=256,Hi=28,Wi=28,Y=1,X=1", huge,
                                     "N=1099511627776,C=64,K=64,Hi=14,Wi=14",
                                     "N=4,G=32,C=32,K=32,Hi=28,Wi=28,pad_h=1,pad_w=1", huge)]
    _compare(ps, query.load_rule_set("full"), Request(keep=1.0))


@pytest.mark.ck_data
def test_plan_of_a_table_equals_the_plan_of_its_problems(workload, monkeypatch):
    """A workload file's table (minimize's own input: no ``Problem`` per row) gives the same plan as its
    problems, with blocks of rows far smaller than the workload (scores computed a block at a time)."""
    from cksolve.workload import grouping, score
    from cksolve.workload.problem_table import table_of

    rs, request = query.load_rule_set("full"), Request(keep=0.9)
    want = plan(workload, rs, "gfx942", ["fp16", "bf16"], request)
    monkeypatch.setattr(grouping, "BLOCK", 7)
    monkeypatch.setattr(score, "SCORE_BLOCK", 5)
    got = plan(table_of(workload), rs, "gfx942", ["fp16", "bf16"], request)
    assert (got.kept, got.ratios, got.result.good, got.result.covered) == \
        (want.kept, want.ratios, want.result.good, want.result.covered)
    for name in ("applicable", "good", "weight", "first"):
        assert np.array_equal(getattr(got.grouped, name), getattr(want.grouped, name)), name
    # sums over blocks of 7 rows instead of one block: the same up to the order of the additions
    assert np.allclose(got.grouped.totals, want.grouped.totals, rtol=1e-12, atol=0)


@pytest.mark.ck_data
def test_minimize_of_a_file_makes_no_problem_per_row(monkeypatch):
    """At 10^6 distinct rows a ``Problem`` each was a gigabyte: minimize reads a workload file as columns, scores
    and re-checks it from them."""
    from cksolve.workload import minimize_kernels
    from cksolve.workload.problem import Problem

    made = []
    post_init = Problem.__post_init__
    monkeypatch.setattr(Problem, "__post_init__", lambda self: (made.append(1), post_init(self)))
    path = CK / "workloads" / "validation_holdout.csv"
    rows = len(read_problems(path))
    made.clear()
    got = minimize_kernels(path, query.load_rule_set("full"), "gfx942", ["fp16"])
    assert got.kept and len(made) < rows / 10, f"{len(made)} Problem objects made for {rows} rows"
