"""The whole valid space: exact counts by conditioning, uniform samples (docs/space.md).

Counting a component too large to join goes through ``solver.engine.conditioning``;
these tests force that path on spaces small enough to list and compare it
with the listing join, with python-constraint and with counting join, and test
the draws for uniformity (chi-square) and validity.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from conftest import fresh_solves

from cksolve import explore, query
from cksolve.solver import build_model, pyconstraint, solve_combo
from cksolve.solver.engine import conditioning, counting, direct
from cksolve.solver.questions.evaluate import evaluate
from cksolve.space.axes import AXES
from cksolve.space.combo import Combo
from cksolve.space.naming import parse_name


def _fresh(monkeypatch, row_limit=3, tab_limit=None, piece_limit=None):
    """Empty solve memos and force the conditioning path (tiny join bounds)."""
    fresh_solves(monkeypatch)
    monkeypatch.setattr(conditioning, "_PIECES", {})
    monkeypatch.setattr(direct, "ROW_LIMIT", row_limit)
    if tab_limit is not None:
        monkeypatch.setattr(conditioning, "TAB_LIMIT", tab_limit)
    if piece_limit is not None:
        monkeypatch.setattr(conditioning, "PIECE_LIMIT", piece_limit)


def _file(tmp_path, text, name="r"):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return query.load_rule_set(str(path))


SMALL = """kind = "gemm"
[pin]
tile_m = [64, 128]
tile_n = [64, 256]
tile_k = [32, 64]
pipeline = ["compv3", "compv6", "mem"]
epilogue = ["cshuffle"]
scheduler = ["intrawave", "interwave"]
vector_a = [4, 8]
vector_b = [8]
vector_c = [8]
wave_m = [1, 2]
wave_n = [1, 2]
warp_tile_k = [16]
pad_m = [false]
pad_n = [false]
pad_k = [false]
double_smem_buffer = [false]
groups_to_merge = [1]
wave_groups = [1]
split_image = [false]
explicit_gemm = [false]
two_stage = [false]
streamk = [false]
specialization = ["default"]
layout = ["nhwgc"]
"""


@pytest.mark.parametrize("rule_set", ["default", "full", "tiny"])
def test_conditioned_counts_equal_listing(monkeypatch, rule_set):
    selection = query.select(["gfx942", "gfx1100"], None, ["fp16"], None)
    rs = query.load_rule_set(rule_set)
    listed = query.count_records(rs, selection)
    names = sorted(r.name for r in query.enumerate_records(rs, selection))
    _fresh(monkeypatch, tab_limit=8, piece_limit=50)
    counted = query.count_records(rs, selection)
    assert any(c.counted is not None for s in direct._SOLVED.values() for c in s.components), "path not taken"
    differ = {c.key: (listed[c], counted[c]) for c in listed if listed[c] != counted[c]}
    assert not differ, f"(listed, conditioned) differ: {differ}"
    # every config of the conditioned trees, decoded by index, is exactly the listing
    decoded = sorted(r.name for r in explore.sample(rs, selection, sum(counted.values()), seed=0, distinct=True))
    assert decoded == names, f"first difference: {next(((a, b) for a, b in zip(names, decoded) if a != b), None)}"


@pytest.mark.parametrize("seed", range(6))
def test_conditioned_counts_equal_python_constraint_on_random_files(monkeypatch, tmp_path, seed):
    """Random narrow files over the arch rules: the conditioned count equals python-constraint's listing."""
    rnd = random.Random(seed)
    arch = rnd.choice(["gfx942", "gfx950", "gfx1100", "gfx90a"])
    lines = ['kind = "gemm"', "[pin]"]
    for axis in ("tile_m", "tile_n", "tile_k", "pipeline", "vector_a", "vector_b", "wave_m", "warp_tile_k"):
        dom = list(AXES[axis].domain)
        values = rnd.sample(dom, min(len(dom), rnd.randint(2, 3)))
        lines.append(f"{axis} = [{', '.join(repr(v) if isinstance(v, int) else chr(34) + v + chr(34) for v in values)}]")
    for axis in ("vector_c", "pad_m", "pad_n", "pad_k", "double_smem_buffer", "groups_to_merge", "wave_groups",
                 "split_image", "explicit_gemm", "two_stage", "streamk", "specialization", "layout", "epilogue",
                 "scheduler"):
        v = AXES[axis].domain[0]
        lines.append(f"{axis} = [{str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, int) else chr(34) + v + chr(34)}]")
    rs = _file(tmp_path, "\n".join(lines) + "\n")
    combo = Combo(arch, "forward", rnd.choice(["fp16", "bf16", "fp32"]), 2)
    _fresh(monkeypatch, tab_limit=4, piece_limit=20)
    counted = solve_combo(rs, combo).count()
    brute = pyconstraint.enumerate_solutions(build_model(combo, rs))
    assert counted == len(brute), f"{combo.key}: conditioned {counted}, python-constraint {len(brute)}"


def test_whole_space_count_agrees_with_the_counting_join(monkeypatch, tmp_path):
    """One pinned pipeline of the whole space (10^11 configs): conditioning and the summing join agree."""
    combo = Combo("gfx942", "forward", "fp16", 2)
    for pipeline in ("compv3", "compv6"):
        rs = _file(tmp_path, f'kind = "gemm"\n[pin]\npipeline = ["{pipeline}"]\n', pipeline)
        conditioned = solve_combo(rs, combo).count()
        with monkeypatch.context() as m:
            _fresh(m, row_limit=200_000)
            m.setattr(direct, "solve_piece", lambda axes, rels, domains, join:
                      _Counted(counting.count_join(axes, rels, domains, limit=10**7)))
            joined = solve_combo(rs, combo).count()
        assert conditioned == joined and conditioned > 10**10, (pipeline, conditioned, joined)


class _Counted:
    def __init__(self, n: int):
        self.n = n

    def count(self) -> int:
        return self.n


def _chi_square_p(observed: list[int], expected: float) -> float:
    """Upper tail of the chi-square statistic with len-1 degrees of freedom (regularised gamma series)."""
    x = sum((o - expected) ** 2 / expected for o in observed) / 2
    a = (len(observed) - 1) / 2
    term = total = 1 / a
    n = 1
    while term > 1e-15 * total:
        term *= x / (a + n)
        total += term
        n += 1
    lower = math.exp(a * math.log(x) - x - math.lgamma(a)) * total if x > 0 else 0.0
    return 1 - lower


def test_samples_are_uniform_and_valid(monkeypatch, tmp_path):
    rs = _file(tmp_path, SMALL)
    selection = query.select(["gfx942"], ["forward"], ["fp16"], ["2"])
    _fresh(monkeypatch, tab_limit=8, piece_limit=30)
    total = sum(explore.count(rs, selection).values())
    assert 50 < total < 5000, total
    assert any(c.counted is not None for s in direct._SOLVED.values() for c in s.components), "path not taken"
    n = total * 40
    draws = explore.sample(rs, selection, n, seed=12345)
    counts = Counter(r.name for r in draws)
    every = {r.name for r in query.enumerate_records(rs, selection)}
    assert set(counts) == every, f"drawn but not listed: {sorted(set(counts) - every)[:3]}"
    p = _chi_square_p([counts[k] for k in sorted(every)], n / total)
    assert p > 0.01, f"chi-square p = {p:.4g} over {total} configs, {n} draws"
    for r in draws[:500]:
        verdict = evaluate(r.config, r.combo.arch, rs)
        assert verdict.valid and verdict.member, (r.name, verdict.violations, verdict.rule_violations)


def test_whole_space_samples_pass_check_and_repeat_with_the_seed(tmp_path):
    rs = _file(tmp_path, 'kind = "gemm"\n')
    selection = query.select(["gfx1100"], ["bwd_weight"], ["bf16"], ["3"])
    first = explore.sample(rs, selection, 300, seed=3)
    again = explore.sample(rs, selection, 300, seed=3)
    assert [r.name for r in first] == [r.name for r in again]
    assert [r.name for r in explore.sample(rs, selection, 300, seed=4)] != [r.name for r in first]
    for r in first:
        verdict = evaluate(r.config, "gfx1100", rs)
        assert verdict.valid and verdict.member, (r.name, verdict.violations)
    distinct = explore.sample(rs, selection, 300, seed=3, distinct=True)
    assert len({r.name for r in distinct}) == 300


#: (layout, ndim) pairs CK names kernels with, per kernel kind: its rule sets tag every GEMM rank nhwgc
#: (full's nhwgc_1d, nhwgc_3d), the builder's 3D files ndhwgc; its depthwise kernels are 2D ngchw
#: (unified_grouped_conv_codegen.py DepthwiseConvKernelConfig, builder.toml).
CK_LAYOUT_RANKS = {"gemm": {("nhwgc", 1), ("nhwgc", 2), ("nhwgc", 3), ("ndhwgc", 3)},
                   "depthwise": {("ngchw", 2)}}


@pytest.mark.parametrize("kind, variants", [("gemm", ["forward", "bwd_weight"]), ("depthwise", ["forward_depthwise"])])
def test_the_whole_space_ties_layout_to_kind_and_ndim(tmp_path, kind, variants):
    allowed = CK_LAYOUT_RANKS[kind]
    rs = _file(tmp_path, f'kind = "{kind}"\n')
    drawn = explore.sample(rs, query.select(["gfx942"], variants, ["fp16"]), 600, seed=5)
    pairs = Counter((r.config.layout, r.config.ndim) for r in drawn)
    assert set(pairs) <= allowed, f"{kind}: mismatched layout/ndim drawn: {set(pairs) - allowed}"
    assert len(pairs) == len(allowed), pairs  # and every allowed pair is drawn
    for ndim in (1, 2, 3):
        by_layout = {layout: sum(explore.count(_file(tmp_path, f'kind = "{kind}"\nwhere = ["layout == {layout!r}"]\n',
                                                     f"l{ndim}{layout}"),
                                               query.select(["gfx942"], variants[:1], ["fp16"], [str(ndim)])).values())
                     for layout in AXES["layout"].domain}
        assert {layout for layout, n in by_layout.items() if n} == {l for l, d in allowed if d == ndim}, \
            (kind, ndim, by_layout)


@pytest.mark.parametrize("name, broken", [
    ("grouped_conv_fwd_fp16_ndhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_16x16x32", "space.layout_ndim"),
    ("grouped_conv_fwd_fp16_ngchw_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_16x16x32", "space.layout_kind"),
    ("grouped_conv_fwd_depthwise_fp16_nhwgc_2d_16x16_f3_s1x1_p1x1_nb1_sub1x1_vec1_1", "space.layout_kind"),
    ("grouped_conv_fwd_depthwise_fp16_ngchw_3d_16x16_f3_s1x1_p1x1_nb1_sub1x1_vec1_1", "space.layout_ndim"),
])
def test_a_name_with_a_layout_its_kernel_does_not_take_is_refused_by_that_rule(name, broken):
    verdict = evaluate(parse_name(name), "gfx942")
    assert [v.constraint for v in verdict.violations] == [broken], verdict.violations


def test_a_rule_set_whose_constraints_change_is_solved_again():
    """solve_combo memoises by what the model is made of, not by which rule-set object asked."""
    from cksolve.rulesets.rule_set import RuleSet, pin

    full = query.load_rule_set("full")

    class Narrow(RuleSet):
        name = "narrow"
        pipelines = ["compv3", "mem"]

        def constraints(self, combo):
            return (*full.constraints(combo), pin("narrow", "pipeline", self.pipelines, "narrow pipelines"))

    combo = Combo("gfx942", "forward", "fp16", 2)
    rs = Narrow()
    both = solve_combo(rs, combo).count()
    rs.pipelines = ["compv3"]
    fresh = Narrow()
    fresh.pipelines = ["compv3"]
    assert both > solve_combo(rs, combo).count() == solve_combo(fresh, combo).count() > 0


def test_distinct_past_the_total_is_refused():
    rs = query.load_rule_set("tiny")
    selection = query.select(["gfx942"], ["forward"], ["fp16"], ["2"])
    total = sum(explore.count(rs, selection).values())
    with pytest.raises(query.CksolveError, match=f"only {total}"):
        explore.sample(rs, selection, total + 1, distinct=True)
