"""cksolve features and pipeline-variants: CK's ML-selector inputs from exact kernel configs."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pytest

from conftest import CK, require_ck
from test_cli import _cksolve, run

from cksolve.features import FEATURE_NAMES, KERNEL_NAMES, features, pipeline_variants
from cksolve.features.ckname import dispatcher_name, read_name
from cksolve.features.spec import EXACT_DIFFERS
from cksolve.features.table import PAIR_COLUMNS
from cksolve.features.spec import markdown_table
from cksolve.space.buffering import BUFFERING_RULES
from cksolve.space.naming import parse_name
from cksolve.rulesets import Combo, get_rule_set
from cksolve.solver import solve_combo
from cksolve.workload import parse_problem, read_problems

DATA = Path(__file__).resolve().parent / "data"
HOLDOUT = CK / "workloads" / "validation_holdout.csv"
GOLDEN = tomllib.loads((DATA / "features_golden.toml").read_text(encoding="utf-8"))
FULL = get_rule_set("full")
GFX950_FWD_BF16 = [Combo("gfx950", "forward", "bf16", n) for n in (2, 3)]


@pytest.mark.ck_data
def test_columns_are_the_feature_spec_in_order(capsys):
    spec = json.loads((CK / "ml" / "feature_spec_forward_2d3d_suffix_bf16_gfx950.json").read_text())
    assert list(FEATURE_NAMES) == spec["feature_names"]
    assert list(PAIR_COLUMNS) == spec["feature_names"] + ["problem_row", "kernel"]
    assert KERNEL_NAMES[0] == "block_size" and KERNEL_NAMES[-1] == "is_mem" and len(KERNEL_NAMES) == 21
    code, out, _ = run(capsys, "features", "-r", "tiny", "-a", "gfx950", "--variant", "forward", "--dtype", "bf16",
                       "--problems", str(HOLDOUT))
    assert code == 0 and out.splitlines()[0].split(",") == list(PAIR_COLUMNS)


def _golden_row(problem: str, kernel: str, semantics: str) -> list:
    g = GOLDEN
    return [*g["problems"][problem]["block"].values(), *g["kernels"][kernel][semantics],
            *g["pairs"][problem][kernel][semantics], *g["hardware"]]


@pytest.mark.parametrize("semantics", ["ck", "exact"])
@pytest.mark.parametrize("problem", sorted(GOLDEN["problems"]))
def test_golden_rows_computed_by_hand(problem, semantics):
    p = parse_problem(GOLDEN["problems"][problem]["spec"])
    assert list(GOLDEN["problems"][problem]["block"]) == list(FEATURE_NAMES[:46])
    rows = {r["kernel"]: r for r in features(FULL, GFX950_FWD_BF16, [p], semantics).dicts()}
    for kernel, spec in GOLDEN["kernels"].items():
        assert spec["name"] in rows, f"{kernel} cannot run {problem}: not in the candidate pool"
        got = rows[spec["name"]]
        want = dict(zip(FEATURE_NAMES, _golden_row(problem, kernel, semantics)))
        wrong = [f"{c}: got {got[c]!r}, by hand {w!r}" for c, w in want.items()
                 if not math.isclose(got[c], w, rel_tol=1e-12, abs_tol=0.0)]
        assert not wrong, f"{problem} x {kernel} ({semantics}): " + "; ".join(wrong)


@pytest.mark.parametrize("kernel", sorted(GOLDEN["kernel_rows"]))
def test_golden_kernel_rows_of_the_pipeline_map_and_the_parser_fallback(kernel):
    """compv6 is code 6 (CK's PIPELINE_MAP at abe93a40); a name the grammar cannot read keeps the pipeline
    the parser's fallback search finds (compv1, mem), not the engine's default compv3."""
    spec = GOLDEN["kernel_rows"][kernel]
    rows = {r["kernel"]: r for r in features(FULL, Combo(*spec["combo"]), None, "ck").dicts()}
    assert spec["name"] in rows, f"{kernel}: {spec['name']} is not in full for {spec['combo']}"
    got = rows[spec["name"]]
    wrong = [f"{c}: got {got[c]!r}, by hand {w!r}" for c, w in zip(KERNEL_NAMES, spec["ck"])
             if not math.isclose(got[c], w, rel_tol=1e-12, abs_tol=0.0)]
    assert not wrong, f"{kernel}: " + "; ".join(wrong)


def test_ck_parser_fallback_pipeline():
    from cksolve.features.ckname import ck_fields

    base = "grouped_conv_forward_bf16_2d_64x16x16_{}_intrawave_gm8_dsb"
    got = {p: ck_fields(base.format(p)).pipeline for p in ("compv4", "mem", "comp_async", "basic_async_v1",
                                                          "basic_v1", "wavelet")}
    assert got == {"compv4": "compv4", "mem": "mem", "comp_async": "async", "basic_async_v1": "async",
                   "basic_v1": "compv3", "wavelet": "compv3"}
    r = ck_fields(base.format("compv4"))
    assert r[:3] == (16, 64, 64) and (r.wave_mode, r.has_dsb, r.has_si) == ("intrawave", 0, 0)  # nothing else read


def test_3d_problem_block_by_hand():
    from cksolve.features.engine import problem_block

    block = dict(zip(FEATURE_NAMES, problem_block(parse_problem("N=2,C=64,K=32,Di=4,Hi=8,Wi=8,Y=3,X=3,pad_h=1,pad_w=1"), 2)))
    # Di > 1 makes it 3D; Do = (4 - 1) // 1 + 1 = 4; volumes 4*8*8 = 256, 1*3*3 = 9, 256;
    # flops 2*32*256*64*9*2 = 18874368 over (2*64*256 + 32*64*9 + 2*32*256)*2 = 135168 bytes = 1536/11.
    want = {"is_3d": 1, "Di": 4, "Z": 1, "Do": 4, "filter_area": 9, "log2_spatial": 8.0, "log2_output": 8.0,
            "arithmetic_intensity": 1536 / 11, "is_1x1_conv": 0, "is_3x3_conv": 0}  # 3x3 in 3D needs Z = 3 too
    assert {k: block[k] for k in want} == pytest.approx(want, rel=1e-12)
    block = dict(zip(FEATURE_NAMES, problem_block(parse_problem("Di=4,Hi=8,Wi=8,Z=3,Y=3,X=3,pad_d=1"), 2)))
    assert (block["is_3x3_conv"], block["Do"], block["filter_area"]) == (1, 4, 27)


@pytest.mark.slow
@pytest.mark.ck_data
def test_exact_differs_from_ck_only_in_documented_columns():
    problems = read_problems(HOLDOUT)[::5]
    ck = features(FULL, GFX950_FWD_BF16, problems, "ck")
    exact = features(FULL, GFX950_FWD_BF16, problems, "exact")
    assert len(ck) == len(exact) > 10000
    differing = set()
    for a, b in zip(ck.rows, exact.rows):
        assert a[-2:] == b[-2:], "the two semantics pair the same problems with the same kernels"
        differing.update(c for c, x, y in zip(PAIR_COLUMNS, a, b) if x != y)
    assert differing <= EXACT_DIFFERS, sorted(differing - EXACT_DIFFERS)
    # and the semantics do differ where CK misreads a name
    assert {"block_size", "gemm_n_per_block", "gemm_n_output", "num_tiles_k", "lds_usage_ratio"} <= differing


@pytest.mark.ck_data
def test_candidate_pools_are_the_applicable_kernels():
    from cksolve.workload import applicable

    problems = read_problems(HOLDOUT)[:300:37]
    table = features(FULL, GFX950_FWD_BF16, problems)
    for i, p in enumerate(problems):
        pool = [r[-1] for r in table.rows if r[-2] == i]
        want = [n for n in applicable(p, FULL, "gfx950", "bf16") if "_depthwise_" not in n]
        assert pool == want, f"problem row {i} ({p.spec()}): {len(pool)} pairs, applicable lists {len(want)}"


def test_exact_gemm_follows_the_problem_direction():
    p = parse_problem("N=2,G=2,C=64,K=128,Hi=14,Wi=14,Y=3,X=3,pad_h=1,pad_w=1,direction=bwd_data")
    combo = [Combo("gfx942", "bwd_data", "fp16", 2)]
    ck, exact = (features(get_rule_set("default"), combo, [p], s).dicts() for s in ("ck", "exact"))
    assert ck and len(ck) == len(exact)
    f = p.facts()
    assert (exact[0]["gemm_m_output"], exact[0]["gemm_n_output"], exact[0]["gemm_k_output"]) == (f.gemm_m, f.gemm_n,
                                                                                                  f.gemm_k)
    # CK's engine maps every direction to the forward GEMM with all K output channels
    assert (ck[0]["gemm_m_output"], ck[0]["gemm_n_output"], ck[0]["gemm_k_output"]) == (2 * 14 * 14, 128, 32 * 9)


def test_ck_reads_dispatcher_names_as_its_parser_does():
    cfg = parse_name("grouped_conv_fwd_bf16_nhwgc_2d_compv4_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_vec1_1_8_dsb")
    assert dispatcher_name(cfg) == "grouped_conv_forward_bf16_2d_128x128x32_compv4_intrawave_dsb"
    r = read_name(dispatcher_name(cfg))
    assert (r.block_size, r.gemm_m_per_block, r.gemm_n_per_block) == (128, 128, 32)  # tile_m read as block_size
    assert (r.pipeline, r.wave_mode, r.has_dsb, r.has_si) == ("compv4", "intrawave", 1, 0)
    assert read_name(dispatcher_name(cfg.replace(split_image=True))).has_si == 1
    # suffixes and pipelines the parser does not know: no reading at all
    for change in ({"groups_to_merge": 8}, {"two_stage": True}, {"pipeline": "wavelet"}):
        assert read_name(dispatcher_name(cfg.replace(**change))) is None, change


def test_ck_semantics_aliases_kernels_that_exact_tells_apart():
    ck, exact = features(FULL, GFX950_FWD_BF16[:1]), features(FULL, GFX950_FWD_BF16[:1], semantics="exact")
    n = len(KERNEL_NAMES)
    ck_rows, exact_rows = {r[:n] for r in ck.rows}, {r[:n] for r in exact.rows}
    assert len(ck.rows) == len(exact.rows) and len(ck_rows) < len(exact_rows) < len(exact.rows)


def test_kernel_rows_carry_cksolve_config(capsys):
    code, out, _ = run(capsys, "features", "-r", "default", "-a", "gfx942", "--variant", "forward", "--dtype",
                       "fp16", "--ndim", "2", "--format", "jsonl", "--semantics", "exact")
    rows = [json.loads(ln) for ln in out.splitlines()]
    assert code == 0 and len(rows) == 11
    for r in rows:
        cfg = parse_name(r["kernel"])
        assert r["config_tile_m"] == cfg.tile_m == r["gemm_m_per_block"] and r["config_pipeline"] == cfg.pipeline
        assert r["block_size"] == 64 * cfg.wave_m * cfg.wave_n * cfg.wave_k


@pytest.mark.slow
@pytest.mark.ck_data
def test_output_is_byte_identical_across_hash_seeds(tmp_path):
    problems = tmp_path / "p.csv"
    problems.write_text("\n".join(HOLDOUT.read_text().splitlines()[:30]) + "\n")
    args = ["features", "-r", "full", "-a", "gfx950", "--variant", "forward", "--dtype", "bf16", "--problems",
            str(problems)]
    outs = {_cksolve(seed, *args, check=True).stdout for seed in ("0", "777")}
    assert len(outs) == 1 and next(iter(outs)).count(b"\n") > 1000


@pytest.mark.parametrize("argv,start", [
    (["-a", "gfx950", "--semantics", "true"], "unknown semantics 'true'"),
    (["-a", "gfx950", "-f", "xlsx"], "unknown format 'xlsx'"),
    (["-a", "gfx950", "--variant", "forward_depthwise"], "variant forward_depthwise: CK's feature engine"),
    (["-a", "gfx1201", "--problems", str(HOLDOUT)], "arch gfx1201 has no CK hardware profile (CK profiles gfx90a, "
                                                    "gfx942, gfx950)"),
    (["-a", "gfx1201"], "arch gfx1201 has no CK hardware profile"),
    (["-a", "gfx950", "--problems", "/nonexistent.csv"], "cannot read /nonexistent.csv"),
    (["-a", "gfx950,gfx942"], "--arch takes one architecture here"),
    (["-a", "gfx950", "-o", "/nonexistent-dir/f.csv"], "cannot write /nonexistent-dir/f.csv"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, start):
    if str(HOLDOUT) in argv:
        require_ck()
    code, out, err = run(capsys, "features", "-r", "default", *argv)
    assert code == 2 and err.count("\n") == 1 and out == "", err
    assert err.startswith(f"cksolve: error: {start}"), err


def test_unprofiled_arch_has_kernel_rows_in_exact_semantics(capsys):
    code, out, _ = run(capsys, "features", "-r", "full", "-a", "gfx908", "--semantics", "exact", "--dtype", "fp16")
    assert code == 0 and out.count("\n") > 1


def test_failed_output_writes_nothing(capsys, tmp_path):
    target = tmp_path / "f.csv"
    code, _, err = run(capsys, "features", "-r", "default", "-a", "gfx1201", "--problems", str(HOLDOUT),
                       "-o", str(target))
    assert code == 2 and not target.exists() and list(tmp_path.iterdir()) == []


# ---- pipeline variants ------------------------------------------------------------------

CK_VARIANTS = tomllib.loads((DATA / "ck_pipeline_variants.toml").read_text(encoding="utf-8"))


def _matches(entry: tuple, match: dict) -> bool:
    fields = dict(zip(("pipeline", "scheduler", "double_smem_buffer", "split_image"), entry))
    return all(fields[k] == (bool(v) if isinstance(v, int) else v) for k, v in match.items())


@pytest.mark.slow
def test_pipeline_variants_against_ck_hand_kept_table():
    ck = {(p, s, bool(d), bool(i)) for p, s, d, i in CK_VARIANTS["entries"]}
    assert len(ck) == len(CK_VARIANTS["entries"]) == CK_VARIANTS["previous_entries"] + 1
    derived = {v[2:6] for v in pipeline_variants(["gfx950"], ["forward"], ["bf16"], [2, 3])}
    explained = {i: 0 for i in range(len(CK_VARIANTS["differences"]))}
    for side, entries in (("ck", ck - derived), ("cksolve", derived - ck)):
        for e in sorted(entries):
            why = [i for i, d in enumerate(CK_VARIANTS["differences"]) if d["only_in"] == side and _matches(e, d["match"])]
            assert why, f"only in {side}: {e} -- no explanation in ck_pipeline_variants.toml"
            for i in why:
                explained[i] += 1
    stale = [CK_VARIANTS["differences"][i]["match"] for i, n in explained.items() if n == 0]
    assert not stale, f"explanations that match no difference: {stale}"
    assert len(ck & derived) == 27


@pytest.mark.slow
def test_pipeline_variants_follow_the_constraints():
    got = pipeline_variants(["gfx942"], ["bwd_data", "forward"], ["fp16"], [2])
    bwd = {v.pipeline for v in got if v.variant == "bwd_data"}
    assert bwd == {"compv3", "mem"}  # the arch filter's backward pipelines
    fwd = [v for v in got if v.variant == "forward"]
    assert all(v.double_smem_buffer for v in fwd if v.pipeline in ("compv4", "comp_async"))
    assert not any(v.scheduler == "interwave" for v in fwd if v.pipeline.startswith("compv3"))
    for v in got:
        cfg = parse_name(v.witness)
        assert (cfg.pipeline, cfg.scheduler, cfg.double_smem_buffer, cfg.split_image) == v[2:6]


def test_pipeline_variant_witnesses_are_the_whole_models_first_solutions():
    """Searched part by part and remembered, each witness is still the one python-constraint finds searching
    the whole model (its least solution), in the first dtype/ndim model that has one."""
    from itertools import product

    from cksolve.features.pipeline_variants import VARIANT_AXES, WITNESS_BACKEND
    from cksolve.solver import build_model, get_backend
    from cksolve.space.buffering import BUFFERING_RULES

    find_one = get_backend(WITNESS_BACKEND).find_one
    for arch, variant, pipelines in (("gfx942", "forward", ("mem", "compv4")), ("gfx1201", "bwd_weight", ("compv3",))):
        got = {v[2:6]: v.witness for v in pipeline_variants([arch], [variant], ["fp32", "fp16"], [2])
               if v.pipeline in pipelines}
        models = [build_model(Combo(arch, variant, d, 2), None, BUFFERING_RULES) for d in ("fp32", "fp16")]
        whole = {}
        for values in product(pipelines, ("intrawave", "interwave"), (False, True), (False, True)):
            pins = dict(zip(VARIANT_AXES, values))
            found = next((w for w in (find_one(m, pins) for m in models) if w is not None), None)
            if found is not None:
                whole[values] = found.name()
        assert got == whole and len(whole) >= 2, (arch, variant)


def test_builtin_rule_sets_never_break_the_lds_buffering_rules():
    for name in ("default", "full"):
        rs = get_rule_set(name)
        for variant in ("forward", "bwd_data", "bwd_weight"):
            for ndim in (1, 2, 3):
                for c in solve_combo(rs, Combo("gfx942", variant, "fp16", ndim)).configs():
                    bad = [k.name for k in BUFFERING_RULES if not k.holds((c.pipeline, c.double_smem_buffer))]
                    assert not bad, f"{name}: {c.name()} breaks {bad}"


@pytest.mark.slow
def test_pipeline_variants_cli(capsys):
    code, out, _ = run(capsys, "pipeline-variants", "--variant", "forward", "--arch", "gfx950", "--dtype", "bf16")
    assert code == 0 and out.splitlines()[-1] == "46 combinations"
    code, out, _ = run(capsys, "pipeline-variants", "--variant", "bwd_weight", "--arch", "gfx90a", "-f", "jsonl")
    rows = [json.loads(ln) for ln in out.splitlines()]
    assert code == 0 and {r["pipeline"] for r in rows} == {"compv3", "mem"} and "witness" in rows[0]
    code, _, err = run(capsys, "pipeline-variants", "--variant", "forward_depthwise")
    assert code == 2 and err.startswith("cksolve: error: forward_depthwise kernels have no GEMM pipeline")


def test_docs_page_lists_every_column_from_the_data():
    page = (Path(__file__).resolve().parents[1] / "docs" / "ml-features.md").read_text(encoding="utf-8")
    assert markdown_table() in page


def test_the_cli_offers_what_the_features_package_defines():
    """The CLI repeats the formats so that its help needs no import of the package."""
    from cksolve import features
    from cksolve.cli import features as cli_features
    from cksolve.features import SEMANTICS
    from cksolve.features.table_writers import FORMATS

    assert cli_features.SEMANTICS == tuple(SEMANTICS) and cli_features.FEATURE_FORMATS == tuple(FORMATS)


def test_the_short_name_grammar_is_stated_once():
    """``dispatcher_name`` writes the short name; ``ckname`` reads it both as CK's parser does (``read_name``) and
    in full (``read_short``, what ``read_kernel_name`` reads measurement files with): one grammar, two readings."""
    import inspect

    import cksolve.features.ckname as ckname
    from cksolve.features.ckname import read_short
    from cksolve.space.naming import parse_name

    assert inspect.getsource(ckname).count("re.compile") == 1  # the fallback's search, not a name grammar
    cfg = parse_name("grouped_conv_bwd_weight_bf16_nhwgc_3d_mem_cshuffle_interwave_64x128x32_2x2x1_32x32x16")
    for change in ({}, {"groups_to_merge": 2}, {"two_stage": True}, {"double_smem_buffer": True},
                   {"split_image": True}):
        c = cfg.replace(**change)
        name = dispatcher_name(c)
        assert read_short(name) == ckname.config_short(c), (change, name)
        ck = read_name(name)
        if change.get("groups_to_merge", 1) != 1 or change.get("two_stage"):  # suffixes CK's parser does not know
            assert ck is None, name
        else:
            assert ck is not None and ck[:3] == (c.tile_m, c.tile_n, c.tile_k), name
    assert read_short("grouped_conv_forward_bf16_2d_64x64x64_wavelet_intrawave")[6] == "wavelet"
    assert read_name("grouped_conv_forward_bf16_2d_64x64x64_wavelet_intrawave") is None
