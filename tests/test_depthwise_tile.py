"""CK Tile's last depthwise check: a kernel whose wave runs several tiles needs the output to fit one tile.

``IsDepthwiseArgumentSupported`` (forward kernel) ends with: when ``TilePerWave != 1``, Ho <= TileOutH and
Wo <= TileOutW, with TilePerWave = BlockSize / (ceil(TileOutH / SubTileH) * ceil(TileOutW / SubTileW))
and BlockSize 64 (``../shared/ck/applicability.md`` F-DW). The expected values below are worked out by
hand from that formula, not by the code under test.
"""

from __future__ import annotations

import pytest

from cksolve import query
from cksolve.space.naming import parse_name
from cksolve.workload import Workspace, applicable, parse_problem
from cksolve.workload.checks import depthwise_tile_per_wave
from cksolve.workload.explain_problem import explain_on_problem, runs

# TilePerWave 4: 64 / ((8/2) * (8/2)).
DW_8X8_F3 = "grouped_conv_fwd_depthwise_fp16_ngchw_2d_8x8_f3_s1x1_p1x1_nb8_sub2x2_vec2_2"
DW_8X8_F5 = "grouped_conv_fwd_depthwise_fp16_ngchw_2d_8x8_f5_s1x1_p2x2_nb8_sub2x2_vec2_2"
# TilePerWave 1: 64 / ((16/1) * (16/4)).
DW_16X16 = "grouped_conv_fwd_depthwise_fp16_ngchw_2d_16x16_f3_s1x1_p1x1_nb8_sub1x4_vec8_8"
MINIMAL = "N=8,G=1,C=1,K=1,Hi=9,Wi=9,pad_h=1,pad_w=1"          # output 9x9: one row too many for 8x8
FITS = "N=8,G=1,C=1,K=1,Hi=8,Wi=8,pad_h=1,pad_w=1"            # output 8x8: fits
RULE = "apply.forward.depthwise_tile"


@pytest.mark.parametrize("tile, sub, want", [((8, 8), (2, 2), 4), ((16, 16), (1, 4), 1), ((16, 16), (2, 2), 1),
                                             ((8, 8), (1, 1), 1), ((7, 7), (2, 2), 4), ((4, 8), (2, 2), 8)])
def test_tile_per_wave(tile, sub, want):
    assert depthwise_tile_per_wave(*tile, *sub) == want


def test_minimal_case():
    rs = query.load_rule_set("full")
    names = applicable(parse_problem(MINIMAL), rs, "gfx942", "fp16")
    assert DW_8X8_F3 not in names, "TilePerWave 4 kernel listed for a 9x9 output"
    assert DW_16X16 in names
    assert DW_8X8_F3 in applicable(parse_problem(FITS), rs, "gfx942", "fp16"), "8x8 output fits the 8x8 tile"


def test_explain_names_the_rule():
    config = parse_name(DW_8X8_F3)
    assert not runs(config, "gfx942", parse_problem(MINIMAL))
    exp = explain_on_problem(config, "gfx942", parse_problem(MINIMAL), how_many=0)
    violated = [v.constraint for v in exp.verdict.problem_violations]
    assert violated == [RULE], violated
    assert RULE in exp.text and "output must fit one tile" in exp.text
    assert runs(config, "gfx942", parse_problem(FITS))


# CK's forward synthetic depthwise rows the rule changes: N=8, G=C=K in 64..512, 16..112 px, 3x3 pad 1.
CK_ROWS = [f"N=8,G={g},C={g},K={g},Hi={h},Wi={h},pad_h=1,pad_w=1" for g in (64, 128, 256, 512)
           for h in (16, 28, 56, 112)]


@pytest.mark.parametrize("rule_set", ["full", "tests", "profiler"])
def test_ck_forward_rows(rule_set):
    rs = _load(rule_set)
    ws = Workspace(rs)
    for spec in CK_ROWS:
        p = parse_problem(spec)
        for arch in ("gfx942", "gfx950"):
            for dtype in ("fp16", "bf16", "fp32"):
                found, rejected, _ = ws.decide(p, arch, dtype)
                names = {c.name() for _, c in found}
                many = [n for n in names if "_depthwise_" in n and _tpw(n) != 1]
                assert not many, f"{rule_set} {arch} {dtype} {spec}: TilePerWave > 1 kernels listed: {many[:2]}"
                assert rejected.get(RULE, 0) >= 1, f"{rule_set} {arch} {dtype} {spec}: the rule rejects nothing"


def _tpw(name: str) -> int:
    c = parse_name(name)
    return depthwise_tile_per_wave(c.tile_h, c.tile_w, c.sub_h, c.sub_w)


def _load(rule_set: str):
    from conftest import CK, require_ck

    if rule_set in ("tests", "profiler"):
        require_ck()  # CK Builder's .conf files: skipped, saying so, without them
    return query.load_rule_set(rule_set, str(CK / "builder-configs") if rule_set in ("tests", "profiler") else None)
