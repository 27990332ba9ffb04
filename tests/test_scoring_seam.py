"""One scoring seam: the padding score is the ``padding`` scorer, every command takes a scorer by name, the
``Scorer`` face carries the batch callers use, the measured rule is one function, and the data files the
scorers and rule sets read are checked against their schemas (one error line naming file, key and fault).

Scores here are the padding score's and the analytic model's (models, not measurements); the perf file is
MADE-UP numbers."""

from __future__ import annotations

import copy
import json
import sys
import types

import numpy as np
import pytest

from test_cli import run

from cksolve.errors import CksolveError
from cksolve.rulesets import get_rule_set
from cksolve.rulesets.builtin_data import load_toml
from cksolve.rulesets.schemas import DEFAULT_SCHEMA, FULL_SCHEMA
from cksolve.scoring import SCORERS, get_scorer
from cksolve.scoring.factorfile import FACTORS_SCHEMA, base_factors, pipeline_coverage
from cksolve.space.datafile import load
from cksolve.space.naming import parse_name
from cksolve.space.pipelines import PIPELINES
from cksolve.workload import applicable, parse_problem
from cksolve.workload.score import analytic_scores

PROBLEMS = ["N=2,C=64,K=64,Hi=28,Wi=28", "N=8,C=64,K=64,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1",
            "N=1,G=4,C=32,K=48,Hi=7,Wi=9"]


def _kernels(problem: str, rule_set: str = "default", arch: str = "gfx942", dtype: str = "fp16") -> list:
    return [parse_name(n) for n in applicable(parse_problem(problem), get_rule_set(rule_set), arch, dtype)]


# --- the padding scorer ----------------------------------------------------------------------------------------


def test_the_padding_score_is_a_scorer_of_its_own_name():
    """``padding`` is registered; its grid is minimize's score bit for bit, and its pairs the grid's."""
    assert "padding" in SCORERS
    scorer = get_scorer("padding")
    assert scorer.kind == "padding" and "padding score" in scorer.describe()
    problems = [parse_problem(p) for p in PROBLEMS]
    configs = _kernels(PROBLEMS[0])
    grid = scorer.score_grid(problems, configs, "gfx942", "fp16")
    assert grid.shape == (3, len(configs)) and grid.tobytes() == analytic_scores(problems, configs, "gfx942").tobytes()
    pairs = [(p, c) for p in problems for c in configs]
    assert scorer.score(pairs, "gfx942", "fp16") == grid.ravel().tolist()


def test_prepare_is_where_the_padding_scorer_refuses_an_arch_without_a_device():
    with pytest.raises(CksolveError, match="no compute-unit count for gfx9999"):
        get_scorer("padding").prepare("gfx9999", "fp16")


def test_every_scorer_batches_problems_by_configs():
    """``score_grid`` is on the face of every scorer: the analytic model's grid is its pairs' scores."""
    problems = [parse_problem(p) for p in PROBLEMS[:2]]
    configs = _kernels(PROBLEMS[0])[:6]
    for kind in ("analytic", "padding"):
        scorer = get_scorer(kind)
        scorer.prepare("gfx942", "fp16")
        grid = scorer.score_grid(problems, configs, "gfx942", "fp16")
        want = scorer.score([(p, c) for p in problems for c in configs], "gfx942", "fp16")
        assert isinstance(grid, np.ndarray) and grid.ravel().tolist() == want, kind
        assert scorer.score_grid([], configs, "gfx942", "fp16").shape == (0, len(configs))


def test_get_scorer_refuses_an_unknown_name_with_the_nearest():
    with pytest.raises(CksolveError, match=r"unknown scorer 'paddng'; valid: .*did you mean 'padding'\?"):
        get_scorer("paddng")


# --- --scorer on the commands ----------------------------------------------------------------------------------


@pytest.fixture
def workload_file(tmp_path):
    f = tmp_path / "w.jsonl"
    f.write_text("".join(json.dumps(dict(kv.split("=") for kv in p.split(","))) + "\n" for p in PROBLEMS[:2]))
    return f


@pytest.mark.parametrize("command", ["minimize", "select", "search", "evaluate"])
def test_an_unknown_scorer_is_one_line_with_did_you_mean(capsys, tmp_path, workload_file, command):
    args = {"minimize": ["--problems", str(workload_file), "-r", "default", "--dtype", "fp16"],
            "select": ["-p", PROBLEMS[0], "-r", "default", "--dtype", "fp16"],
            "search": ["-p", PROBLEMS[0], "-r", "default"],
            "evaluate": ["--measurements", str(workload_file)]}[command]
    code, out, err = run(capsys, command, *args, "-a", "gfx942", "--scorer", "padidng")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "unknown --scorer 'padidng'" in err and "did you mean 'padding'?" in err, err


def test_minimize_takes_the_padding_scorer_by_name(capsys, workload_file):
    argv = ["minimize", "--problems", str(workload_file), "-r", "default", "-a", "gfx942", "--dtype", "fp16",
            "--summary-format", "json"]
    code, names, summary = run(capsys, *argv)
    assert code == 0 and '"scored_by": "padding"' in summary  # nothing calls it analytic any more
    assert run(capsys, *argv, "--scorer", "padding")[:2] == (0, names)  # the default, said by name
    code, _, err = run(capsys, *argv, "--scorer", "analytic")
    assert code == 2 and "minimize ranks by padding or measured" in err
    code, _, err = run(capsys, *argv, "--scorer", "measured")
    assert code == 2 and "--scorer measured needs --perf FILE" in err


def test_select_and_search_rank_by_padding_by_name(capsys):
    """``select --scorer padding`` ranks by the padding score, the one ``search --scorer padding`` (its CP-SAT
    backend) maximises: the same best kernel and score."""
    code, out, err = run(capsys, "select", "-p", PROBLEMS[0], "-r", "default", "-a", "gfx942", "--dtype", "fp16",
                         "--scorer", "padding", "--top", "1", "--format", "jsonl")
    assert code == 0 and "ranking by the padding score" in err
    best = json.loads(out)
    code, out, _ = run(capsys, "search", "-p", PROBLEMS[0], "-r", "default", "-a", "gfx942", "--scorer", "padding",
                       "--format", "jsonl")
    assert code == 0
    found = json.loads(out.splitlines()[0])
    assert found["name"] == best["name"] and abs(found["score"] - best["score"]) < 1e-6
    code, _, err = run(capsys, "search", "-p", PROBLEMS[0], "-a", "gfx942", "--scorer", "padding",
                       "--backend", "direct")
    assert code == 2 and "--scorer padding is the score of --backend cpsat" in err
    code, _, err = run(capsys, "select", "-p", PROBLEMS[0], "-r", "default", "-a", "gfx942", "--dtype", "fp16",
                       "--scorer", "padding", "--device", "MI300X")
    assert code == 2 and "--device is for --scorer analytic, not padding" in err


# --- one measured rule -----------------------------------------------------------------------------------------


def test_one_measured_rule_serves_minimize_perf_and_the_measured_scorer(tmp_path, monkeypatch):
    """``minimize --perf`` scores through the measured scorer and groups its scores: both ask
    ``workload.perf.measured_scores`` (patched here to count), which scores an unmeasured pair 0."""
    from cksolve import scoring, workload
    from cksolve.workload import grouping, perf
    from cksolve.scoring import measured as measured_module

    assert perf.measured_scores({"a": 2.0}, ["a", "b"]) == [2.0, 0.0]
    assert perf.measured_scores(None, ["a", "b"]) == [0.0, 0.0]
    problem = parse_problem(PROBLEMS[1])
    names = applicable(problem, get_rule_set("default"), "gfx942", "fp16")
    path = tmp_path / "perf.csv"
    path.write_text("N,C,K,Hi,Wi,Y,X,pad_h,pad_w,kernel,tflops\n"  # MADE-UP numbers; the last kernel unmeasured
                    + "".join(f"8,64,64,28,28,3,3,1,1,{n},{10.0 + i}\n" for i, n in enumerate(names[:-1])))
    calls = {"grouping": 0, "scorer": 0}

    def counting(where):
        def spy(measured, kernels):
            calls[where] += 1
            return perf.measured_scores(measured, kernels)
        return spy

    monkeypatch.setattr(grouping, "measured_scores", counting("grouping"))
    monkeypatch.setattr(measured_module, "measured_scores", counting("scorer"))
    plan = workload.minimize_kernels([problem], get_rule_set("default"), "gfx942", ["fp16"], perf=path,
                                     scorer=lambda rows: scoring.get_scorer("measured", path=path, rows=rows))
    assert calls["grouping"] and calls["scorer"], calls
    assert plan.kept == (names[-2],)  # the best measured; the unmeasured one scored 0


# --- schemas ---------------------------------------------------------------------------------------------------


def _package(tmp_path, monkeypatch, filename: str, text: str) -> str:
    """A stand-in package holding one data file, for the one loader (``space.datafile.load``)."""
    (tmp_path / filename).write_text(text, encoding="utf-8")
    module = types.ModuleType("seam_data")
    module.__file__ = str(tmp_path / "__init__.py")
    monkeypatch.setitem(sys.modules, "seam_data", module)
    return "seam_data"


def _text(package: str, filename: str) -> str:
    from pathlib import Path

    return (Path(sys.modules[package].__file__).parent / filename).read_text(encoding="utf-8")


@pytest.mark.parametrize("filename, schema, edit, fault", [
    ("full.toml", FULL_SCHEMA, ("[warp_mn]\n", "[warp_mn]\nlarge_max = 64\n"), "[warp_mn]: unknown key 'large_max'"),
    ("full.toml", FULL_SCHEMA, ("k1_large = 8", 'k1_large = "8"'), "[warp_tile_k].k1_large: expected int, got '8'"),
    ("full.toml", FULL_SCHEMA, ("lds_max_bits = 256\n", ""), "[vectors].gate: missing key 'lds_max_bits'"),
    ("full.toml", FULL_SCHEMA, ('name = "split_image"\n', 'name = "split_image"\nmin_tile_k = 8\n'),
     "unknown key 'min_tile_k'"),
    ("default.toml", DEFAULT_SCHEMA, ("compv4_k_factor = 2", "compv4_k_factor = 2.0"),
     "[compv4_k_factor]: expected int, got 2.0"),
    ("default.toml", DEFAULT_SCHEMA, ("[two_stage]\n", "[two_stage]\nbwd_wieght = [true]\n"),
     "[two_stage]: unknown key 'bwd_wieght'"),
    ("default.toml", DEFAULT_SCHEMA, ("compv4_k_factor = 2\n", ""), "top level: missing key 'compv4_k_factor'"),
])
def test_a_rule_set_data_file_refuses_a_bad_edit_in_one_line(tmp_path, monkeypatch, filename, schema, edit, fault):
    text = _text("cksolve.rulesets", filename)
    assert load_toml("cksolve.rulesets", filename, schema)  # the shipped file passes its schema
    old, new = edit
    assert text.count(old) >= 1
    package = _package(tmp_path, monkeypatch, filename, text.replace(old, new, 1))
    with pytest.raises(CksolveError) as exc:
        load_toml(package, filename, schema)
    line = str(exc.value)
    assert "\n" not in line and line.startswith(f"{filename}: ") and fault in line, line


def test_the_rule_sets_load_their_files_through_their_schemas(monkeypatch):
    """``full`` and ``default`` hand their schema to the loader (not ``Any``)."""
    from cksolve.rulesets import builtin_data, default, full

    seen = {}

    def spy(package, filename, schema=None):
        seen[filename] = schema
        return builtin_data.load_toml(package, filename, schema)

    monkeypatch.setattr(full, "load_toml", spy)
    monkeypatch.setattr(default, "load_toml", spy)
    full.FullRuleSet()
    default.DefaultRuleSet()
    assert seen == {"full.toml": FULL_SCHEMA, "default.toml": DEFAULT_SCHEMA}


@pytest.mark.parametrize("edit, fault", [
    (("waves_to_hide = 2", "waves_to_hide = 2\nwaves_to_hid = 3"), "[latency]: unknown key 'waves_to_hid'"),
    (("l2_miss = ", "l2_miss = true #"), "[memory].l2_miss: expected int or float, got True"),
])
def test_factors_toml_refuses_a_bad_edit_in_one_line(tmp_path, monkeypatch, edit, fault):
    text = _text("cksolve.scoring", "factors.toml")
    package = _package(tmp_path, monkeypatch, "factors.toml", text.replace(*edit, 1))
    with pytest.raises(CksolveError) as exc:
        load(package, "factors.toml", FACTORS_SCHEMA)
    assert str(exc.value).startswith("factors.toml: ") and fault in str(exc.value), str(exc.value)


def test_factors_toml_covers_every_pipeline_and_a_missing_one_is_an_error(monkeypatch):
    """Every pipeline of the pipeline table has its factors (no silent defaults); one left out, or one no
    pipeline has, is one error line naming it."""
    data = base_factors()
    assert set(data["pipeline"]) == set(PIPELINES) and pipeline_coverage(data) == ""
    left_out = copy.deepcopy(data)
    del left_out["pipeline"]["wavelet"]
    assert pipeline_coverage(left_out).startswith("[pipeline]: missing key 'wavelet'")
    extra = copy.deepcopy(data)
    extra["pipeline"]["compv7"] = extra["pipeline"]["compv6"]
    assert "unknown key 'compv7'" in pipeline_coverage(extra)
    from cksolve.scoring import factorfile

    from cksolve.space.memos import MEMOS

    monkeypatch.setattr(factorfile, "load", lambda *a, **k: left_out)
    MEMOS.clear()  # every memo, not base_factors' alone: the arch tables resolved from it hold the same object
    try:
        with pytest.raises(CksolveError, match=r"^factors.toml: \[pipeline\]: missing key 'wavelet'"):
            factorfile.base_factors()
    finally:
        monkeypatch.undo()
        MEMOS.clear()


@pytest.mark.parametrize("value, schema, fault", [
    ({"a": [1, True]}, {"a": [int]}, "[a][1]: expected int, got True"),  # a TOML boolean is not an integer
    ({"a": {"b": [1, "x"]}}, {"a": {"*": [int]}}, "[a].b[1]: expected int, got 'x'"),
    ([[1], [2, 2.5]], [[int]], "top level[1][1]: expected int, got 2.5"),
    ({"a": [True, 1]}, {"a": [(bool, int)]}, ""),
])
def test_the_one_validator_names_the_place_of_a_bad_leaf(value, schema, fault):
    from cksolve.space.datafile import validate

    assert validate(value, schema) == fault
