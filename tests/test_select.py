"""``select``: only kernels that can run the problem, deterministic ties, blocked problems named.

Measurements here are MADE UP (``cksolve.ml.madeup``); nothing is claimed about a real GPU.
"""

from __future__ import annotations

import json
import random

import pytest

from cksolve.rulesets import get_rule_set
from cksolve.scoring import get_scorer
from cksolve.scoring import select
from cksolve.workload import applicable, parse_problem
from test_cli import run

PROBLEMS = ("N=8,C=256,K=256,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1", "N=1,G=4,C=12,K=8,Hi=9,Wi=9,Y=1,X=1",
            "N=2,C=3,K=64,Hi=56,Wi=56,Y=7,X=7,stride_h=2,stride_w=2,pad_h=3,pad_w=3")


class Constant:
    """Every pair scores the same: the order is the tie-break alone."""

    kind = "constant"

    def score(self, pairs, arch, dtype):
        return [1.0] * len(pairs)

    def describe(self):
        return "constant"


class Shuffled:
    """Wraps a scorer; hands it the pairs in a shuffled order (the ranking must not depend on pool order)."""

    kind = "shuffled"

    def __init__(self, inner, seed):
        self.inner, self.rng = inner, random.Random(seed)

    def score(self, pairs, arch, dtype):
        order = list(range(len(pairs)))
        self.rng.shuffle(order)
        got = self.inner.score([pairs[i] for i in order], arch, dtype)
        out = [0.0] * len(pairs)
        for k, i in enumerate(order):
            out[i] = got[k]
        return out


@pytest.mark.parametrize("kind", ["analytic", "constant"])
def test_select_lists_only_kernels_that_can_run(kind):
    rs = get_rule_set("tiny")
    scorer = Constant() if kind == "constant" else get_scorer("analytic")
    problems = [parse_problem(p) for p in PROBLEMS]
    records = list(select(problems, rs, "gfx942", "fp16", scorer, top=1000))
    for i, p in enumerate(problems):
        can = set(applicable(p, rs, "gfx942", "fp16"))
        mine = [r for r in records if r.problem == i]
        listed = [r.name for r in mine if r.name]
        assert set(listed) <= can, set(listed) - can
        assert [r.rank for r in mine if r.rank] == list(range(1, len(listed) + 1))


def test_ties_are_by_name_whatever_the_pool_order():
    rs = get_rule_set("tiny")
    p = [parse_problem(PROBLEMS[0])]
    base = [r.name for r in select(p, rs, "gfx942", "fp16", Constant(), top=50)]
    assert base == sorted(base)
    for seed in range(3):
        again = [r.name for r in select(p, rs, "gfx942", "fp16", Shuffled(Constant(), seed), top=50)]
        assert again == base


def test_blocked_problem_names_the_rule(capsys):
    code, out, err = run(capsys, "select", "--problem", "N=1,G=3,C=3,K=3,Hi=8,Wi=8,Y=1,X=1", "-r", "tiny",
                         "-a", "gfx942", "--dtype", "fp16", "--format", "jsonl")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["rank"] is None and rec["name"] is None and rec["blocked_by"].startswith("apply.")
    assert "no kernel can run 1 of 1" in err


def test_select_jsonl_and_measured_scorer(tmp_path, capsys):
    from cksolve.features.ckname import dispatcher_name
    from cksolve.space.naming import parse_name

    rs = get_rule_set("tiny")
    p = parse_problem(PROBLEMS[0])
    names = applicable(p, rs, "gfx942", "fp16")
    fwd = [n for n in names if n.startswith("grouped_conv_fwd_")]
    best = fwd[-1]
    measured = tmp_path / "m.jsonl"  # MADE UP: one kernel measured fast (under its short name), one slow
    rows = [{**p.as_dict(), "kernel": dispatcher_name(parse_name(best)), "tflops": 100.0},
            {**p.as_dict(), "kernel": fwd[0], "tflops": 1.0}]
    del rows[0]["direction"], rows[1]["direction"], rows[0]["split_k"], rows[1]["split_k"]
    measured.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = run(capsys, "select", "--problem", PROBLEMS[0], "-r", "tiny", "-a", "gfx942", "--dtype", "fp16",
                         "--measurements", str(measured), "--top", "2", "--format", "jsonl")
    assert code == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    assert [set(r) for r in recs] == [{"problem", "rank", "name", "score"}] * 2
    assert recs[0]["score"] == 100.0 and dispatcher_name(parse_name(recs[0]["name"])) == \
        dispatcher_name(parse_name(best))
    assert "ranking by measured TFLOPS" in err


def test_select_argument_errors(capsys):
    code, _, err = run(capsys, "select", "-r", "tiny", "-a", "gfx942", "--dtype", "fp16")
    assert code == 2 and "--problem" in err
    code, _, err = run(capsys, "select", "-p", "N=1", "-r", "tiny", "-a", "gfx942", "--dtype", "fp16", "--top", "0")
    assert code == 2 and "--top 0" in err


def test_select_from_a_names_file(tmp_path, capsys):
    rs = get_rule_set("tiny")
    p = parse_problem(PROBLEMS[0])
    can = [n for n in applicable(p, rs, "gfx942", "fp16") if n.startswith("grouped_conv_fwd_")]
    names = tmp_path / "names.txt"
    names.write_text("\n".join(can[:2]) + "\n")
    code, out, err = run(capsys, "select", "-p", PROBLEMS[0], "--names", str(names), "-a", "gfx942", "--dtype", "fp16",
                         "--top", "5", "--format", "csv")
    assert code == 0, err
    rows = out.splitlines()[1:]
    assert sorted(r.split(",")[2] for r in rows) == sorted(can[:2])


def test_device_errors_and_search_rerank_says_so(tmp_path, capsys):
    code, _, err = run(capsys, "select", "-p", PROBLEMS[0], "-r", "tiny", "-a", "gfx942", "--dtype", "fp16",
                       "--device", "MI355X")
    assert code == 2 and err.strip() == ("cksolve: error: --device MI355X is a gfx950 part, not gfx942; gfx942's "
                                         "devices: MI300X, MI300A, MI325X")
    measured = tmp_path / "m.csv"  # MADE UP: one measurement
    measured.write_text("kernel,N,C,K,Hi,Wi,Y,X,pad_h,pad_w,tflops\n"
                        "grouped_conv_forward_fp16_2d_128x128x64_compv3_intrawave,8,256,256,28,28,3,3,1,1,9.0\n")
    code, out, err = run(capsys, "search", "-p", PROBLEMS[0], "-a", "gfx942", "--dtype", "fp16", "-r", "tiny",
                         "--measurements", str(measured), "--pool", "5", "--top", "2")
    assert code == 0, err
    assert "to a pool of 5 tile shapes, re-ranked by measured TFLOPS" in out
