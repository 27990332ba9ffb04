"""The scorer seam, device facts and the analytic performance model (a model: no claim about a real GPU)."""

from __future__ import annotations

import pytest

from cksolve.errors import CksolveError
from cksolve.explore import search
from cksolve.rulesets import get_rule_set
from cksolve.scoring import SCORERS, get_scorer
from cksolve.scoring.analytic import estimate
from cksolve.scoring.device import DEFAULT_DEVICE, device
from cksolve.space.naming import parse_name
from cksolve.workload import applicable, parse_problem

LARGE = "N=32,C=256,K=256,Hi=56,Wi=56,Y=3,X=3,pad_h=1,pad_w=1"


def test_device_facts_and_defaults():
    assert device("gfx942").name == "MI300X" and device("gfx942").cus == 304
    assert device("gfx942", "mi300a").cus == 228
    assert {DEFAULT_DEVICE[a] for a in ("gfx950", "gfx1100")} == {"MI355X", "RX7900XTX"}
    with pytest.raises(CksolveError, match="MI355X is a gfx950 part, not gfx942"):
        device("gfx942", "MI355X")
    with pytest.raises(CksolveError, match="unknown device 'MI999'"):
        device("gfx942", "MI999")
    assert device("gfx1250").stand_in  # no public part: a stand-in (devices.toml), so gfx1250 can be ranked
    with pytest.raises(CksolveError, match="gfx9999 has no default device"):  # an arch only a facts file knows
        device("gfx9999")


def test_scorers_resolve_by_name():
    assert set(SCORERS) == {"padding", "analytic", "model", "measured"}
    with pytest.raises(CksolveError, match="unknown scorer 'magic'"):
        get_scorer("magic")


def test_the_model_reads_pipeline_scheduler_warp_tile_and_device():
    """Axes the old score ignored change the estimate, and the device's CU count does."""
    f = parse_problem(LARGE).facts()
    base = parse_name("grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16_vec8_8_8")
    dev = device("gfx942")
    score = lambda c, d=dev: estimate(f, c, d, "fp16", "cdna3", 64)["tflops"]  # noqa: E731
    s0 = score(base)
    assert score(base._replace(pipeline="basic_v1")) < s0
    assert score(base._replace(warp_tile_m=4, warp_tile_n=64)) < s0
    assert score(base._replace(tile_k=16, warp_tile_k=16)) < s0  # four times the K steps
    assert score(base, device("gfx942", "MI300A")) < s0  # 228 CUs, not 304
    assert s0 < 1307.4  # under the device's peak


def test_large_layer_picks_are_not_absurd():
    """Whole space, gfx942 fp16: compute pipelines, 64..256 tiles, 4+ waves, K tile above 16, distinct tiles."""
    results, status = search(LARGE, "gfx942", "fp16", None, 10, ranking={"device": None, "rescorer": None})
    assert status == "OPTIMAL" and len(results) == 10
    tiles = [r.tile for r in results]
    assert len(set(tiles)) == 10, tiles
    for r in results:
        c = r.config
        assert c.pipeline.startswith("comp"), r.name
        assert 64 <= max(c.tile_m, c.tile_n) <= 256, r.name
        assert c.wave_m * c.wave_n * c.wave_k >= 4, r.name
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)


def test_select_analytic_lists_applicable_kernels_best_first():
    from cksolve.scoring import select

    rs = get_rule_set("tiny")
    p = parse_problem(LARGE)
    recs = list(select([p], rs, "gfx942", "fp16", get_scorer("analytic"), top=5))
    can = [n for n in applicable(p, rs, "gfx942", "fp16") if n.startswith("grouped_conv_fwd_")]
    assert len(recs) == min(5, len(can)) > 0 and {r.name for r in recs} <= set(can)
    assert [r.score for r in recs] == sorted((r.score for r in recs), reverse=True)


def test_search_top_k_is_a_prefix_of_top_more_ties_by_name():
    """Shapes tied with the K-th are all looked at, so --top 3 is the first three lines of --top 10."""
    ranking = {"device": "MI300X", "rescorer": None}
    ten, _ = search(LARGE, "gfx942", "fp16", None, 10, ranking=ranking)
    three, _ = search(LARGE, "gfx942", "fp16", None, 3, ranking=ranking)
    assert [r.name for r in three] == [r.name for r in ten[:3]]


def test_minimize_perf_and_the_measured_scorer_agree_on_a_valid_file(tmp_path):
    """``minimize --perf`` reads its file with ``workload.perf`` (strict numbers, kernels of the rule set only,
    its own error lines); the ``measured`` scorer reads the same file with ``ml.training_data``. On a valid
    file they give every kernel of the rule set the same score (MADE-UP numbers), unmeasured kernels 0."""
    from cksolve.workload.perf import read_perf

    problem = parse_problem("N=8,C=64,K=64,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1")
    rs = get_rule_set("default")
    names = applicable(problem, rs, "gfx942", "fp16")
    assert len(names) > 4
    path = tmp_path / "perf.csv"
    rows = [f"8,64,64,28,28,3,3,1,1,{n},{10.0 + i}," for i, n in enumerate(names[:-2])]
    rows.append(f"8,64,64,28,28,3,3,1,1,{names[-2]},,0.5")  # no tflops: 1 / time_ms
    path.write_text("N,C,K,Hi,Wi,Y,X,pad_h,pad_w,kernel,tflops,time_ms\n" + "\n".join(rows) + "\n", encoding="utf-8")
    old = read_perf(path, set(names))
    scorer = get_scorer("measured", path=path)
    scorer.prepare("gfx942", "fp16")
    configs = [parse_name(n) for n in names]
    new = scorer.score([(problem, c) for c in configs], "gfx942", "fp16")
    want = [old[problem].get(n, 0.0) for n in names]
    differ = [(n, w, g) for n, w, g in zip(names, want, new) if w != g]
    assert not differ and new[-1] == 0.0 and new[-2] == 2.0, differ[:3]
