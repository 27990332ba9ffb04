"""``select``/``search --measurements`` answer from measurements or say they cannot: a dtype the file does not
hold is refused, and problems it never measured are refused unless ``--allow-unmeasured`` (then counted).

The measurement files here are MADE UP (``cksolve.ml.madeup``: a documented function with noise, bf16 kernels);
nothing is claimed about a GPU.
"""

from __future__ import annotations

import json

import pytest

from test_cli import run

#: a problem the made-up file measured (its first problem, seed 1) and two it did not
MEASURED = "N=32,C=64,K=64,Hi=14,Wi=14,Y=3,X=3,stride_h=2,stride_w=2,pad_h=1,pad_w=1"
UNMEASURED = ("N=1,C=64,K=64,Hi=14,Wi=14,Y=3,X=3,pad_h=1,pad_w=1", "N=2,C=64,K=64,Hi=14,Wi=14")


@pytest.fixture(scope="module")
def made_up(tmp_path_factory):
    from cksolve.ml.madeup import made_up_rows
    from cksolve.ml.training_data import CK_COLUMNS

    d = tmp_path_factory.mktemp("unmeasured")
    m = d / "m.csv"
    m.write_text(",".join(CK_COLUMNS) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in made_up_rows(30, 1)))
    problems = d / "p.jsonl"
    from cksolve.workload import parse_problem

    problems.write_text("".join(json.dumps(parse_problem(s).as_dict()) + "\n" for s in (MEASURED, *UNMEASURED)))
    return m, problems


def _select(m, *args):
    return ["select", *args, "-r", "full", "-a", "gfx950", "--measurements", str(m), "--top", "1"]


@pytest.mark.parametrize("command", ["select", "search"])
def test_a_dtype_the_file_does_not_hold_is_refused(capsys, made_up, command):
    m, _ = made_up
    argv = (_select(m, "-p", MEASURED) if command == "select"
            else ["search", "-p", MEASURED, "-r", "full", "-a", "gfx950", "--measurements", str(m)])
    code, out, err = run(capsys, *argv, "--dtype", "fp16")
    assert code == 2 and out == ""
    assert err == f"cksolve: error: --measurements {m} holds bf16 measurements, no fp16 one: give --dtype bf16, " \
                  "or another file\n"


def test_a_measured_problem_is_ranked_by_its_measurements(capsys, made_up):
    m, _ = made_up
    code, out, err = run(capsys, *_select(m, "-p", MEASURED), "--dtype", "bf16", "-f", "jsonl")
    assert code == 0, err
    (rec,) = [json.loads(line) for line in out.splitlines()]
    assert rec["score"] > 0 and "note" not in err


@pytest.mark.parametrize("spec", UNMEASURED)
def test_an_unmeasured_problem_is_refused_then_allowed(capsys, made_up, spec):
    m, _ = made_up
    code, out, err = run(capsys, *_select(m, "-p", spec), "--dtype", "bf16")
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == f"cksolve: error: --measurements {m} has no bf16 measurement for the problem; " \
                                   "give --allow-unmeasured to list its kernels anyway (each scores 0: name order)"
    code, out, err = run(capsys, *_select(m, "-p", spec), "--dtype", "bf16", "--allow-unmeasured", "-f", "jsonl")
    assert code == 0 and json.loads(out)["score"] == 0
    assert f"cksolve: note: {m} has no bf16 measurement for the problem: its kernels all score 0" in err


def test_a_problems_file_counts_what_was_not_measured(capsys, made_up):
    m, problems = made_up
    code, out, err = run(capsys, *_select(m, "--problems", str(problems)), "--dtype", "bf16")
    assert code == 2 and out == ""
    assert "has no bf16 measurement for 2 of 3 problems (the first: problem 1)" in err
    code, out, err = run(capsys, *_select(m, "--problems", str(problems)), "--dtype", "bf16", "--allow-unmeasured",
                         "-f", "jsonl")
    assert code == 0
    assert [json.loads(line)["score"] > 0 for line in out.splitlines()] == [True, False, False]
    assert "note: " in err and "2 of 3 problems" in err


def test_search_refuses_an_unmeasured_problem_and_says_it_when_allowed(capsys, made_up):
    m, _ = made_up
    argv = ["search", "-p", UNMEASURED[0], "-r", "tiny", "-a", "gfx950", "--dtype", "bf16", "--measurements", str(m)]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "has no bf16 measurement for the problem; give --allow-unmeasured" in err
    code, out, err = run(capsys, *argv, "--allow-unmeasured")
    assert code == 0 and "has no bf16 measurement for the problem: its kernels all score 0" in out


@pytest.mark.parametrize("command", ["select", "search"])
def test_allow_unmeasured_needs_measurements(capsys, command):
    argv = ["-p", MEASURED, "-r", "tiny", "-a", "gfx950", "--dtype", "bf16", "--allow-unmeasured"]
    code, _, err = run(capsys, command, *argv)
    assert code == 2 and err == "cksolve: error: --allow-unmeasured goes with --measurements\n"
