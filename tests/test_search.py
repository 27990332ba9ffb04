"""``search``: the best score over a rule set equals the best of ``applicable`` over it; over the whole space
it is at least that, and its configs are valid and run the problem (CK's hold-out problems)."""

from __future__ import annotations

import pytest

from cksolve import explore, query
from cksolve.solver.evaluate import evaluate
from cksolve.workload import applicable_records, read_problems
from cksolve.workload.explain import runs
from cksolve.workload.score import analytic_score

from conftest import CK, ck_available

pytestmark = pytest.mark.ck_data  # CK's hold-out problems
PROBLEMS = read_problems(CK / "workloads" / "validation_holdout.csv")[::37] if ck_available() else [None, None]


@pytest.mark.slow
@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.spec() if p else "without-ck-data")
def test_search_beats_or_matches_applicable_over_full(problem):
    full = query.load_rule_set("full")
    arch, dtype = "gfx942", "fp16"
    f = problem.facts()
    best_applicable = max((analytic_score(f, r.config, arch)
                           for r in applicable_records(problem.spec(), full, arch, [dtype])), default=None)
    over_full, status_full = explore.search(problem.spec(), arch, dtype, full, 1)
    assert (over_full[0].score if over_full else None) == best_applicable, (problem.spec(), status_full)
    whole, status = explore.search(problem.spec(), arch, dtype, None, 3)
    assert status == "OPTIMAL" and whole, problem.spec()
    if best_applicable is not None:
        assert whole[0].score >= best_applicable, (problem.spec(), whole[0].score, best_applicable)
    scores = [r.score for r in whole]
    assert scores == sorted(scores, reverse=True)
    for r in whole:
        assert evaluate(r.config, arch).valid and runs(r.config, arch, problem), r.name
        assert abs(analytic_score(f, r.config, arch) - r.score) < 1e-12, r.name


def test_where_narrows_the_search():
    spec = PROBLEMS[1].spec()
    (best,), _ = explore.search(spec, "gfx942", "fp16", None, 1, ("tile_m >= 128", "pipeline == 'compv3'"))
    assert best.config.tile_m >= 128 and best.config.pipeline == "compv3"
    with pytest.raises(query.CksolveError, match="column"):
        explore.search(spec, "gfx942", "fp16", None, 1, ("tile_m >",))
    # a depthwise axis is a known name, but not one of the GEMM configs search ranks
    with pytest.raises(query.CksolveError, match="tile_h is not an axis of the gemm configs"):
        explore.search(spec, "gfx942", "fp16", None, 1, ("tile_h == 28",))


# --- the CP-SAT search agrees with the exact best-first one ------------------------------------------

def _lines(results) -> list[tuple]:
    return [(r.name, r.score, r.configs) for r in results]


@pytest.mark.slow
@pytest.mark.parametrize("problem", PROBLEMS[1::4], ids=lambda p: p.spec() if p else "without-ck-data")
def test_cpsat_search_gives_the_exact_search_top_k(problem):
    """Same tuples, scores, shown configs and counts, in the same order, over the whole space and full."""
    spec = problem.spec()
    for rule_set in (None, query.load_rule_set("full")):
        exact, status = explore.search(spec, "gfx942", "fp16", rule_set, 3)
        got, got_status = explore.search(spec, "gfx942", "fp16", rule_set, 3, backend="cpsat")
        differ = [(k, e, g) for k, (e, g) in enumerate(zip(exact, got)) if _lines([e]) != _lines([g])]
        assert (got_status, len(got), differ) == (status, len(exact), []), (spec, rule_set and rule_set.name)


def test_cpsat_search_honours_where_and_agrees_on_a_small_rule_set():
    """Without CK's data: ``tiny`` and a where-narrowed whole space, both backends, top 4."""
    spec = "N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1"
    where = ("tile_m >= 128", "pipeline == 'compv3'")
    for rule_set, conditions in ((query.load_rule_set("tiny"), ()), (None, where)):
        exact, status = explore.search(spec, "gfx942", "fp16", rule_set, 4, conditions)
        got, got_status = explore.search(spec, "gfx942", "fp16", rule_set, 4, conditions, backend="cpsat")
        assert (got_status, _lines(got)) == (status, _lines(exact)), (rule_set, conditions)
    assert got and all(r.config.tile_m >= 128 and r.config.pipeline == "compv3" for r in got)
    scores = [r.score for r in got]
    assert scores == sorted(scores, reverse=True)


def test_a_cpsat_search_out_of_time_says_so_and_other_backends_cannot_search():
    _found, status = explore.search("N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1", "gfx942", "fp16", None, 1,
                                    backend="cpsat", time_limit=1e-9)
    assert status == "UNKNOWN" or status.startswith("FEASIBLE (gap "), status
    with pytest.raises(query.CksolveError, match="python-constraint backend cannot search"):
        explore.search("N=1,C=8,K=8", "gfx942", "fp16", backend="python-constraint")
