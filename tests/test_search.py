"""``search``: the best score over a rule set equals the best of ``applicable`` over it; over the whole space
it is at least that, and its configs are valid and run the problem (CK's hold-out problems)."""

from __future__ import annotations

import pytest

from cksolve import explore, query
from cksolve.solver.evaluate import evaluate
from cksolve.workload import applicable_records, read_problems
from cksolve.workload.explain import runs
from cksolve.workload.score import analytic_score

from conftest import CK

PROBLEMS = read_problems(CK / "workloads" / "validation_holdout.csv")[::37]


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p.spec() for p in PROBLEMS])
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
