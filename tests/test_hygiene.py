"""Measurement hygiene (``workload.hygiene``), ``measurements check`` and ``evaluate`` for every scorer.

The small files here are SYNTHETIC, shaped like CK's validation sweep (C or K not a multiple of 8; runs that
wrote a fraction of their output); their timings are made up. Tests marked ``ck_data`` read the real file,
``shared/ck/measurements/training_data_forward_bf16_20.csv`` (CK's gfx950 bf16 forward sweep).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cksolve.workload.hygiene import (HygieneOptions, check_rows, probable_aliases, written_share)
from cksolve.workload.perf import read_measurement_file
from cksolve.workload import ProblemError, parse_problem
from cksolve.scoring.evaluation import KEYS, kendall_tau_b

from conftest import CK
from test_cli import run

REAL = CK / "measurements" / "training_data_forward_bf16_20.csv"
HEAD = "kernel,problem_idx,N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,latency_ms,tflops,non_zero\n"
L64 = "grouped_conv_forward_bf16_2d_64x64x64_compv3"
L16 = "grouped_conv_forward_bf16_2d_16x64x64_compv3"
K64 = "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_64x64x64_4x1x1_16x16x16"
K16 = "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x64_1x4x1_16x16x16"


def _row(label, i, C, K, tflops, non_zero, N=1, hw=14):
    return f"{label},{i},{N},{C},{K},1,{hw},{hw},3,3,1,1,1,1,0.01,{tflops},{non_zero}\n"


def sweep(tmp_path, extra: str = "") -> str:
    """Four problems x two labels: one valid, C = 36 (vector_b), K = 20 and 8% written (vector_c, written),
    K = 24 and 1/8 written (written)."""
    rows = [_row(L64, 0, 64, 64, 1.4, 12544), _row(L16, 0, 64, 64, 1.2, 12544),
            _row(L64, 1, 36, 64, 0.9, 12544), _row(L16, 1, 36, 64, 0.7, 12544),
            _row(L64, 2, 64, 20, 0.5, 300), _row(L16, 2, 64, 20, 0.4, 300),
            _row(L64, 3, 64, 24, 0.5, 588), _row(L16, 3, 64, 24, 0.4, 588)]
    f = tmp_path / "sweep.csv"
    f.write_text(HEAD + "".join(rows) + extra)
    return str(f)


def test_each_rule_invalidates_its_rows(tmp_path):
    depthwise = "grouped_conv_forward_depthwise_bf16_2d_64x64x64_compv3"  # a label default has no kernel for
    rows = read_measurement_file(sweep(tmp_path, _row(depthwise, 4, 64, 64, 1.0, 12544)))
    kept, h = check_rows(rows, HygieneOptions("gfx950"))
    assert [m.line for m in kept] == [2, 3]  # problem 0 only
    assert h.by_rule == {"apply.forward.vector_b": 2, "apply.forward.vector_c": 2, "label": 1, "written": 4}
    assert (h.rows, h.problems, h.invalid_rows, h.invalid_problems) == (9, 4, 7, 4)
    assert h.line() == ("excluded 7 invalid rows of 4 problems (apply.forward.vector_b: 2, apply.forward.vector_c: "
                        "2, label: 1, written: 4)")
    kept, h = check_rows(rows, HygieneOptions("gfx950", keep_invalid=True))
    assert len(kept) == 9 and h.line().startswith("kept (--keep-invalid) 7 invalid rows")
    # a lower bar on the written share: the K = 24 problem (1/8 written) passes, K = 20 (vector_c) does not
    _, h = check_rows(rows, HygieneOptions("gfx950", min_written=0.1))
    assert h.by_rule == {"apply.forward.vector_b": 2, "apply.forward.vector_c": 2, "label": 1, "written": 2}


def test_a_label_that_is_no_kernel_name_is_a_bad_file(tmp_path):
    with pytest.raises(ProblemError, match=r"sweep.csv:10: unknown kernel 'my_kernel' \(neither a full"):
        check_rows(read_measurement_file(sweep(tmp_path, _row("my_kernel", 4, 64, 64, 1.0, 12544))),
                   HygieneOptions("gfx950"))


def test_written_share_is_of_the_output():
    p = parse_problem("N=2,C=64,K=32,Hi=14,Wi=14,Y=3,X=3,pad_h=1,pad_w=1")
    assert written_share(p, 2 * 32 * 14 * 14) == 1.0
    assert written_share(p.replace(G=2, C=64, K=32), 2 * 32 * 14 * 14 / 8) == 1 / 8  # K is the total over G


def test_a_clean_file_says_nothing(tmp_path):
    f = tmp_path / "clean.csv"
    f.write_text(HEAD + _row(L64, 0, 64, 64, 1.4, 12544) + _row(L16, 0, 64, 64, 1.2, 12544))
    kept, h = check_rows(read_measurement_file(f), HygieneOptions("gfx950"))
    assert len(kept) == 2 and h.line() is None and h.invalid() == {"rows": 0, "problems": 0, "by_rule": {}}


def test_measurements_check_cli(tmp_path, capsys):
    f = sweep(tmp_path)
    code, out, err = run(capsys, "measurements", "check", f, "--arch", "gfx950", "--format", "json")
    assert code == 1 and err == ""
    got = json.loads(out)
    assert got["invalid"] == {"rows": 6, "problems": 3, "by_rule": {"apply.forward.vector_b": 2,
                                                                    "apply.forward.vector_c": 2, "written": 4}}
    assert [(x["label"], x["kernel"], x["how"]) for x in got["labels"]] == [(L64, K64, "exact"), (L16, K16, "exact")]
    clean = tmp_path / "clean.csv"
    clean.write_text(HEAD + _row(L64, 0, 64, 64, 1.4, 12544))
    code, out, _ = run(capsys, "measurements", "check", str(clean), "--arch", "gfx950")
    assert code == 0 and "invalid: none" in out
    code, _, err = run(capsys, "measurements", "verify", str(clean), "--arch", "gfx950")
    assert code == 2 and "unknown action 'verify'" in err and err.count("\n") == 1
    code, _, err = run(capsys, "measurements", "check", str(clean), "--arch", "gfx950", "--min-written", "2")
    assert code == 2 and "--min-written 2.0" in err


def test_evaluate_excludes_and_counts(tmp_path, capsys):
    f = sweep(tmp_path)
    code, out, err = run(capsys, "evaluate", "--measurements", f, "--arch", "gfx950", "--format", "json")
    assert code == 0
    got = json.loads(out)
    assert tuple(got) == KEYS and got["problems"] == 1
    assert got["invalid"] == {"rows": 6, "problems": 3, "by_rule": {"apply.forward.vector_b": 2,
                                                                    "apply.forward.vector_c": 2, "written": 4}}
    assert err.count("\n") == 1 and err.startswith("cksolve: excluded 6 invalid rows of 3 problems (")
    code, out, err = run(capsys, "evaluate", "--measurements", f, "--arch", "gfx950", "--format", "json",
                         "--keep-invalid")
    assert json.loads(out)["problems"] == 4 and "kept (--keep-invalid) 6 invalid rows" in err


def test_evaluate_figures_and_baselines(tmp_path, capsys):
    """Three problems, three kernels (synthetic timings): the measured scorer is 100%, the baselines are as
    defined (best single: best mean efficiency; random: every kernel averaged)."""
    L32 = "grouped_conv_forward_bf16_2d_32x64x64_compv3"
    t = {0: (10.0, 8.0, 5.0), 1: (6.0, 9.0, 3.0), 2: (4.0, 2.0, 8.0)}  # L64, L16, L32 per problem
    rows = "".join(_row(label, i, 64, 64, t[i][j], 64 * 14 * 14 * (i + 1), N=i + 1)
                   for i in t for j, label in enumerate((L64, L16, L32)))
    f = tmp_path / "three.csv"
    f.write_text(HEAD + rows)
    code, out, _ = run(capsys, "evaluate", "--measurements", str(f), "--arch", "gfx950", "--scorer", "measured",
                       "--format", "json")
    got = json.loads(out)
    assert code == 0 and got["mean"] == got["min"] == got["top1"] == got["tau"] == 1.0
    effs = np.array([[v / max(t[i]) for v in t[i]] for i in t])  # problem x (L64, L16, L32)
    single = got["baselines"]["best_single"]
    assert single["kernel"] == K64 and math.isclose(single["mean"], effs[:, 0].mean())
    assert math.isclose(single["min"], 0.5) and math.isclose(single["top1"], 1 / 3) and single["tau"] is None
    rand = got["baselines"]["random"]
    assert math.isclose(rand["mean"], effs.mean()) and math.isclose(rand["top1"], 1 / 3) and rand["tau"] == 0.0


def test_a_label_map_merges_labels_into_one_kernel(tmp_path, capsys):
    """Two labels mapped to one kernel are one candidate: the pick of either is that kernel."""
    f = sweep(tmp_path)
    m = tmp_path / "map.csv"
    m.write_text(f"label,kernel\n{L64},{K16}\n{L16},{K16}\n")
    code, out, _ = run(capsys, "measurements", "check", f, "--arch", "gfx950", "--kernel-map", str(m),
                       "--format", "json")
    got = json.loads(out)
    assert got["kernels"] == 1 and {x["how"] for x in got["labels"]} == {"map"} and got["aliases"] is None
    code, out, _ = run(capsys, "evaluate", "--measurements", f, "--arch", "gfx950", "--kernel-map", str(m),
                       "--format", "json")
    got = json.loads(out)
    assert got["mean"] == 1.0 and got["baselines"]["random"]["mean"] == 1.0 and got["tau"] is None
    bad = tmp_path / "bad.csv"
    bad.write_text(f"label,kernel\n{L64},nope\n")
    code, _, err = run(capsys, "evaluate", "--measurements", f, "--arch", "gfx950", "--kernel-map", str(bad))
    assert code == 2 and "'nope' is not a full kernel name" in err and err.count("\n") == 1


def test_probable_aliases(tmp_path):
    """Labels whose timings agree within the noise on every shared problem are aliases; 10% apart are not."""
    rng = np.random.default_rng(0)
    text = HEAD
    for i in range(8):
        base = 1.0 + i
        for label, factor in ((L64, 1.0), ("grouped_conv_forward_bf16_2d_64x64x64_compv4", 1.0), (L16, 1.1)):
            v = base * factor * (1 + rng.normal(0, 0.003))
            text += _row(label, i, 64, 64, round(v, 4), 64 * 14 * 14 * (i + 1), N=i + 1)
    f = tmp_path / "alias.csv"
    f.write_text(text)
    assert probable_aliases(read_measurement_file(f)) == [(L64, "grouped_conv_forward_bf16_2d_64x64x64_compv4")]


def test_kendall_tau_b():
    assert kendall_tau_b([1, 2, 3], [10, 20, 30]) == 1.0
    assert kendall_tau_b([3, 2, 1], [10, 20, 30]) == -1.0
    assert kendall_tau_b([1, 1, 1], [1, 2, 3]) is None
    stats = pytest.importorskip("scipy.stats")
    x, y = [1, 2, 2, 3, 5, 4], [2, 1, 2, 3, 4, 4]
    assert math.isclose(kendall_tau_b(x, y), stats.kendalltau(x, y).statistic)


@pytest.mark.ck_data
def test_real_file_is_clean_and_its_aliases_are_the_resolved_kernels():
    """The real file: every row valid; the probable aliases by timing are exactly the labels the resolver puts
    on one kernel (the compv4 labels on three kernels)."""
    kept, h = check_rows(read_measurement_file(REAL), HygieneOptions("gfx950"))
    assert len(kept) == h.rows == 3760 and h.invalid_rows == 0 and h.problems == 185
    by_kernel: dict = {}
    for r in h.labels.values():
        by_kernel.setdefault(r.kernel, []).append(r.label)
    shared = sorted(tuple(sorted(v)) for v in by_kernel.values() if len(v) > 1)
    assert h.aliases == shared and len(shared) == 3


@pytest.mark.ck_data
def test_real_file_evaluate_scorers(capsys):
    """The real file: measured is 100%; the analytic model beats the random pick; 185 problems, none invalid."""
    got = {}
    for kind in ("measured", "analytic"):
        code, out, err = run(capsys, "evaluate", "--measurements", str(REAL), "--arch", "gfx950", "--scorer", kind,
                             "--format", "json")
        assert code == 0 and err == "", err
        got[kind] = json.loads(out)
    assert got["measured"]["mean"] == 1.0 and got["measured"]["problems"] == 185
    assert got["measured"]["invalid"] == {"rows": 0, "problems": 0, "by_rule": {}}
    a = got["analytic"]
    assert a["mean"] > a["baselines"]["random"]["mean"] and 0 < a["tau"] < 1
    assert a["baselines"] == got["measured"]["baselines"]  # the baselines depend on the measurements only


@pytest.mark.ck_data
def test_real_file_select_by_measurements_finds_the_kernels(capsys):
    """``select --measurements`` on the real file: its labels have no scheduler token and the compv4 ones name
    no built kernel, yet every kernel of ``default`` is found as the kernel its labels resolved to, scored by
    their best measurement on the problem (first problem of the file: N=1, C=128, K=256, 32x32, 2x2 stride 2)."""
    import csv

    problem = "N=1,C=128,K=256,Hi=32,Wi=32,Y=2,X=2,stride_h=2,stride_w=2"
    code, out, _ = run(capsys, "select", "--problem", problem, "-r", "default", "-a", "gfx950", "--dtype", "bf16",
                       "--measurements", str(REAL), "--top", "13", "--format", "jsonl")
    assert code == 0
    got = {r["name"]: r["score"] for r in map(json.loads, out.splitlines())}
    from cksolve.workload.labels import LabelResolver

    resolver, want = LabelResolver("gfx950"), {}
    with open(REAL, newline="") as fh:
        for row in csv.DictReader(fh):
            if row["problem_idx"] == "0":
                k = resolver.resolve(row["kernel"]).kernel
                want[k] = max(want.get(k, 0.0), float(row["tflops"]))
    assert len(want) == 13 and got == pytest.approx(want)
