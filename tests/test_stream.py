"""Streaming listings (docs/space.md): enumerate in name order from the factorised solution, sample in blocks,
neighbors and explain's nearest configs by the model, search in O(K) memos."""

from __future__ import annotations

import random
from itertools import accumulate

import pytest
from hypothesis import given, settings, strategies as st

from conftest import fresh_solves

from cksolve import explore, query
from cksolve.solver import bounded_configs, build_model, names_combo, solve_combo
from cksolve.solver.engine import conditioning, direct
from cksolve.space.memos import MEMOS
from cksolve.solver.questions.evaluate import evaluate
from cksolve.solver.sampling.uniform import sample_blocks
from cksolve.solver.listing import stream
from cksolve.solver.listing.stream import config_blocks, name_blocks
from cksolve.space.axes import AXES, kind_axes
from cksolve.space.config import KernelConfig
from cksolve.space.spelling import GEMM_HEAD_AXES, GEMM_TAIL_PARTS, gemm_name

FREE = """kind = "gemm"
base = "full"
[pin]
tile_m = [64, 128, 256]
"""
#: a file that leaves layout, scheduler, warp tiles and specialization free over the arch rules (thousands
#: of configs per combination)
WIDE = """kind = "gemm"
[pin]
vector_a = [4, 8]
vector_b = [8]
vector_c = [4, 8]
wave_m = [1, 2]
wave_n = [1, 2]
wave_k = [1]
pipeline = ["compv3", "mem"]
scheduler = ["intrawave", "interwave"]
epilogue = ["cshuffle"]
tile_m = [64, 128]
tile_n = [64, 128]
tile_k = [32, 64]
pad_m = [true]
pad_n = [true]
pad_k = [true]
double_smem_buffer = [false]
groups_to_merge = [1, 2]
wave_groups = [1]
split_image = [false]
explicit_gemm = [false]
two_stage = [false, true]
streamk = [false]
"""


def _file(tmp_path, text):
    path = tmp_path / "r.toml"
    path.write_text(text)
    return query.load_rule_set(str(path))


def _gemm_domain(axis):
    return [v for v in AXES[axis].domain if axis != "variant" or v in query.gemm_variants(query.VARIANTS)]


def _head_tail(c):
    values = c._asdict()
    head = KernelConfig(**{a: values[a] for a in GEMM_HEAD_AXES})  # every other field at its default
    return gemm_name(head), gemm_name(c)[len(gemm_name(head)):]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_gemm_name_is_its_head_then_a_tail_of_the_other_fields(data):
    """The split the streaming listing relies on: the head fields alone spell the head, the others the tail."""
    values = {a: data.draw(st.sampled_from(_gemm_domain(a))) for a in kind_axes("gemm")}
    c = KernelConfig(**values)
    head, tail = _head_tail(c)
    assert gemm_name(c) == head + tail
    other = c._replace(**{a: data.draw(st.sampled_from(_gemm_domain(a))) for a in GEMM_HEAD_AXES})
    assert _head_tail(other)[1] == tail, f"the tail of {c.name()} depends on a head field"


def _streamed(solutions) -> str:
    return "".join(name_blocks(solutions))


@pytest.mark.parametrize("rule_set", ["default", "full", "tiny", FREE, WIDE])
def test_streamed_names_are_the_sorted_listing(tmp_path, rule_set):
    rs = _file(tmp_path, rule_set) if "\n" in rule_set else query.load_rule_set(rule_set)
    for combo in query.select(["gfx942", "gfx1201"], ["forward", "bwd_weight", "forward_depthwise"], ["fp16"],
                              [2, 3]).combos():
        solutions = solve_combo(rs, combo)
        want = "".join(f"{n}\n" for n in names_combo(rs, combo))
        got = _streamed(solutions)
        assert got == want, f"{combo.key}: first difference at line {_first_diff(got, want)}"
        configs = [c for block in config_blocks(solutions, 97) for c in block]
        assert [c.name() for c in configs] == want.splitlines(), f"{combo.key}: configs out of name order"


@pytest.mark.parametrize("rule_set", [WIDE, FREE])
def test_names_split_into_small_groups_and_slices_are_the_same_listing(tmp_path, monkeypatch, rule_set):
    """A large space is listed by tile_m, tile_n, ... groups and a head's tails in slices: the same bytes."""
    rs = _file(tmp_path, rule_set) if "\n" in rule_set else query.load_rule_set(rule_set)
    for combo in query.select(["gfx942"], ["forward", "bwd_weight"], ["fp16"], [2]).combos():
        solutions = solve_combo(rs, combo)
        want = "".join(f"{n}\n" for n in names_combo(rs, combo))
        monkeypatch.setattr(stream, "GROUP_CONFIGS", solutions.count() / 1000)  # split by tile_m and tile_n
        monkeypatch.setattr(stream, "RUN_CHUNK", 3)
        got = _streamed(solutions)
        monkeypatch.undo()
        assert got == want, f"{combo.key}: first difference at line {_first_diff(got, want)}"
        configs = [c for block in config_blocks(solutions, 97) for c in block]
        assert [c.name() for c in configs] == want.splitlines(), f"{combo.key}: configs out of name order"


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_gemm_tail_is_its_parts_then_the_rest(data):
    """``GEMM_TAIL_PARTS``: each part's text alone (the other tail fields at their defaults), then the rest's."""
    values = {a: data.draw(st.sampled_from(_gemm_domain(a))) for a in kind_axes("gemm")}
    c = KernelConfig(**values)
    head, tail = _head_tail(c)
    defaults = KernelConfig(**{a: values[a] for a in GEMM_HEAD_AXES})._asdict()
    texts, done = [], set()
    for part in GEMM_TAIL_PARTS:
        texts.append(_head_tail(KernelConfig(**{**defaults, **{a: values[a] for a in part}}))[1])
        done.update(part)
    texts.append(_head_tail(KernelConfig(**{**defaults, **{a: v for a, v in values.items() if a not in done}}))[1])
    assert "".join(texts) == tail, f"{c.name()}: the tail is not its parts' texts then the rest's ({texts})"


def _first_diff(a: str, b: str):
    return next((i for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())) if x != y), None)


@pytest.mark.parametrize("rule_set", [WIDE, "full"])
def test_streamed_names_walk_conditioned_trees(monkeypatch, tmp_path, rule_set):
    """Components counted as trees (branches, parts; a branch's value fixed again in the piece under it)
    list as the joined ones do."""
    rs = _file(tmp_path, rule_set) if "\n" in rule_set else query.load_rule_set(rule_set)
    combos = query.select(["gfx942", "gfx90a"], ["forward", "bwd_weight"], ["fp16"], [2]).combos()
    want = {c: "".join(f"{n}\n" for n in names_combo(rs, c)) for c in combos}
    fresh_solves(monkeypatch)
    monkeypatch.setattr(conditioning, "_PIECES", {})
    monkeypatch.setattr(direct, "ROW_LIMIT", 3)
    monkeypatch.setattr(conditioning, "PIECE_LIMIT", 40)
    for combo in combos:
        solutions = solve_combo(rs, combo)
        assert any(c.counted is not None for c in solutions.components), "path not taken"
        got = _streamed(solutions)
        assert got == want[combo], f"{combo.key}: first difference at line {_first_diff(got, want[combo])}"


def test_enumerate_limit_is_a_guard_and_0_lifts_it(tmp_path):
    rs = _file(tmp_path, WIDE)
    selection = query.select(["gfx942"], ["forward"], ["fp16"], [2])
    n = sum(query.count_records(rs, selection).values())
    with pytest.raises(query.CksolveError, match="0: no limit"):
        list(query.enumerate_text(rs, selection, n - 1))
    text = "".join(query.enumerate_text(rs, selection, 0))
    assert text.count("\n") == n
    assert text == "".join(query.enumerate_lines(rs, selection, None))


@pytest.mark.parametrize("distinct", [False, True])
def test_sample_blocks_draw_what_one_list_draws(distinct):
    rs = query.load_rule_set("full")
    sets = explore.sampling.solution_sets(rs, query.select(["gfx942", "gfx950"], None, ["fp16"]))
    one = [d for b in sample_blocks(sets, 1000, 7, distinct, block=10**6) for d in b]
    small = [d for b in sample_blocks(sets, 1000, 7, distinct, block=37) for d in b]
    assert one == small and len(one) == 1000
    assert [r.name for r in explore.sample_stream(rs, query.select(["gfx942"]), 50, 3)] == \
        [r.name for r in explore.sample(rs, query.select(["gfx942"]), 50, 3)]


def test_sample_refuses_before_the_first_draw():
    rs = query.load_rule_set("tiny")
    with pytest.raises(query.CksolveError, match="distinct"):
        explore.sample_stream(rs, query.select(["gfx942"], ["forward"], ["fp16"], [2]), 10**9, distinct=True)


def _brute(configs, c, radius):
    d0 = c._asdict()
    out = []
    for x in configs:
        d = sum(d0[k] != v for k, v in x._asdict().items())
        if 0 < d <= radius:
            out.append((d, x.name()))
    return [n for _d, n in sorted(out)]


def test_neighbors_within_a_rule_set_are_the_listed_ones_nearby():
    rs = query.load_rule_set("full")
    rnd = random.Random(4)
    for combo in (query.Combo("gfx942", "forward", "fp16", 2), query.Combo("gfx1201", "bwd_weight", "fp16", 2)):
        configs = bounded_configs(rs, combo)
        for c in rnd.sample(configs, min(3, len(configs))):
            got = [n.name for n in query.neighbors(c.name(), combo.arch, rs, radius=2)]
            assert got == _brute(configs, c, 2), f"{c.name()} on {combo.arch}"


def test_neighbors_over_the_whole_space_are_every_valid_one_axis_change():
    name = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x128_1x4x1_16x16x32"
    got = query.neighbors(name, "gfx942")
    c = query.evaluate  # noqa: F841 - the ground truth below is the direct evaluator
    from cksolve.space.naming import parse_name

    config = parse_name(name)
    want = []
    for axis in kind_axes("gemm"):
        for v in AXES[axis].domain:
            if v != getattr(config, axis) and axis not in ("variant", "dtype", "ndim"):
                cand = config._replace(**{axis: v})
                if evaluate(cand, "gfx942").valid:
                    want.append(cand.name())
    assert [n.name for n in got] == sorted(want)
    assert all(n.distance == 1 and len(n.changed) == 1 for n in got)
    adjacent = query.neighbors(name, "gfx942", method="adjacent")
    assert {n.name for n in adjacent} <= {n.name for n in got} and adjacent


def test_neighbors_of_an_invalid_name_repair_it():
    bad = "grouped_conv_fwd_fp16_nhwgc_2d_compv6_cshuffle_intrawave_16x64x128_1x4x1_16x16x32_vec3_8_8"
    got = query.neighbors(bad, "gfx942")
    assert got and all(evaluate(n.config, "gfx942").valid for n in got)
    assert "vector_a" in {k for n in got for k, _v in n.changed}


def test_neighbors_bad_input_is_one_error():
    name = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x128_1x4x1_16x16x32"
    with pytest.raises(query.CksolveError, match="method"):
        query.neighbors(name, "gfx942", method="manhattan")
    with pytest.raises(query.CksolveError, match="radius"):
        query.neighbors(name, "gfx942", radius=0)
    # past 3 the candidates (a power of the radius) would run for minutes: refused, not left to run
    with pytest.raises(query.CksolveError, match="radius 4 must be 1 to 3"):
        query.neighbors(name, "gfx942", radius=4)


def test_explain_nearest_searches_a_space_too_large_to_list(tmp_path, monkeypatch):
    """Past CONFIG_LIMIT the nearest configs come from the model, and agree with the listing below it."""
    from cksolve.solver.questions import explain as explain_mod

    rs = _file(tmp_path, WIDE)
    name = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_64x64x64_2x2x1_32x32x16_vec3_8_8"
    listed = query.explain_name(name, "gfx942", rs, 5).nearest
    monkeypatch.setattr(explain_mod, "CONFIG_LIMIT", 10)
    modelled = query.explain_name(name, "gfx942", rs, 5).nearest
    assert modelled == listed and len(listed) == 5


def test_search_leaves_no_solve_behind():
    problem = "N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1"
    explore.search(problem, "gfx942", "fp16", None, 2)
    before = len(direct._SOLVED), len(direct._COMPONENTS), len(conditioning._PIECES)
    explore.search(problem, "gfx942", "fp16", None, 6)
    assert (len(direct._SOLVED), len(direct._COMPONENTS), len(conditioning._PIECES)) == before


def test_batch_decoding_is_decoding_one_at_a_time(monkeypatch, tmp_path):
    """The vectorised decoder gives, index for index, what ``decode`` gives, on joined and conditioned trees."""
    from cksolve.solver.sampling import uniform as sampling

    rs = _file(tmp_path, WIDE)
    sel = query.select(["gfx942"], ["forward", "bwd_weight"], ["fp16"], [2, 3])
    for forced in (False, True):
        if forced:
            fresh_solves(monkeypatch)
            monkeypatch.setattr(conditioning, "_PIECES", {})
            monkeypatch.setattr(direct, "ROW_LIMIT", 3)
            monkeypatch.setattr(conditioning, "PIECE_LIMIT", 40)
        sets = explore.sampling.solution_sets(rs, sel)
        counts = [s.count() for _k, s in sets]
        total = sum(counts)
        rnd = random.Random(2)
        chunk = [rnd.randrange(total) for _ in range(3000)]
        cumulative = list(accumulate(counts))
        got = sampling._decode_block(sets, cumulative, chunk)
        for r, (key, config) in zip(chunk, got):
            i = next(k for k, c in enumerate(cumulative) if r < c)
            want = sampling.decode(sets[i][1], r - (cumulative[i - 1] if i else 0))
            assert (key, config) == (sets[i][0], want), f"index {r} (forced trees: {forced})"
