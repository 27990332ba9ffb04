"""CK versions as data: both bundled versions against CK's accepted sets, resolving refs, the active version.

The suite's other tests mean the June reference (conftest); here each test says its version. At
develop (05fcb0f1) cksolve must accept exactly what CK's generator accepts (``oracle-develop/``), and
June must still be June (``oracle/``) in the same process: the memos key on the version.
"""

from __future__ import annotations

import pytest

from cksolve.arch import versions
from cksolve.arch.facts import arch_facts
from cksolve.errors import CksolveError
from cksolve.rulesets import Combo, get_rule_set
from cksolve.solver import solve_combo
from cksolve.solver.evaluate import evaluate
from cksolve.space.naming import parse_name

from conftest import CK, first_differences, oracle, oracle_develop, split_key

JUNE, DEVELOP = "60b27664", "05fcb0f1"
ORACLES = {JUNE: oracle, DEVELOP: oracle_develop}


def _rule_set(name):
    return get_rule_set(name, builder_configs=str(CK / "builder-configs")) if name in ("tests", "profiler") \
        else get_rule_set(name)


@pytest.mark.ck_data
@pytest.mark.parametrize("ref", [DEVELOP, JUNE])  # develop first: June afterwards must not be answered from its memos
@pytest.mark.parametrize("name", ["default", "full", "tests", "profiler"])
def test_accepted_sets_equal_ck_at_each_version(name, ref):
    rs = _rule_set(name)
    bad = []
    with versions.using(versions.resolve(ref)):
        for key, entry in ORACLES[ref](name).items():
            got = {c.name() for c in solve_combo(rs, Combo(*split_key(key))).configs()}
            if got != set(entry["accepted"]):
                only_us, only_ck = first_differences(got, entry["accepted"], 3)
                bad.append(f"{key}: {len(got)} vs CK {len(entry['accepted'])}; only cksolve: {only_us}; "
                           f"only CK: {only_ck}")
    assert not bad, f"{name} at {ref}: {len(bad)} combinations differ:\n" + "\n".join(bad[:5])


@pytest.mark.ck_data
@pytest.mark.parametrize("name", ["default", "tests", "profiler"])
def test_develop_rejections_and_ck_only_are_invalid_at_develop(name):
    rs = _rule_set(name)
    problems = []
    with versions.using(versions.resolve(DEVELOP)):
        for key, entry in oracle_develop(name).items():
            arch = key.split("/")[0]
            for n, why in [*entry["rejected"].items(), *entry.get("ck_only", {}).items()]:
                verdict = evaluate(parse_name(n), arch, rs)
                if verdict.valid and verdict.member:
                    problems.append(f"{key}: {n} ({why}) judged a member")
                if why.startswith("LDS capacity") and "arch.lds_capacity" not in {v.constraint for v in verdict.violations}:
                    problems.append(f"{key}: {n}: CK says {why!r}, cksolve: {verdict.violations}")
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("ref", [DEVELOP, JUNE])
@pytest.mark.parametrize("arch", ["gfx950", "gfx1250"])
def test_full_tests_and_tiny_keep_their_contract_at_each_version(arch, ref):
    import test_subsets

    with versions.using(versions.resolve(ref)):
        for combo in test_subsets._combos(arch):
            test_subsets._check_full_tests(combo)
            test_subsets._check_tiny(combo)


@pytest.mark.parametrize("ref, expected", [(DEVELOP, {"default": {"gfx950": 528, "gfx1250": 144}, "full": {"gfx950": 9089}}),
                                           (JUNE, {"default": {"gfx950": 501, "gfx1250": 252}, "full": {"gfx950": 9077}})])
def test_the_issue_counts(ref, expected):
    from cksolve.query import select

    with versions.using(versions.resolve(ref)):
        for name, per_arch in expected.items():
            for arch, n in per_arch.items():
                got = sum(solve_combo(get_rule_set(name), c).count() for c in select([arch]).combos())
                assert got == n, f"{name} {arch} at {ref}: {got}, expected {n}"


def test_develop_facts():
    with versions.using(versions.resolve("develop")):
        f = arch_facts("gfx1250")
        assert f.family == "cdna5" and f.lds_capacity == 320 * 1024
        assert f.warp_tiles["fp32_fp32_fp32"] == ((16, 16, 4),)
        assert f.warp_tiles["int8_int8_int32"] == ((16, 16, 64),)  # recorded, though no conv rule set uses it yet
        assert dict(arch_facts("gfx950").lds_budgets)["compv6"] == 81920
        assert versions.active().budget("gfx950", "mem", double_smem_buffer=True) == 81920  # halved
        assert versions.active().budget("gfx950", "compv4", double_smem_buffer=True) == 81920  # never twice
    with versions.using(versions.resolve("2026-06")):
        assert arch_facts("gfx1250").family == "rdna4"
        assert dict(arch_facts("gfx950").lds_budgets)["compv6"] == 32768


def test_refs_resolve_by_prefix_alias_and_develop():
    assert versions.resolve("60b2766").key == JUNE
    assert versions.resolve("2026-10").key == DEVELOP
    assert versions.resolve("develop") is versions.newest() is versions.resolve(None)
    assert versions.newest().key == DEVELOP
    for bad in ("zz", "0000", "60"):
        with pytest.raises(CksolveError, match="CK version"):
            versions.resolve(bad)


def test_the_default_is_the_newest_bundled(monkeypatch, capsys):
    from cksolve.cli import main

    monkeypatch.delenv("CKSOLVE_CK")
    for args, want in (([], "9089"), (["--ck", JUNE], "9077"), (["--ck", "develop"], "9089")):
        with pytest.raises(SystemExit) as exc:
            main(["count", "-r", "full", "--arch", "gfx950", *args])
        assert exc.value.code in (0, None)
        assert capsys.readouterr().out.strip() == want, args
    monkeypatch.setenv("CKSOLVE_CK", "2026-06")
    with pytest.raises(SystemExit):
        main(["count", "-r", "full", "--arch", "gfx950"])
    assert capsys.readouterr().out.strip() == "9077"


def test_unknown_ref_is_one_line_and_exit_2(capsys):
    from cksolve.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["count", "-r", "default", "--ck", "nosuch"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "'nosuch'" in err and "60b27664" in err, err
