"""Library entry points take ``Problem``s (and still the CLI's FIELD=VALUE strings); a typo in a dict of options
is a CksolveError naming it; the output size is stated once; the analytic batch works in numpy columns."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from cksolve import explore, query
from cksolve.errors import CksolveError
from cksolve.rulesets import get_rule_set
from cksolve.workload import Problem, as_problem, parse_problem
from cksolve.workload.problem_facts import output_sizes
from cksolve.workload.tasks import applicable_records

PACKAGE = Path(__file__).resolve().parents[1] / "cksolve"
SPEC = "N=8,C=64,K=64,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1"
NAME = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x64_1x4x1_16x16x16"


def test_search_takes_a_problem_or_its_spec():
    tiny = get_rule_set("tiny")
    by_spec = explore.search(SPEC, "gfx942", "fp16", tiny, 3)
    by_problem = explore.search(parse_problem(SPEC), "gfx942", "fp16", tiny, 3)
    assert [r.name for r in by_problem[0]] == [r.name for r in by_spec[0]] and by_problem[1] == by_spec[1]
    assert by_spec[0]


def test_applicable_and_explain_take_a_problem_too():
    tiny = get_rule_set("tiny")
    p = parse_problem(SPEC)
    assert ([r.name for r in applicable_records(p, tiny, "gfx942", ["fp16"])]
            == [r.name for r in applicable_records(SPEC, tiny, "gfx942", ["fp16"])])
    assert (query.explain_name(NAME, "gfx942", problem=p).as_dict()
            == query.explain_name(NAME, "gfx942", problem=SPEC).as_dict())
    with pytest.raises(CksolveError, match="not a int"):
        as_problem(3)


def test_a_ranking_typo_names_the_key():
    with pytest.raises(CksolveError) as exc:
        explore.search(SPEC, "gfx942", "fp16", None, 1, ranking={"devcie": "MI300X"})
    assert "'devcie'" in str(exc.value) and "did you mean 'device'" in str(exc.value)


def test_the_output_size_is_one_formula_for_a_problem_its_facts_and_columns():
    sizes = (1, 7, 28, 224)
    for hi, y, s, pad, dil in itertools.product(sizes, (1, 3, 7), (1, 2, 3), (0, 1, 3), (1, 2)):
        want = tuple((i + 2 * pad - dil * (y - 1) - 1) // s + 1 for i in (hi, hi + 1))
        if min(want) < 1:
            continue  # no output: such a problem is refused (Problem checks its output size)
        p = Problem(Hi=hi, Wi=hi + 1, Y=y, X=y, stride_h=s, stride_w=s, pad_h=pad, pad_w=pad, dilation_h=dil,
                    dilation_w=dil)
        assert p.spatial()["output"] == want, p.spec()
        assert tuple(p.facts().output) == want, p.spec()
    cols = output_sizes((np.array([28, 56]),), (np.array([3, 1]),), (np.array([1, 2]),), (np.array([1, 0]),),
                        (np.array([1, 1]),))
    assert cols[0].tolist() == [28, 28]


def test_the_output_size_formula_is_written_once():
    hits = [f"{p.relative_to(PACKAGE)}:{no}" for p in sorted(PACKAGE.rglob("*.py"))
            for no, line in enumerate(p.read_text().splitlines(), 1)
            if re.search(r"\+\s*2\s*\*.*//\s*\S+\s*\+\s*1", line)]  # (in + 2 * pad - ...) // stride + 1
    assert len(hits) == 1 and hits[0].startswith("workload/problem_facts.py:"), hits


def test_the_analytic_batch_calls_python_per_distinct_value_not_per_pair(monkeypatch):
    import cksolve.scoring.analytic as analytic
    from cksolve.solver import enumerate_combo
    from cksolve.space.combo import Combo

    configs = enumerate_combo(get_rule_set("full"), Combo("gfx942", "forward", "fp16", 2))
    assert len(configs) > 500
    calls = []
    real = analytic.double_buffered
    monkeypatch.setattr(analytic, "double_buffered", lambda p, d: calls.append((p, d)) or real(p, d))
    p = parse_problem(SPEC)
    scorer = analytic.AnalyticScorer()
    scores = scorer.score([(p, c) for c in configs], "gfx942", "fp16")
    distinct = {(c.pipeline, bool(c.double_smem_buffer)) for c in configs}
    assert len(calls) == len(distinct) < len(configs)
    dev, a = scorer.device_for("gfx942"), analytic.arch_facts("gfx942")
    for i in range(0, len(configs), 97):  # each pair's score is its own config's
        one = analytic.estimate(p.facts(), configs[i], dev, "fp16", a.family, a.warp_size)["tflops"]
        assert scores[i] == pytest.approx(one, rel=1e-12), configs[i].name()
