"""Problem fields at their extremes (18 digits, the most a field may have) through every command that reads a
problem: an answer or one error line, never a traceback.

The performance model used to take a problem's implicit-GEMM sizes as int64 (an 18-digit N times an 11-digit
Hi and Wi overflowed: ``OverflowError`` out of ``search`` and ``select``); its arithmetic is in float64 now,
exact below 2**53, so ordinary problems score as before.
"""

from __future__ import annotations

import json
import math

import pytest

from cksolve.workload import parse_problem
from test_cli import run

M = "999999999999999999"  # the largest 18-digit value
SPECS = [
    "N=123456789012345678,C=64,K=64,Hi=12345678901,Wi=12345678901,Y=3,X=3",  # the probe's case
    f"N={M},C=64,K=64,Hi={M},Wi={M}",
    f"N=2,C={M},K={M}",
    f"N=2,G={M},C={M},K={M}",
    f"N={M},C=64,K=64,Di={M},Hi={M},Wi={M}",
    f"N=2,C=64,K=64,Hi=8,Wi=8,pad_h={M},pad_w={M}",
    f"N=2,C=64,K=64,Hi={M},Wi={M},stride_h={M},stride_w={M}",
    f"N=2,C=64,K=64,Hi={M},Wi={M},Y={M},X=3",
    f"direction=bwd_data,N={M},C=64,K=64,Hi={M},Wi={M}",
    f"direction=bwd_weight,N={M},C=64,K=64,Hi={M},Wi={M},split_k={M}",
    f"direction=bwd_weight,N=2,C={M},K={M},Hi=8,Wi=8",
]
KERNEL = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x32_2x2x1_32x32x8"


def _clean(code, err):
    assert code in (0, 1), err
    assert "Traceback" not in err and "Error" not in err


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("command", ["search", "select", "applicable", "explain"])
def test_extreme_fields_on_the_command_line(capsys, spec, command):
    argv = {"search": ["search", "-p", spec, "-r", "tiny", "--top", "3", "-f", "jsonl"],
            "select": ["select", "-p", spec, "-r", "tiny", "--dtype", "fp16", "-f", "jsonl"],
            "applicable": ["applicable", "--problem", spec, "-r", "tiny", "--dtype", "fp16"],
            "explain": ["explain", KERNEL, "--problem", spec]}[command]
    code, out, err = run(capsys, *argv, "-a", "gfx942")
    _clean(code, err)
    if command in ("search", "select"):
        scores = [json.loads(line).get("score") for line in out.splitlines()]
        assert all(s is None or math.isfinite(s) for s in scores), scores


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("command", ["coverage", "minimize"])
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])  # the row reader; plain CSV is read by columns (problem_table)
def test_extreme_fields_in_a_problems_file(capsys, tmp_path, spec, command, fmt):
    f = tmp_path / f"p.{fmt}"
    d = parse_problem(spec).as_dict()
    f.write_text(json.dumps(d) + "\n" if fmt == "jsonl" else ",".join(d) + "\n" + ",".join(map(str, d.values())) + "\n")
    code, _, err = run(capsys, command, "--problems", str(f), "-r", "tiny", "-a", "gfx942", "--dtype", "fp16")
    assert code in (0, 1) and "Traceback" not in err, err
    if code == 1:  # minimize: tiny covers none of the problems (nothing kept), said so
        assert command == "minimize" and "covers none of the problems" in err, err


def test_whole_space_search_of_the_probes_case(capsys):
    code, out, err = run(capsys, "search", "-p", SPECS[0], "-a", "gfx942", "-f", "jsonl")
    _clean(code, err)
    assert out and all(math.isfinite(json.loads(line)["score"]) for line in out.splitlines())


def test_the_model_arithmetic_is_exact_for_ordinary_problems():
    """float64 terms give the scores int64 terms gave (every term below 2**53 is exact)."""
    import numpy as np

    from cksolve.arch.facts import arch_facts
    from cksolve.rulesets import get_rule_set
    from cksolve.scoring.analytic import _columns, estimate_batch, problem_terms
    from cksolve.scoring.device import device
    from cksolve.workload import applicable
    from cksolve.space.naming import parse_name

    p = parse_problem("N=8,C=256,K=256,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1")
    configs = [parse_name(n) for n in applicable(p, get_rule_set("default"), "gfx942", "fp16")
               if n.startswith("grouped_conv_fwd_")]
    a, dev = arch_facts("gfx942"), device("gfx942", None)
    terms = problem_terms(p.facts())
    got = estimate_batch(terms, _columns(configs), dev, "fp16", a.family, a.warp_size)
    ints = {k: np.int64(v) if isinstance(v, int) else v for k, v in terms.items()}  # int64: the old arithmetic
    old = estimate_batch(ints, _columns(configs), dev, "fp16", a.family, a.warp_size)
    assert len(configs) > 5 and got["tflops"].tolist() == old["tflops"].tolist()
