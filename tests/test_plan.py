"""``plan`` and ``plan merge``: the pairs chosen, the tile-engine files, the shards, the merge's checks."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conftest import CK
from test_cli import run

from cksolve import query
from cksolve.plan import (Candidate, Hints, balance, canonical_labels, imbalance, make_plan, merge_results,
                          named_candidates, rule_set_candidates)
from cksolve.plan.tile_engine import trait_of
from cksolve.workload import applicable, parse_problem, read_problems
from cksolve.workload.labels import LabelResolver

SHARED = CK / "measurements" / "training_data_forward_bf16_20.csv"
WORKLOAD = """N,G,C,K,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w
4,4,256,256,28,28,1,1,1,1,0,0
32,1,1024,256,8,8,1,1,1,1,0,0
1,1,64,128,56,56,3,3,1,1,1,1
16,1,256,512,14,14,3,3,2,2,1,1
2,1,128,128,112,112,7,7,2,2,3,3
4,4,256,256,28,28,1,1,1,1,0,0
"""
PLAN = ["-r", "default", "--arch", "gfx950", "--dtype", "bf16"]


def _plan(capsys, tmp_path, *extra, budget=12, out="p"):
    (tmp_path / "w.csv").write_text(WORKLOAD)
    code, stdout, err = run(capsys, "plan", "--problems", str(tmp_path / "w.csv"), *PLAN, "--budget", str(budget),
                            "--out", str(tmp_path / out), *extra)
    return code, stdout, err


def _pairs(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open(newline="")))


def test_plan_pairs_are_applicable_distinct_and_deterministic(capsys, tmp_path):
    code, out, err = _plan(capsys, tmp_path, "--seed", "3")
    assert code == 0, err
    assert out.startswith("planned 12 pairs on 3 of 5 problems")  # five kernels each, then two
    pairs = _pairs(tmp_path / "p" / "pairs.csv")
    assert len(pairs) == 12
    problems = read_problems(tmp_path / "w.csv")
    rs = query.load_rule_set("default")
    for row in pairs:
        # the row named is the problem's first copy; its kernel runs it; the label is the kernel's short name
        p = problems[int(row["problem"])]
        assert problems.index(p) == int(row["problem"]), row
        assert row["kernel"] in applicable(p, rs, "gfx950", "bf16"), row
        assert row["label"].startswith("grouped_conv_forward_bf16_2d_"), row
        assert float(row["est_ms"]) > 0
    assert len({(r["problem"], r["label"]) for r in pairs}) == 12  # a label is measured once per problem
    assert {r["why"].split(" (")[0] for r in pairs} == {"winner", "near-winner", "kernel coverage"}
    first = (tmp_path / "p" / "pairs.csv").read_bytes()
    code, _, _ = _plan(capsys, tmp_path, "--seed", "3", out="q")
    assert code == 0 and (tmp_path / "q" / "pairs.csv").read_bytes() == first
    code, _, _ = _plan(capsys, tmp_path, "--seed", "4", out="r")
    assert (tmp_path / "r" / "pairs.csv").read_bytes() != first  # the seed picks another start


def test_plan_writes_tile_engine_runs(capsys, tmp_path):
    code, _, err = _plan(capsys, tmp_path, "--shards", "2")
    assert code == 0, err
    shard_pairs = []
    for shard in sorted((tmp_path / "p").glob("shard_*")):
        pairs = _pairs(shard / "pairs.csv")
        shard_pairs += pairs
        runs = sorted((shard / "runs").iterdir())
        traits = {trait_of(r["label"]) for r in pairs}
        assert len(runs) == len(traits)  # one run per trait combination
        for run_dir in runs:
            config = json.loads((run_dir / "configs" / "forward_2d.json").read_text())
            assert config["variant"] == "forward"
            assert all(len(v["values"]) == 1 for v in config["trait_config"].values())
            module = (run_dir / "problems" / "forward_2d.py").read_text()
            assert "PROBLEMS_FORWARD_2D = [" in module and "GroupedConvProblem(N=" in module
            compile(module, "forward_2d.py", "exec")
        script = (shard / "run.sh").read_text()
        assert script.count("grouped_conv_full_benchmark.py") == len(runs)
    assert sorted(map(str, shard_pairs)) == sorted(map(str, _pairs(tmp_path / "p" / "pairs.csv")))


def test_plan_refuses_bad_input(capsys, tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x").write_text("keep")
    code, _, err = _plan(capsys, tmp_path)
    assert code == 2 and "exists and is not an empty directory" in err and (tmp_path / "p" / "x").exists()
    code, _, err = _plan(capsys, tmp_path, "--dtype", "bf17", out="new")
    assert code == 2 and "bf17" in err and not (tmp_path / "new").exists()
    code, _, err = _plan(capsys, tmp_path, budget=0, out="new")
    assert code == 2 and "--budget 0" in err and not (tmp_path / "new").exists()
    code, _, err = _plan(capsys, tmp_path, "--shards", "99", out="new")
    assert code == 2 and "--shards 99" in err and not (tmp_path / "new").exists()
    code, _, err = run(capsys, "plan", "merge")
    assert code == 2 and "results files" in err
    (tmp_path / "loose.csv").write_text("kernel,N,tflops\ngrouped_conv_forward_bf16_2d_16x64x64_compv3,1,2.0\n")
    code, _, err = run(capsys, "plan", "merge", str(tmp_path / "loose.csv"))
    assert code == 2 and "not in a shard folder of a plan" in err
    assert "Traceback" not in err


def _cands(n):
    return [Candidate(f"k{j}", f"grouped_conv_forward_bf16_2d_{16 << (j % 4)}x{64 << (j // 4)}x64_compv3", 10.0 - j,
                      1.0 + j) for j in range(n)]


def test_make_plan_spreads_and_never_replans_measured():
    problems = [parse_problem(f"N={n},C={c},K=64") for n in (1, 2, 4, 8, 16) for c in (64, 128, 256)]
    cands = [_cands(6) for _ in problems]
    plan = make_plan(problems, cands, 15, seed=0)
    assert len(plan.picks) == 15 and len({p.problem for p in plan.picks}) == 3  # five slots on three problems
    assert [p.why.split(" (")[0] for p in plan.picks[:5]] == ["winner", "near-winner", "kernel coverage",
                                                            "near-winner", "near-winner"]
    four = make_plan(problems, cands, 15, seed=0, first=4)
    assert len({p.problem for p in four.picks}) == 4  # four slots on three problems, three on a fourth
    measured = frozenset((p.problem, p.label) for p in plan.picks)
    again = make_plan(problems, cands, 100, seed=0, hints=Hints(measured=measured))
    assert not {(p.problem, p.label) for p in again.picks} & measured
    assert len(again.picks) == 15 * 6 - 15  # every candidate left, once
    assert again.skipped_measured == 15


def test_balance_keeps_shards_within_five_percent():
    weights = [((i * 7919) % 1000 + 1) / 100 for i in range(2000)]
    shard_of = balance(weights, 8)
    assert imbalance(weights, shard_of, 8) <= 1.05
    assert balance(weights, 8) == shard_of  # deterministic


def _shard_results(shard: Path, rows: list[dict], extra: list[dict] = ()):
    columns = ["kernel", "problem_idx", "N", "C", "K", "G", "Hi", "Wi", "Y", "X", "stride_h", "stride_w", "pad_h",
               "pad_w", "latency_ms", "tflops", "non_zero"]
    with (shard / "results.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, columns, extrasaction="ignore")
        w.writeheader()
        for i, r in enumerate([*rows, *extra]):
            w.writerow({"non_zero": 10 ** 9, **r, "kernel": r["label"], "problem_idx": i, "latency_ms": 0.01,
                        "tflops": 1.0 + i})


def test_merge_checks_rows_against_the_plan(capsys, tmp_path):
    code, _, err = _plan(capsys, tmp_path, "--shards", "2")
    assert code == 0, err
    shards = sorted((tmp_path / "p").glob("shard_*"))
    a, b = (_pairs(s / "pairs.csv") for s in shards)
    # a by-product: a planned problem with a tile the plan did not ask for
    other = next(lb for lb in ("grouped_conv_forward_bf16_2d_16x64x64_compv3",
                               "grouped_conv_forward_bf16_2d_32x64x64_compv3") if lb not in {r["label"] for r in a})
    _shard_results(shards[0], a, [{**a[0], "label": other}])
    _shard_results(shards[1], b[1:])  # one pair missing
    files = [str(s / "results.csv") for s in shards]
    code, out, err = run(capsys, "plan", "merge", *files)
    assert code == 0, err
    assert f"{len(a) + len(b) - 1} of {len(a) + len(b)} planned pairs measured, 1 missing, 1 by-product" in err
    merged = list(csv.DictReader(out.splitlines()))
    assert len(merged) == len(a) + len(b) - 1 and len(merged[0]) == 24
    assert [int(r["problem_idx"]) for r in merged] == sorted(int(r["problem_idx"]) for r in merged)
    merge = merge_results(files, keep_extra=True)
    assert merge.extra == 1 and len(merge.text.splitlines()) == len(merged) + 2
    # a duplicate pair, an unplanned problem: errors naming the row
    _shard_results(shards[1], b, [b[0]])
    code, _, err = run(capsys, "plan", "merge", *files)
    assert code == 2 and "duplicate" in err and f"results.csv:{len(b) + 2}:" in err
    _shard_results(shards[1], b, [{**b[0], "N": 999}])
    code, _, err = run(capsys, "plan", "merge", *files)
    assert code == 2 and "unplanned" in err and "N=999" in err
    code, _, err = run(capsys, "plan", "merge", files[0], files[0])
    assert code == 2 and "another shard given also plans" in err


@pytest.mark.ck_data
def test_merge_leaves_out_invalid_rows(capsys, tmp_path):
    """A run that wrote almost none of its output is invalid by the hygiene rules: left out, its pair missing."""
    code, _, err = _plan(capsys, tmp_path)
    assert code == 0, err
    shard = tmp_path / "p" / "shard_000"
    rows = _pairs(shard / "pairs.csv")
    _shard_results(shard, [{**rows[0], "non_zero": 1}, *rows[1:]])
    code, _, err = run(capsys, "plan", "merge", str(shard / "results.csv"))
    assert code == 0 and "1 missing" in err and "1 invalid rows left out (written: 1)" in err, err


@pytest.mark.ck_data
def test_round_on_the_shared_file(capsys, tmp_path):
    """Two rounds on the real measurement file's problems and labels (shared/ck/measurements/
    training_data_forward_bf16_20.csv): the second never re-plans a pair of the first."""
    m = list(csv.DictReader(SHARED.open(newline="")))
    dims = ["N", "C", "K", "G", "Hi", "Wi", "Y", "X", "stride_h", "stride_w", "pad_h", "pad_w"]
    problems = list(dict.fromkeys(tuple(r[d] for d in dims) for r in m))
    (tmp_path / "w.csv").write_text(",".join(dims) + "\n" + "".join(",".join(p) + "\n" for p in problems))
    code, out, err = run(capsys, "plan", "--problems", str(tmp_path / "w.csv"), *PLAN, "--budget", "376",
                         "--shards", "4", "--out", str(tmp_path / "r1"))
    assert code == 0, err
    info = json.loads((tmp_path / "r1" / "plan.json").read_text())
    assert info["pairs"] == 376 and info["imbalance"] <= 1.05
    first = {(r["problem"], r["label"]) for r in _pairs(tmp_path / "r1" / "pairs.csv")}
    results = tmp_path / "r1.csv"
    with results.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", *dims, "tflops"])
        for r in _pairs(tmp_path / "r1" / "pairs.csv"):
            w.writerow([r["label"], *(r[d] for d in dims), "1.0"])
    code, out, err = run(capsys, "plan", "--problems", str(tmp_path / "w.csv"), *PLAN, "--budget", "376",
                         "--measurements", str(results), "--out", str(tmp_path / "r2"))
    assert code == 0 and "376 measured pairs left out" in out, (out, err)
    second = {(r["problem"], r["label"]) for r in _pairs(tmp_path / "r2" / "pairs.csv")}
    assert len(second) == 376 and not first & second


def test_plan_bytes_do_not_depend_on_the_hash_seed(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "w.csv").write_text(WORKLOAD)
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-m", "cksolve", "plan", "--problems", str(tmp_path / "w.csv"), *PLAN,
                               "--budget", "10", "--shards", "2", "--out", str(tmp_path / f"h{seed}")],
                              env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    files = sorted(p.relative_to(tmp_path / "h1") for p in (tmp_path / "h1").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "h2") for p in (tmp_path / "h2").rglob("*") if p.is_file())
    for f in files:
        assert (tmp_path / "h1" / f).read_bytes() == (tmp_path / "h2" / f).read_bytes(), f


def test_labels_of_one_kernel_are_one_candidate():
    # CK's runner builds the compv4 requests 16x64x64 and 16x64x128 as one default kernel (16x64x128,
    # double-buffered): planned once, through the label with the kernel's tile
    resolver = LabelResolver("gfx950")
    v4 = [f"grouped_conv_forward_bf16_2d_{t}_compv4" for t in ("16x64x64", "16x64x128", "64x64x64", "64x64x128",
                                                               "128x128x64")]
    v3 = ["grouped_conv_forward_bf16_2d_16x64x64_compv3"]
    assert canonical_labels(v4 + v3, resolver) == sorted([v3[0], v4[1], v4[3]])
    p = parse_problem("N=2,C=128,K=128,Hi=28,Wi=28")
    (cands,) = named_candidates([p], [v4 + v3], "gfx950", "bf16", resolver=resolver)
    assert sorted(c.label for c in cands) == sorted([v3[0], v4[1], v4[3]])
    assert len({c.kernel for c in cands}) == 3 and all(c.kernel == resolver.config(c.label).name() for c in cands)


def test_rule_set_candidates_are_distinct_kernels_of_the_runner():
    resolver = LabelResolver("gfx950")
    p = parse_problem("N=2,C=128,K=128,Hi=28,Wi=28")
    (cands,) = rule_set_candidates([p], query.load_rule_set("full"), "gfx950", "bf16", resolver=resolver)
    built = [resolver.config(c.label).name() for c in cands]
    assert len(cands) > 1 and len(set(built)) == len(built)  # no two labels the runner builds as one kernel


def test_a_measured_label_marks_its_kernel_measured(tmp_path):
    # a round measured the compv4 request 16x64x64, which the runner builds as the 16x64x128 double-buffered
    # kernel: that kernel's candidate (planned through its own label) is measured, not planned again
    from cksolve.plan.workload_plan import earlier_rounds, read_workload

    (tmp_path / "w.csv").write_text(WORKLOAD)
    w = read_workload(tmp_path / "w.csv", query.load_rule_set("default"), "gfx950", "bf16")
    canon = "grouped_conv_forward_bf16_2d_16x64x128_compv4_intrawave_dsb"
    assert canon in [c.label for c in w.candidates[0]]
    (tmp_path / "r1.csv").write_text("kernel,N,G,C,K,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,tflops\n"
                                     "grouped_conv_forward_bf16_2d_16x64x64_compv4,4,4,256,256,28,28,1,1,1,1,0,0,9.0\n")
    hints, counts = earlier_rounds(w, "gfx950", "bf16", [tmp_path / "r1.csv"])
    assert hints.measured == {(0, canon)} and counts["measured_outside"] == 0
    plan = make_plan(w.problems, w.candidates, 1000, hints=hints)
    assert (0, canon) not in {(p.problem, p.label) for p in plan.picks}
