"""minimize: CP-SAT's answer is the optimum (brute force), covers what R covers, and re-reads as a rule set."""

from __future__ import annotations

import itertools
import random

import pytest

from cksolve import query
from cksolve.space.naming import parse_name
from cksolve.workload import coverage, parse_problem, read_problems
from cksolve.workload.minimize import Instance, Request, _good, solve
from cksolve.workload.score import analytic_score, score_terms

from conftest import CK
from test_cli import _cksolve, run

HOLDOUT = str(CK / "workloads" / "validation_holdout.csv")


def brute_force(inst: Instance, keep: float, per_problem: int = 1) -> int:
    """The size of the smallest subset meeting the request, by trying every subset."""
    n = len(inst.kernels)
    for size in range(n + 1):
        for subset in itertools.combinations(range(n), size):
            chosen = set(subset)
            ok = True
            for ks, ss in zip(inst.applicable, inst.scores):
                if not ks:
                    continue
                have = [j for j, k in enumerate(ks) if k in chosen]
                if len(have) < min(per_problem, len(ks)) or not (set(have) & _good(ss, keep)):
                    ok = False
                    break
            if ok:
                return size
    raise AssertionError("no subset works")


def random_instance(seed: int) -> Instance:
    rng = random.Random(seed)
    n_k, n_p = rng.randint(3, 8), rng.randint(2, 7)
    kernels = tuple(f"k{i}" for i in range(n_k))
    applicable, scores = [], []
    for _ in range(n_p):
        ks = tuple(sorted(rng.sample(range(n_k), rng.randint(0, n_k))))
        applicable.append(ks)
        scores.append(tuple(rng.choice((0.2, 0.5, 0.8, 1.0)) for _ in ks))
    return Instance(kernels, tuple((i, "fp16") for i in range(n_p)), tuple(applicable), tuple(scores))


@pytest.mark.parametrize("seed", range(40))
def test_cpsat_size_equals_brute_force(seed):
    inst = random_instance(seed)
    for keep, per in ((0.9, 1), (0.5, 2), (1.0, 1)):
        res = solve(inst, Request(keep=keep, per_problem=per))
        assert res.status == "OPTIMAL"
        assert len(res.kept) == brute_force(inst, keep, per), (seed, keep, per, res.kept)


def test_max_kernels_maximises_good_problems():
    # three problems, each best served by its own kernel; k3 runs all of them badly
    inst = Instance(("k0", "k1", "k2", "k3"), ((0, "fp16"), (1, "fp16"), (2, "fp16")),
                    ((0, 3), (1, 3), (2, 3)), ((1.0, 0.1), (1.0, 0.1), (1.0, 0.1)))
    assert solve(inst, Request(keep=0.9)).kept == ("k0", "k1", "k2")
    res = solve(inst, Request(keep=0.9, max_kernels=2))
    assert res.good == 1 and len(res.kept) == 2 and "k3" in res.kept  # k3 keeps all covered, one more is good
    from cksolve.errors import CksolveError

    with pytest.raises(CksolveError, match="infeasible"):
        solve(inst, Request(keep=0.9, max_kernels=0))


def test_analytic_score_golden_cases():
    p = parse_problem("N=1,C=64,K=256,Hi=8,Wi=8,Y=1,X=1").facts()  # GEMM M = 64
    big = parse_name("grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_256x256x64_2x2x1_32x32x16")
    fit = parse_name("grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_64x64x64_2x2x1_32x32x16")
    assert score_terms(p, big, "gfx942")["tile"] == 0.25  # three quarters of the tile's rows wasted
    assert analytic_score(p, fit, "gfx942") > analytic_score(p, big, "gfx942")
    narrow = fit._replace(vector_a=1, vector_b=1, vector_c=1)
    assert analytic_score(p, narrow, "gfx942") < analytic_score(p, fit, "gfx942")  # 8 divides C: vec 1 loads slower
    # when C per group is 3, vector 1 is the best there is: no penalty
    q = parse_problem("N=1,C=3,K=256,Hi=8,Wi=8,Y=1,X=1").facts()
    assert score_terms(q, narrow._replace(vector_c=8), "gfx942")["vector"] == 1.0
    # a big layer: enough tiles to fill the CUs, so the larger (more reuse) tile wins
    r = parse_problem("N=32,C=256,K=256,Hi=56,Wi=56,Y=1,X=1").facts()
    small = parse_name("grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x64_1x4x1_16x16x16")
    assert analytic_score(r, fit._replace(tile_m=128, tile_n=128), "gfx942") > analytic_score(r, small, "gfx942")


@pytest.fixture(scope="module")
def holdout_plan():
    from cksolve.workload.minimize import Request
    from cksolve.workload.minimize_plan import plan

    rs = query.load_rule_set("full")
    problems = read_problems(HOLDOUT)[:120]
    return rs, problems, plan(problems, rs, "gfx950", ["fp16"], Request(keep=1.0))


@pytest.mark.ck_data
def test_result_covers_what_full_covers_and_keeps_each_best(holdout_plan):
    rs, problems, p = holdout_plan
    kept = set(p.kept)
    full = coverage(problems, rs, "gfx950", ["fp16"])
    best_of = {}
    for r in full:
        facts = r.problem.facts()
        scores = {n: analytic_score(facts, parse_name(n), "gfx950") for n in r.kernels}
        best_of[r.row] = max(scores.values())
        kept_best = max(s for n, s in scores.items() if n in kept)
        assert kept_best >= best_of[r.row] * (1 - 1e-9), f"row {r.row}: best kept {kept_best} < {best_of[r.row]}"
    assert p.result.status == "OPTIMAL" and len(kept) < len({n for r in full for n in r.kernels})


@pytest.mark.slow
@pytest.mark.ck_data
def test_cli_outputs_round_trip_and_are_deterministic(capsys, tmp_path):
    names, ruleset = tmp_path / "kept.txt", tmp_path / "kept.toml"
    code, out, _ = run(capsys, "minimize", "--problems", HOLDOUT, "-r", "full", "-a", "gfx942", "--dtype", "fp16",
                       "--keep", "0.8", "-o", str(names), "--output-rule-set", str(ruleset))
    assert code == 0 and "solver: OPTIMAL" in out and "300 of 300" in out
    code, listed, _ = run(capsys, "enumerate", "--rule-set", str(ruleset), "--arch", "gfx942")
    assert listed == names.read_text(encoding="utf-8") and listed.count("\n") > 3
    outs = {_cksolve(seed, "minimize", "--problems", HOLDOUT, "-r", "full", "-a", "gfx942", "--dtype", "fp16",
                     check=True).stdout for seed in ("0", "777")}
    assert len(outs) == 1


@pytest.mark.parametrize("perf,start", [
    ("N,G,C,K,kernel,tflops\n1,1,64,128,k,1\n", "{f}:2: unknown kernel 'k'"),
    ("N,G,C,K,kernel,tflops\n1,1,64,128,{k},fast\n", "{f}:2: field tflops: 'fast' is not a number"),
    ("N,G,C,K,kernel\n1,1,64,128,{k}\n", "{f}:2: needs 'tflops' or 'time_ms'"),
    ("N,G,C,K,kernel,time_ms\n1,1,64,128,{k},0\n", "{f}:2: field time_ms: 0.0 must be positive"),
    ("N,G,C,K,kernel,tflops\n1,3,64,128,{k},1\n", "{f}:2: field C: 64 is not divisible by G=3"),
    ('{{"N": 1, "kernel": "{k}", "tflops": 1, "bogus": 2}}\n', "{f}:1: unknown field 'bogus'"),
])
def test_bad_perf_file_is_one_line_exit_2(capsys, tmp_path, perf, start):
    k = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x64_1x4x1_16x16x16"  # in default, gfx942
    f = tmp_path / "perf.csv"
    f.write_text(perf.format(k=k), encoding="utf-8")
    problems = tmp_path / "w.csv"
    problems.write_text("N,G,C,K\n1,1,64,128\n", encoding="utf-8")
    code, _, err = run(capsys, "minimize", "--problems", str(problems),
                       "-r", "default", "-a", "gfx942", "--dtype", "fp16", "--perf", str(f))
    assert code == 2 and err.count("\n") == 1 and err.startswith("cksolve: error: " + start.format(f=f)), err


def test_measured_scores_choose_the_measured_best(capsys, tmp_path):
    problems = tmp_path / "w.csv"
    problems.write_text("N,G,C,K,Hi,Wi,Y,X,pad_h,pad_w\n8,1,64,64,28,28,3,3,1,1\n", encoding="utf-8")
    code, out, _ = run(capsys, "applicable", "--problem", "N=8,C=64,K=64,pad_h=1,pad_w=1", "-r", "default",
                       "-a", "gfx942", "--dtype", "fp16")
    names = out.split()
    favourite = names[len(names) // 2]
    perf = tmp_path / "perf.jsonl"
    perf.write_text("".join(f'{{"N": 8, "C": 64, "K": 64, "pad_h": 1, "pad_w": 1, "kernel": "{n}", '
                            f'"tflops": {100 if n == favourite else 10}}}\n' for n in names), encoding="utf-8")
    code, out, err = run(capsys, "minimize", "--problems", str(problems), "-r", "default", "-a", "gfx942",
                         "--dtype", "fp16", "--perf", str(perf), "--keep", "1.0")
    assert code == 0 and out.split() == [favourite], err


def test_minimize_solves_with_the_projects_cpsat_settings():
    """One worker, fixed seed, and CP-SAT's SIGINT handler off (it would end an interrupted run silently)."""
    from cksolve.workload.minimize import _solver

    p = _solver(2.5).parameters
    assert (p.num_workers, p.random_seed, p.catch_sigint_signal, p.max_time_in_seconds) == (1, 0, False, 2.5)
