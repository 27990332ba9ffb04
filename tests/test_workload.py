"""Workloads: problems, CK Tile's run-time checks, applicable and coverage.

Golden cases are written by hand from ../shared/ck/applicability.md: for each rule
a problem it accepts and one it rejects, on a kernel chosen to isolate the rule.
"""

from __future__ import annotations

import pytest

from cksolve import query
from cksolve.solver import enumerate_combo, evaluate
from cksolve.space.naming import parse_name
from cksolve.workload import Problem, ProblemError, applicable, applicability_constraints, coverage, parse_problem, read_problems
from cksolve.workload.explain_problem import runs

from conftest import CK

FWD = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"  # vec 4/8/8
FWD_1X1S1 = FWD + "_filter1x1_stride1_pad0"
FWD_1X1 = FWD + "_filter1x1_pad0"
FWD_GM8 = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16_vec1_1_8_gm8"
BWDW = "grouped_conv_bwd_weight_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"
DW = "grouped_conv_fwd_depthwise_fp16_ngchw_2d_16x16_f3_s1x1_p1x1_nb8_sub1x4_vec8_8"


def failed(name: str, spec: str, arch: str = "gfx942") -> set[str]:
    """The applicability rules the kernel fails on the problem (by rule key)."""
    config = parse_name(name)
    extra = applicability_constraints(parse_problem(spec).facts(), arch, config.dtype, config.kind)
    verdict = evaluate(config, arch, None, extra)
    return {v.constraint.rsplit(".", 1)[1] for v in verdict.problem_violations}


GOLDEN = [
    # (kernel, problem spec, rules it fails) -- one passing and one failing problem per rule
    (FWD, "C=64,K=64", set()),
    (FWD, "C=6,K=64", {"vector_a", "vector_b"}),                      # F7, F9: C per group 6
    (FWD, "G=2,C=16,K=64", set()),                                    # per group C=8: fine
    (FWD, "G=4,C=16,K=64", {"vector_b"}),                             # per group C=4: vector_b 8 fails, vector_a 4 fits
    (FWD, "C=64,K=36", {"vector_c"}),                                 # F10: K per group 36 % 8
    (FWD, "C=64,K=64,split_k=2", {"split_k"}),                        # F1
    (FWD_1X1S1, "C=64,K=64,Y=1,X=1", set()),                          # F3
    (FWD_1X1S1, "C=64,K=64,Y=1,X=1,stride_h=2,stride_w=2", {"specialization"}),
    (FWD_1X1, "C=64,K=64,Y=1,X=1,stride_h=2,stride_w=2", set()),      # F4: any stride
    (FWD_1X1, "C=64,K=64,Y=1,X=1,pad_h=1,pad_w=1", {"specialization"}),
    (FWD_GM8, "G=16,C=16,K=128", set()),                              # F8: C per group 1, G % 8 == 0
    (FWD_GM8, "G=12,C=12,K=96", {"merge_groups"}),                    # G % 8 != 0
    (FWD_GM8, "G=8,C=16,K=64", {"merge_groups"}),                     # C per group 2
    (BWDW, "C=64,K=64,direction=bwd_weight", set()),
    (BWDW, "C=64,K=34,direction=bwd_weight", {"vector_a"}),           # W10: K per group 34 % vector_a 4
    (BWDW, "C=60,K=64,direction=bwd_weight", {"vector_b", "vector_c"}),
    (BWDW, "N=8,C=64,K=64,direction=bwd_weight,split_k=200", {"split_k_limit"}),  # W5; W7 holds: 6272/16 >= 200
    (BWDW, "N=1,Hi=3,Wi=3,C=64,K=64,direction=bwd_weight,split_k=2", {"split_k_warp_tile"}),  # W7: GemmK 1 < 2
    (FWD, "C=64,K=64,direction=bwd_data", {"direction"}),
    (FWD, "C=64,K=64,Di=4", {"ndim"}),
    (DW, "G=32,C=32,K=32,Y=3,X=3,pad_h=1,pad_w=1,N=8", set()),        # F-DW
    (DW, "G=32,C=32,K=32,Y=3,X=3,pad_h=1,pad_w=1,N=4", {"depthwise"}),  # N % nbatch 8
    (DW, "G=32,C=32,K=32,Y=3,X=3,pad_h=1,pad_w=1,N=8,stride_h=2,stride_w=2", {"depthwise"}),
    (DW, "G=32,C=64,K=64,Y=3,X=3,pad_h=1,pad_w=1,N=8", {"depthwise"}),  # C per group 2
]


@pytest.mark.parametrize("name,spec,want", GOLDEN)
def test_golden(name, spec, want):
    assert failed(name, spec) == want, f"{name} on {spec}"


def test_async_pipeline_needs_gfx950():
    name = "grouped_conv_fwd_fp16_nhwgc_2d_comp_async_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"
    assert failed(name, "C=64,K=64", "gfx950") == set()
    assert "async_device" in failed(name, "C=64,K=64", "gfx942")


def test_bwd_data_gemm_count():
    name = "grouped_conv_bwd_data_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"
    assert failed(name, "C=64,K=64,direction=bwd_data") == set()
    # stride 16 with a 16x16 filter: 16 * 16 = 256 filter phases > 128
    assert failed(name, "C=64,K=64,Hi=64,Wi=64,Y=16,X=16,stride_h=16,stride_w=16,direction=bwd_data") == {"gemm_count"}


def test_problem_derivations():
    p = parse_problem("N=2,G=4,C=256,K=128,Hi=28,Wi=30,Y=3,X=3,stride_h=2,stride_w=2,pad_h=1,pad_w=1")
    f = p.facts()
    assert (f.c_per_group, f.k_per_group, f.output, p.ndim) == (64, 32, (14, 15), 2)
    assert (f.gemm_m, f.gemm_n, f.gemm_k) == (2 * 14 * 15, 32, 64 * 9)
    assert parse_problem("Di=2").ndim == 3 and parse_problem("pad_d=1").ndim == 3 and Problem().ndim == 2
    assert parse_problem(p.spec()) == p


@pytest.mark.parametrize("spec,start", [
    ("C=65,G=2", "problem spec 'C=65,G=2': field C: 65 is not divisible by G=2"),
    ("N=0", "problem spec 'N=0': field N: 0 must be at least 1"),
    ("Hi=1,Y=3", "problem spec 'Hi=1,Y=3': output size Ho=-1 is below 1"),
    ("Q=1", "problem spec 'Q=1': unknown field 'Q'"),
    ("C=abc", "problem spec 'C=abc': field C: 'abc' is not an integer"),
    ("C=\u0662", "problem spec 'C=\u0662': field C:"),
    ("direction=sideways", "problem spec 'direction=sideways': field direction: unknown 'sideways'"),
    ("C", "problem spec 'C': 'C' is not FIELD=VALUE"),
])
def test_bad_problem_spec(spec, start):
    with pytest.raises(ProblemError) as exc:
        parse_problem(spec)
    assert str(exc.value).startswith(start), str(exc.value)


def test_bad_problem_file_names_file_line_and_field(tmp_path):
    f = tmp_path / "w.csv"
    f.write_text("N,G,C,K\n1,1,64,64\n1,2,63,64\n", encoding="utf-8")
    with pytest.raises(ProblemError, match=r"w\.csv:3: field C: 63 is not divisible by G=2"):
        read_problems(f)
    f.write_bytes(b"N,G\n\xff\n")
    with pytest.raises(ProblemError, match="not UTF-8"):
        read_problems(f)
    j = tmp_path / "w.jsonl"
    j.write_text('{"N": 1, "C": 64}\n{"N": "x"}\n', encoding="utf-8")
    with pytest.raises(ProblemError, match=r"w\.jsonl:2: field N: not an integer \(expected decimal ASCII digits, at most 18\)$"):
        read_problems(j)


@pytest.mark.ck_data
def test_ck_workload_files_parse():
    rows = {f.name: read_problems(f) for f in sorted((CK / "workloads").glob("*.csv"))}
    assert {k: len(v) for k, v in rows.items()} == {
        "bwd_data_test_validation.csv": 10, "bwd_weight_test_validation.csv": 10, "validation_holdout.csv": 300}
    assert {p.direction for p in rows["bwd_data_test_validation.csv"]} == {"bwd_data"}
    assert sum(p.ndim == 3 for p in rows["validation_holdout.csv"]) == 50


def test_applicable_equals_evaluator_on_every_kernel():
    """The grouped decision equals the per-kernel evaluator, for every kernel of `default` on a few problems."""
    rs = query.load_rule_set("default")
    problems = [parse_problem(s) for s in ("C=64,K=64", "G=4,C=24,K=36,Y=1,X=1", "N=2,C=3,K=8,stride_h=2,stride_w=2",
                                          "C=64,K=64,Di=4,Z=3", "C=32,K=64,direction=bwd_weight,split_k=4")]
    for p in problems:
        got = set(applicable(p, rs, "gfx942", "fp16"))
        want = set()
        variants = {"forward": ("forward", "forward_depthwise")}.get(p.direction, (p.direction,))
        for v in variants:
            for c in enumerate_combo(rs, query.Combo("gfx942", v, "fp16", p.ndim)):
                if runs(c, "gfx942", p):
                    want.add(c.name())
        assert got == want, f"{p.spec()}: only grouped {sorted(got - want)[:3]}, only evaluator {sorted(want - got)[:3]}"


@pytest.mark.ck_data
def test_coverage_counts_equal_applicable():
    rs = query.load_rule_set("tiny")
    problems = read_problems(CK / "workloads" / "validation_holdout.csv")[:40]
    records = coverage(problems, rs, "gfx950", ["fp16", "fp32"])
    assert len(records) == 80
    for r in records:
        assert r.kernels == tuple(applicable(r.problem, rs, "gfx950", r.dtype)), r.row
        assert r.applicable or r.rejected or r.candidates == 0
