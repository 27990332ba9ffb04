"""The workload commands: applicable, coverage, explain --problem; and docs/workloads.md's examples."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from conftest import CK, require_ck
from test_cli import _cksolve, run

HOLDOUT = str(CK / "workloads" / "validation_holdout.csv")
DOCS = [Path(__file__).resolve().parents[1] / "docs" / page for page in ("workloads.md", "minimize.md", "ml-features.md")]


def test_applicable_lists_kernels_that_run_the_problem(capsys):
    code, out, _ = run(capsys, "applicable", "--problem", "N=4,G=4,C=256,K=256,Hi=28,Wi=28,Y=1,X=1",
                       "--rule-set", "default", "--arch", "gfx942", "--dtype", "fp16")
    names = out.split()
    assert code == 0 and names and names == sorted(names)
    assert all("_2d_" in n and n.startswith("grouped_conv_fwd_fp16") for n in names)
    code, out, _ = run(capsys, "applicable", "--problem", "N=4,G=4,C=256,K=256,Y=1,X=1", "-r", "default",
                       "-a", "gfx942", "--dtype", "fp16", "--format", "jsonl")
    assert [json.loads(ln)["name"] for ln in out.splitlines()] == names
    # C per group 3: no kernel's vector_b divides it... unless vector_b is 1
    code, out, _ = run(capsys, "applicable", "--problem", "C=3,K=64", "-r", "default", "-a", "gfx942",
                       "--dtype", "fp16", "--format", "jsonl")
    assert all(json.loads(ln)["vector_b"] == 1 for ln in out.splitlines())


@pytest.mark.slow
@pytest.mark.ck_data
def test_coverage_formats_agree(capsys):
    args = ["coverage", "--problems", HOLDOUT, "-r", "tiny", "-a", "gfx942", "--dtype", "fp16,bf16"]
    code, out, _ = run(capsys, *args, "--format", "jsonl", "--with-kernels")
    records = [json.loads(ln) for ln in out.splitlines()]
    assert code == 0 and len(records) == 600
    assert [(r["row"], r["dtype"]) for r in records[:3]] == [(0, "fp16"), (0, "bf16"), (1, "fp16")]
    assert all(r["applicable"] == len(r["kernels"]) for r in records)
    code, out, _ = run(capsys, *args, "--format", "csv")
    lines = out.splitlines()
    assert lines[0].startswith("row,N,G,C,K,") and len(lines) == 601
    code, out, _ = run(capsys, *args)
    covered = sum(r["applicable"] > 0 for r in records)
    assert out.splitlines()[-1] == f"covered: {covered}/600"


def test_coverage_table_puts_uncovered_first_with_the_blocking_rule(capsys, tmp_path):
    f = tmp_path / "w.csv"
    f.write_text("N,G,C,K,Y,X\n1,1,64,64,3,3\n1,1,3,5,3,3\n", encoding="utf-8")
    code, out, _ = run(capsys, "coverage", "--problems", str(f), "-r", "default", "-a", "gfx942", "--dtype", "fp16")
    lines = out.splitlines()
    assert code == 0
    assert lines[1].split()[0] == "1" and "apply.forward." in lines[1], lines[1]
    assert lines[-1] == "covered: 1/2" and "covered forward fp16: 1/2" in lines


def test_explain_with_a_problem_names_the_failing_rule(capsys):
    name = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"
    code, out, _ = run(capsys, "explain", name, "--arch", "gfx942", "--problem", "C=6,K=64,Y=3,X=3", "--nearest", "1")
    assert code == 1  # valid, but cannot run the problem
    assert "C per group 6 is not a multiple of vector_a 4 [apply.forward.vector_a]" in out
    assert "Nearest valid configs" in out
    code, out, _ = run(capsys, "explain", name, "--arch", "gfx942", "--problem", "C=64,K=64,Y=3,X=3", "--nearest", "0")
    assert code == 0 and "It can run problem" in out, out


@pytest.mark.parametrize("argv,start", [
    (["applicable", "--problem", "C=65,G=2", "-r", "default", "-a", "gfx942"], "problem spec 'C=65,G=2': field C"),
    (["applicable", "--problem", "N=-1", "-r", "default", "-a", "gfx942"], "problem spec 'N=-1': field N"),
    (["applicable", "--problem", "Hi=1,Y=3", "-r", "default", "-a", "gfx942"], "problem spec 'Hi=1,Y=3': output"),
    (["applicable", "--problem", "Foo=1", "-r", "default", "-a", "gfx942"], "problem spec 'Foo=1': unknown field"),
    (["applicable", "--problem", "C=x", "-r", "default", "-a", "gfx942"], "problem spec 'C=x': field C"),
    (["applicable", "--problem", "C=64", "-r", "default", "-a", "gfx942", "--dtype", "fp8"], "unknown dtype 'fp8'"),
    (["applicable", "--problem", "C=64", "-r", "default", "-a", "gfx942", "-f", "xml"], "unknown format 'xml'"),
    (["coverage", "--problems", "/nonexistent.csv", "-r", "default", "-a", "gfx942"], "cannot read /nonexistent.csv"),
    (["explain", "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x64_1x4x1_16x16x16", "--arch",
      "gfx942", "--problem", "Z=0"], "problem spec 'Z=0': field Z"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, start):
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"cksolve: error: {start}"), err


def test_bad_problem_file_names_file_line_and_field(capsys, tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("N,G,C,K,Hi\n1,1,64,64,28\n1,1,64,64,abc\n", encoding="utf-8")
    code, _, err = run(capsys, "coverage", "--problems", str(f), "-r", "default", "-a", "gfx942")
    assert code == 2 and err == f"cksolve: error: {f}:3: field Hi: not an integer (expected decimal ASCII digits, at most 18)\n"


@pytest.mark.slow
@pytest.mark.ck_data
def test_coverage_is_byte_identical_across_hash_seeds():
    outs = {_cksolve(seed, "coverage", "--problems", HOLDOUT, "-r", "default", "-a", "gfx950", "--format", "jsonl",
                     "--with-kernels", check=True).stdout for seed in ("0", "31337")}
    assert len(outs) == 1 and next(iter(outs)).count(b"\n") == 900


def _doc_examples():
    """(command line, the error line the doc shows after it, or None)."""
    out = []
    for doc in DOCS:
        lines = doc.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if line.startswith("$ cksolve "):
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                out.append((line[len("$ cksolve "):], nxt if nxt.startswith("cksolve: error:") else None))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("line,error", _doc_examples())
def test_docs_examples_run(capsys, line, error):
    if "../shared" in line:
        require_ck()
    argv = [a.replace("../shared", str(CK.parent)) for a in shlex.split(line)]
    code, out, err = run(capsys, *argv)
    if error is None:
        assert code in (0, 1) and out and "error" not in err, (line, err)
    else:
        assert code == 2 and err == error + "\n", (line, err)
