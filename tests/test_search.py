"""``search``: by default it ranks by the performance model, K distinct tile shapes whose configs are valid and
run the problem; by the padding score (``objective="padding"``, what ``--backend cpsat`` searches) the best
score over a rule set equals the best of ``applicable`` over it; over the whole space it is at least that, and
the CP-SAT search gives the exact best-first one's top K (CK's hold-out problems)."""

from __future__ import annotations

import pytest

from cksolve import explore, query
from cksolve.solver.questions.evaluate import evaluate
from cksolve.workload import applicable_records, parse_problem, read_problems
from cksolve.workload.explain_problem import runs
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
    over_full, status_full = explore.search(problem.spec(), arch, dtype, full, 1, objective="padding")
    assert (over_full[0].score if over_full else None) == best_applicable, (problem.spec(), status_full)
    whole, status = explore.search(problem.spec(), arch, dtype, None, 3, objective="padding")
    assert status == "OPTIMAL" and whole, problem.spec()
    if best_applicable is not None:
        assert whole[0].score >= best_applicable, (problem.spec(), whole[0].score, best_applicable)
    scores = [r.score for r in whole]
    assert scores == sorted(scores, reverse=True)
    for r in whole:
        assert evaluate(r.config, arch).valid and runs(r.config, arch, problem), r.name
        assert abs(analytic_score(f, r.config, arch) - r.score) < 1e-12, r.name


def test_the_default_search_ranks_distinct_tile_shapes_by_the_performance_model():
    """Top K = K distinct tile shapes, best first, each a valid config that runs the problem; the cpsat backend
    ranks by the padding score only, and says so when asked for the performance model."""
    spec = "N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1"
    problem = parse_problem(spec)
    results, status = explore.search(spec, "gfx942", "fp16", None, 5)
    assert status == "OPTIMAL" and len(results) == 5, status
    assert len({r.tile for r in results}) == 5, [r.tile for r in results]
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1], scores
    for r in results:
        assert evaluate(r.config, "gfx942").valid and runs(r.config, "gfx942", problem), r.name
    padding, _ = explore.search(spec, "gfx942", "fp16", None, 1, backend="cpsat")
    assert padding and hasattr(padding[0], "terms")  # the padding score's result
    with pytest.raises(query.CksolveError, match="cpsat backend searches by the padding score only"):
        explore.search(spec, "gfx942", "fp16", None, 1, backend="cpsat", objective="performance")
    with pytest.raises(query.CksolveError, match="not with the padding score"):
        explore.search(spec, "gfx942", "fp16", None, 1, objective="padding", ranking={"device": "MI300X"})


def test_the_cli_says_what_ranks_and_cpsat_refuses_a_device(capsys):
    spec = "N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1"
    code, out, err = run(capsys, "search", "-p", spec, "-a", "gfx942", "--dtype", "fp16", "--top", "3")
    assert code == 0 and "ranked by the analytic performance model" in out and "status: OPTIMAL" in out, out
    code, out, err = run(capsys, "search", "-p", spec, "-a", "gfx942", "--dtype", "fp16", "--backend", "cpsat")
    assert code == 0 and "ranked by the padding score" in out, out
    code, out, err = run(capsys, "search", "-p", spec, "-a", "gfx942", "--backend", "cpsat", "--device", "MI300X")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--backend cpsat" in err, err


def test_where_narrows_the_search():
    spec = PROBLEMS[1].spec()
    (best,), _ = explore.search(spec, "gfx942", "fp16", None, 1, ("tile_m >= 128", "pipeline == 'compv3'"))
    assert best.config.tile_m >= 128 and best.config.pipeline == "compv3"
    with pytest.raises(query.CksolveError, match="column"):
        explore.search(spec, "gfx942", "fp16", None, 1, ("tile_m >",))
    # a depthwise axis is a known name, but not one of the GEMM configs search ranks
    with pytest.raises(query.CksolveError, match="tile_h is not an axis of the gemm configs"):
        explore.search(spec, "gfx942", "fp16", None, 1, ("tile_h == 28",))


def run(capsys, *argv):
    from cksolve.cli import main  # deferred: the CLI (typer) for the two CLI tests only

    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


# --- the CP-SAT search agrees with the exact best-first one ------------------------------------------

def _lines(results) -> list[tuple]:
    return [(r.name, r.score, r.configs) for r in results]


@pytest.mark.slow
@pytest.mark.parametrize("problem", PROBLEMS[1::4], ids=lambda p: p.spec() if p else "without-ck-data")
def test_cpsat_search_gives_the_exact_search_top_k(problem):
    """Same tuples, scores, shown configs and counts, in the same order, over the whole space and full."""
    spec = problem.spec()
    for rule_set in (None, query.load_rule_set("full")):
        exact, status = explore.search(spec, "gfx942", "fp16", rule_set, 3, objective="padding")
        got, got_status = explore.search(spec, "gfx942", "fp16", rule_set, 3, backend="cpsat")
        differ = [(k, e, g) for k, (e, g) in enumerate(zip(exact, got)) if _lines([e]) != _lines([g])]
        assert (got_status, len(got), differ) == (status, len(exact), []), (spec, rule_set and rule_set.name)


def test_cpsat_search_honours_where_and_agrees_on_a_small_rule_set():
    """Without CK's data: ``tiny`` and a where-narrowed whole space, both backends, top 4."""
    spec = "N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1"
    where = ("tile_m >= 128", "pipeline == 'compv3'")
    for rule_set, conditions in ((query.load_rule_set("tiny"), ()), (None, where)):
        exact, status = explore.search(spec, "gfx942", "fp16", rule_set, 4, conditions, objective="padding")
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
