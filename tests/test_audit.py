"""``audit``: empty combinations and their blocking rules, dead rows, idle constraints, containment.

The must-pass findings come from CK's own output (``../shared/ck/oracle``):
``full`` proposes backward-data kernels the arch filter rejects on every arch,
and wave32 parts reject every forward GEMM kernel of ``full`` for its warp
tile. Minimality is checked through the solver, independently of how audit
found the sets.
"""

from __future__ import annotations

import json
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cksolve.arch.facts import BUNDLED_ARCHS, arch_facts
from cksolve.audit import audit
from cksolve.audit.containment import containment
from cksolve.audit.findings import LOSS
from cksolve.audit.parts import Parts, count, pinned
from cksolve.audit.runs import run
from cksolve.query import select
from cksolve.rulesets import Combo, get_rule_set
from conftest import CK, oracle, split_key
from test_cli import _cksolve, run as run_cli

BUILDER = str(CK / "builder-configs")
ORACLE_ARCHS = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201")


@lru_cache(maxsize=None)
def full_report():
    return audit(get_rule_set("full"), select().combos())


@lru_cache(maxsize=None)
def builder(name: str):
    return get_rule_set(name, builder_configs=BUILDER)


# --- full: CK's known defects ---------------------------------------------------------


@pytest.mark.slow
def test_full_backward_data_is_proposed_and_blocked_by_the_backward_pipeline_rule():
    bwd = [c for c in full_report().combos if c.combo.variant == "bwd_data"]
    assert len(bwd) == 8 * 9
    proposing = [c for c in bwd if c.proposed]
    assert len(proposing) >= 40, [c.combo.key for c in bwd if not c.proposed]
    for c in bwd:
        assert c.accepted == 0, (c.combo.key, c.accepted)
    for c in proposing:
        assert c.empty and "arch.backward_pipeline" in c.blocking, (c.combo.key, c.blocking)
        assert dict(c.rejected_by)["arch.backward_pipeline"] == c.proposed, c.combo.key
    # CK's output agrees: nothing accepted, and CK saw (at least) the configs its filter rejected
    for key, want in oracle("full").items():
        arch, variant, dtype, ndim = split_key(key)
        if variant == "bwd_data":
            got = next(c for c in bwd if c.combo == Combo(arch, variant, dtype, ndim))
            assert not want["accepted"] and got.proposed >= len(want["rejected"]), key


@pytest.mark.slow
def test_full_forward_gemm_on_wave32_is_blocked_by_the_warp_tile_rule():
    # the RDNA parts CK's data covers: wave32 with 16x16x16 warp tiles only (gfx1250 has K=32 tiles and builds)
    wave32 = [a for a in BUNDLED_ARCHS if arch_facts(a).warp_size == 32
              and all(t[2] < 32 for tiles in arch_facts(a).warp_tiles.values() for t in tiles)]
    assert wave32 == ["gfx1100", "gfx1200", "gfx1201"]
    forward = [c for c in full_report().combos if c.combo.arch in wave32 and c.combo.variant == "forward"]
    proposing = [c for c in forward if c.proposed]
    assert len(proposing) >= 6 * len(wave32) - 6, [c.combo.key for c in forward if not c.proposed]
    for c in proposing:
        assert c.accepted == 0 and "arch.warp_tile" in c.blocking, (c.combo.key, c.blocking)


def test_full_accepted_counts_are_cks():
    by_combo = {c.combo: c for c in full_report().combos}
    for key, want in oracle("full").items():
        got = by_combo[Combo(*split_key(key))]
        assert got.accepted == len(want["accepted"]), (key, got.accepted, len(want["accepted"]))
        assert got.proposed >= len(want["accepted"]) + len(want["rejected"]), key


# --- minimality (through the solver, not through audit's masks) -----------------------


def _everything_but(p: Parts, names) -> tuple:
    return tuple(c for c in p.everything if c.name not in names)


@lru_cache(maxsize=None)
def _lossy():
    return tuple(c for c in full_report().combos if c.lossy) + \
        tuple(c for c in audit(get_rule_set("default"), select().combos()).combos if c.lossy)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_blocking_sets_are_minimal(data):
    finding = data.draw(st.sampled_from(_lossy()))
    rule_set = get_rule_set("full" if finding in full_report().combos else "default")
    p = Parts(finding.combo, rule_set)
    line = 0 if finding.empty else (1 - LOSS) * finding.proposed
    assert finding.blocking
    assert count(p, p.everything) == finding.accepted
    assert count(p, _everything_but(p, set(finding.blocking))) > line, finding
    for kept in finding.blocking:
        assert count(p, _everything_but(p, set(finding.blocking) - {kept})) <= line, (finding, kept)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(select(archs=["gfx942", "gfx1100", "gfx1201"]).combos()))
def test_killers_of_dead_rows_are_minimal(combo):
    rule_set = get_rule_set("full")
    report = audit(rule_set, [combo])
    p = Parts(combo, rule_set)
    for d in report.dead_rows[:6]:
        pin = (pinned(d.scope, d.row, p.kind),)
        for killers, _ in d.rejected:  # arch rules: the rule set's constraints stay
            assert count(p, _everything_but(p, set(killers)) + pin) > 0, d
            for kept in killers:
                assert count(p, _everything_but(p, set(killers) - {kept}) + pin) == 0, (d, kept)
        if d.unreachable:  # rule-set constraints, arch rules out, over the rule set's own values
            killers = set(d.unreachable.killed_by)
            base = p.space + pin
            rest = [c for c in p.rules if c.name != d.constraint]
            assert count(p, base + tuple(c for c in rest if c.name not in killers), vocabulary=True) > 0, d
            for kept in killers:
                assert count(p, base + tuple(c for c in rest if c.name not in killers - {kept}),
                             vocabulary=True) == 0, (d, kept)


# --- a rule-set file with one dead row and one idle constraint -------------------------


MINE = """\
description = "default with two of its tiles, a tile it never has, and a pin it already implies"
base = "default"

[pin]
scheduler = ["intrawave"]

[[table]]
name = "mine.tiles"
scope = ["tile_m", "tile_n"]
rows = [[16, 64], [32, 64], [128, 256]]
"""


def test_file_with_a_dead_row_and_an_idle_constraint(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(MINE, encoding="utf-8")
    report = audit(get_rule_set(str(path)), select(archs=["gfx942"], variants=["forward"], dtypes=["fp16"]).combos())
    assert [(d.constraint, dict(zip(d.scope, d.row)), d.kind, d.killed_by) for d in report.dead_rows] == \
        [("mine.tiles", {"tile_m": 128, "tile_n": 256}, "unreachable", ("rules.default.core",))]
    assert report.idle == ["file.mine.scheduler"] and not report.undecided
    assert not any(c.lossy for c in report.combos) and not report.invalid
    assert report.findings() == {"empty": 0, "invalid": 0, "containment": 0, "dead": 1, "idle": 1}


# --- builder sets: entries that fail validity are the ones CK rejects or keeps wrongly -


@pytest.mark.parametrize("name", ["tests", "profiler"])
@pytest.mark.ck_data
def test_builder_invalid_entries_are_the_ones_ck_rejects(name):
    report = audit(builder(name), select(archs=list(ORACLE_ARCHS)).combos())
    got: dict[str, set] = {}
    for e in report.invalid:
        got.setdefault(e.combo.key, set()).add(e.name)
        assert e.violates and all(v.startswith("arch.") for v in e.violates), e
    for key, want in oracle(name).items():
        expected = set(want["rejected"]) | set(want["ck_only"])
        assert got.get(key, set()) == expected, (key, sorted(got.get(key, set()) ^ expected)[:3])


# --- containment -------------------------------------------------------------------------


def test_containment_finds_a_broken_subset_file_and_is_silent_on_a_real_one(tmp_path):
    combos = select(archs=["gfx942"], variants=["forward"], dtypes=["fp16"]).combos()
    broken = tmp_path / "broken.toml"  # default's compv3 16x64x128 tile is no tile of full
    broken.write_text('base = "default"\n[pin]\npipeline = ["compv3"]\ntile_k = [128]\n', encoding="utf-8")
    real = tmp_path / "real.toml"
    real.write_text('base = "full"\n[pin]\npipeline = ["compv3"]\n', encoding="utf-8")
    full = get_rule_set("full")
    found = containment(get_rule_set(str(broken)), full, "subset", combos)
    assert [c.combo.ndim for c in found if c.violations] == [1, 2, 3]
    for c in found:
        assert c.examples and all("_compv3_" in n and "x128_" in n for n in c.examples), c
    # 1d: full has no compv3 1d kernels at all, so the breakdown names the axis value
    assert ("pipeline", "compv3", found[0].violations, True) in found[0].breakdown, found[0].breakdown
    assert all(c.violations == 0 for c in containment(get_rule_set(str(real)), full, "subset", combos))
    assert all(c.violations == 0 for c in containment(full, get_rule_set(str(real)), "superset", combos))


@pytest.mark.parametrize("name", ["tests", "profiler"])
@pytest.mark.ck_data
def test_builder_sets_within_full_break_exactly_where_ck_says(name):
    combos = select(archs=list(ORACLE_ARCHS)).combos()
    got = {c.combo.key: c.violations for c in containment(builder(name), get_rule_set("full"), "subset", combos)}
    full = oracle("full")
    for key, want in oracle(name).items():
        expected = len(set(want["accepted"]) - set(full.get(key, {}).get("accepted", ())))
        assert got.get(key, 0) == expected, (key, got.get(key, 0), expected)


@pytest.mark.slow
def test_the_builtin_hierarchy_holds_where_ck_says_it_does():
    # CK's data: tiny within full-tests within full in every combination (tests/profiler: the test above)
    for key, want in oracle("tiny").items():
        assert set(want["accepted"]) <= set(oracle("full-tests")[key]["accepted"]), key
    combos = select().combos()
    for a, b in (("tiny", "full-tests"), ("full-tests", "full")):
        checks = containment(get_rule_set(a), get_rule_set(b), "subset", combos)
        assert len(checks) == 108 and all(c.violations == 0 for c in checks), [c for c in checks if c.violations][:1]
    reports, checks = run("all", select(archs=["gfx942", "gfx1201"]).combos(), builder_configs=BUILDER)
    assert [r.rule_set for r in reports] == ["default", "tiny", "full-tests", "full", "tests", "profiler"]
    assert {(c.a, c.b) for c in checks} == {("tiny", "full-tests"), ("full-tests", "full"), ("tests", "full"),
                                            ("profiler", "full")}
    assert all(c.violations == 0 for c in checks if c.a in ("tiny", "full-tests"))
    assert any(c.violations for c in checks if c.a == "tests")  # the 3D layout finding, on gfx942


# --- the command ---------------------------------------------------------------------------


SMALL = ["--arch", "gfx942,gfx1100", "--variant", "bwd_data", "--dtype", "fp16"]


def test_json_schema(capsys):
    code, out, err = run_cli(capsys, "audit", "-r", "full", *SMALL, "--against", "default:superset",
                             "--format", "json")
    doc = json.loads(out)
    assert code == 0 and not err
    assert set(doc) >= {"rule_set", "combos", "dead_rows", "idle", "containment", "invalid", "findings"}
    assert doc["rule_set"] == "full" and len(doc["combos"]) == 6
    for c in doc["combos"]:
        assert set(c) >= {"arch", "variant", "dtype", "ndim", "proposed", "accepted", "blocking"}
        assert c["accepted"] == 0 and "arch.backward_pipeline" in c["blocking"]
    for d in doc["dead_rows"]:
        assert set(d) >= {"constraint", "row", "killed_by", "combos"} and d["killed_by"] and d["combos"] > 0
    assert {(c["a"], c["b"], c["relation"]) for c in doc["containment"]} == {("full", "default", "superset")}
    assert all(set(c) >= {"arch", "variant", "dtype", "ndim", "violations"} for c in doc["containment"])


def test_fail_on_gates_the_exit_code(capsys):
    assert run_cli(capsys, "audit", "-r", "full", *SMALL, "--fail-on", "empty")[0] == 1
    assert run_cli(capsys, "audit", "-r", "full", *SMALL, "--fail-on", "invalid")[0] == 0
    assert run_cli(capsys, "audit", "-r", "full", *SMALL)[0] == 0
    code, out, _ = run_cli(capsys, "audit", "-r", "full", *SMALL)
    assert "blocked by arch.backward_pipeline" in out and out.splitlines()[-1].startswith("findings: empty 6,")


@pytest.mark.parametrize("args,needle", [
    (["-r", "nope"], "unknown rule set 'nope'"),
    (["-r", "full", "--fail-on", "empty,bogus"], "unknown --fail-on category 'bogus'"),
    (["-r", "full", "--against", "full:sideways"], "unknown relation 'sideways'"),
    (["-r", "full", "--against", "nope:subset"], "unknown rule set 'nope'"),
    (["-r", "all", "--against", "full"], "--against is not used with --rule-set all"),
    (["-r", "full", "--format", "xml"], "unknown format 'xml'"),
    (["-r", "full", "--arch", "gfx000"], "unknown arch 'gfx000'"),
    (["-r", "tests"], "pass --builder-configs"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, needle):
    code, out, err = run_cli(capsys, "audit", *args)
    assert code == 2 and not out and err.count("\n") == 1 and needle in err, err


def test_malformed_file_and_unwritable_output(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[pin\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "audit", "-r", str(bad))
    assert code == 2 and err.count("\n") == 1 and "bad.toml" in err
    loose = tmp_path / "loose.toml"  # no base, one pin: every other axis free
    loose.write_text('[pin]\npipeline = ["compv3"]\n', encoding="utf-8")
    code, _, err = run_cli(capsys, "audit", "-r", str(loose), "--arch", "gfx942", "--variant", "forward",
                           "--dtype", "fp16", "--ndim", "2")
    assert code == 2 and err.count("\n") == 1 and "pin more axes" in err and "gfx942/forward/fp16/2d" in err
    target = tmp_path / "missing" / "out.txt"
    code, _, err = run_cli(capsys, "audit", "-r", "default", "--arch", "gfx942", "-o", str(target))
    assert code == 2 and err.count("\n") == 1 and not target.parent.exists()


@pytest.mark.slow
def test_output_is_byte_identical_across_hash_seeds():
    args = ("audit", "-r", "full", "--arch", "gfx942,gfx1201", "--variant", "forward,bwd_data", "--dtype", "bf16",
            "--against", "default", "--format", "json")
    outs = {_cksolve(seed, *args, check=True).stdout for seed in ("0", "1", "4242")}
    assert len(outs) == 1 and len(next(iter(outs))) > 1000


def test_text_spells_values_as_names_and_files_do(capsys):
    """Dead rows and breakdowns print booleans as true/false (diff, tables and rule-set files do), never True/False."""
    code, out, err = run_cli(capsys, "audit", "-r", "full", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                             "--ndim", "2")
    assert code == 0, err
    assert "=false" in out and "=False" not in out and "=True" not in out, out[:2000]


def test_the_cli_names_all_as_the_audit_package_does():
    """The CLI repeats the name that audits every built-in set, so its help needs no import of audit."""
    from cksolve import audit
    from cksolve.cli import audit as cli_audit

    assert cli_audit.AUDIT_ALL == audit.ALL and cli_audit.AUDIT_FORMATS == audit.AUDIT_FORMATS
    assert cli_audit.FAIL_ON == audit.CATEGORIES
