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
from cksolve.solver.questions.evaluate import evaluate
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


# --- CK's own arch_specs.json (--arch-specs) ------------------------------------------------


@pytest.mark.ck_data
@pytest.mark.parametrize("name, rule, full_gfx950", [("arch_specs.05fcb0f1.json", "arch", 9089),
                                                     ("arch_specs.54f25023.json", "pipeline", 9077)])
def test_both_formats_of_ck_facts_file(name, rule, full_gfx950):
    from cksolve.arch.specs_file import read_arch_specs
    from cksolve.query import select

    version = read_arch_specs(CK / "arch-specs" / name)
    assert version.lds_rule == rule
    with versions.using(version):
        assert sum(solve_combo(get_rule_set("full"), c).count() for c in select(["gfx950"]).combos()) == full_gfx950
        assert arch_facts("gfx942").hw_profile["num_cus"] == 228  # facts the file does not hold: the bundled ones


def _bad(tmp_path, text):
    path = tmp_path / "arch_specs.json"
    path.write_text(text)
    return str(path)


GOOD_ARCH = ('"gfx950": {"family": "cdna4", "warp_size": 64, "lds_capacity_kb": 160, "warp_configs": [[2, 2, 1]], '
             '"warp_tile_combos": {"fp16_fp16_fp32": [[32, 32, 8]]}}')
BUDGET = '"pipeline_lds_budget": {"default": {"basis": "fraction", "value": 1.0}}'


@pytest.mark.parametrize("text, key, problem", [
    ("{" + BUDGET + "}", "architectures", "missing table"),
    ('{"architectures": {' + GOOD_ARCH + '}}', "pipeline_lds_budget", "missing table"),
    ('{"architectures": {' + GOOD_ARCH.replace("160", '"160KB"') + '}, ' + BUDGET + '}',
     "architectures.gfx950.lds_capacity_kb", "expected an integer"),
    ('{"architectures": {' + GOOD_ARCH + '}, ' + BUDGET + ', "pipeline_lds_budget_aliases": {"comp_tdm": "nosuch"}}',
     "pipeline_lds_budget_aliases.comp_tdm", "unknown pipeline"),
    ('{"architectures": {' + GOOD_ARCH + '}, "pipeline_lds_limits": {"mem": 65536.5, "default": 65536}}',
     "pipeline_lds_limits.mem", "expected an integer"),
    ("{not json", "", "not JSON"),
    # JSON's non-standard constants and an overflowing literal are numbers Python reads but cannot size a budget with
    ('{"architectures": {' + GOOD_ARCH + '}, ' + BUDGET.replace("1.0", "NaN") + '}',
     "pipeline_lds_budget.default.value", "expected a finite number"),
    ('{"architectures": {' + GOOD_ARCH + '}, ' + BUDGET.replace("1.0", "1e400") + '}',
     "pipeline_lds_budget.default.value", "expected a finite number"),
    ('{"architectures": {' + GOOD_ARCH + '}, ' + BUDGET.replace("1.0", "Infinity") + '}',
     "pipeline_lds_budget.default.value", "expected a finite number"),
    ("[" * 100_000 + "]" * 100_000, "", "not JSON"),  # nesting deeper than the decoder's recursion
    ('{"architectures": 1' + "0" * 5000 + "}", "", "not JSON"),  # an integer past Python's digit limit
])
def test_a_malformed_facts_file_is_one_line_naming_file_key_and_problem(tmp_path, capsys, text, key, problem):
    from cksolve.cli import main

    path = _bad(tmp_path, text)
    with pytest.raises(SystemExit) as exc:
        main(["count", "-r", "default", "--arch", "gfx950", "--arch-specs", path])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1, err
    assert "arch_specs.json" in err and f"{key}: " in err and problem in err, err


# --- diff between versions --------------------------------------------------------------------


def test_diff_between_versions_names_the_lds_rule_for_exactly_the_twelve(capsys):
    from cksolve.cli import main
    import json

    with pytest.raises(SystemExit) as exc:
        main(["diff", "full@60b27664", "full@05fcb0f1", "--arch", "gfx950", "--format", "jsonl"])
    assert exc.value.code in (0, None)
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(records) == 12 and len({r["name"] for r in records}) == 12
    for r in records:
        assert r["only_in"] == "b" and r["constraint"] == "arch.lds_capacity", r
        assert r["variant"] == "forward" and r["dtype"] == "fp32" and "_compv6_" in r["name"] and "128x128x64" in r["name"]
        assert "65536 bytes > 32768 bytes limit" in r["message_a"] and "81920" in r["message_b"], r


def test_a_version_on_a_file_of_names_is_an_error(tmp_path, capsys):
    from cksolve.cli import main

    names = tmp_path / "names.txt"
    names.write_text("grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16\n")
    with pytest.raises(SystemExit) as exc:
        main(["diff", "full", f"{names}@60b27664", "--arch", "gfx942"])
    assert exc.value.code == 2 and "applies to a rule set" in capsys.readouterr().err


@pytest.mark.parametrize("spec, says", [("nosuch@60b27664", "'nosuch' is not a rule set (default"),
                                        ("@60b27664", "no rule set before '@' in '@60b27664'"),
                                        ("default@", "no CK version after '@' in 'default@'")])
def test_a_malformed_versioned_side_names_what_is_wrong(capsys, spec, says):
    """An unknown rule set at a version is not 'a file of names'; an empty side of '@' says which is empty."""
    from cksolve.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["diff", spec, "full", "--arch", "gfx942"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and says in err, err


def test_refs_ignore_case_and_surrounding_blanks_like_aliases():
    """'DEVELOP' and ' develop' name what '05FCB0F1' and ' 2026-10' do (resolve lowers and strips them all)."""
    assert versions.resolve("DEVELOP") is versions.resolve(" develop") is versions.newest()
    assert versions.resolve(" 2026-06 ").key == versions.resolve("60B27664").key == JUNE


@pytest.mark.parametrize("rule_set, dtype", [("default", "fp16"), ("full", "fp32")])
def test_the_backends_agree_at_develop(capsys, rule_set, dtype):
    """develop's LDS check reads double_smem_buffer: CP-SAT and python-constraint tabulate it as direct decides it."""
    from cksolve.cli import main

    outs = {}
    for backend in ("direct", "cpsat", "python-constraint"):
        with pytest.raises(SystemExit) as exc:
            main(["enumerate", "-r", rule_set, "--arch", "gfx950", "--variant", "forward", "--dtype", dtype,
                  "--ndim", "2", "--backend", backend, "--ck", "develop"])
        assert exc.value.code in (0, None)
        outs[backend] = capsys.readouterr().out
    assert outs["direct"] and outs["cpsat"] == outs["direct"] == outs["python-constraint"]


@pytest.mark.ck_data  # CK's arch_specs.json
def test_trait_combinations_are_version_data(tmp_path):
    """A CK file's unsupported_trait_combos decide arch.trait_unsupported (here: mem/interwave refused too)."""
    import json

    from cksolve.arch.specs_file import read_arch_specs

    data = json.loads((CK / "arch-specs" / "arch_specs.05fcb0f1.json").read_text())
    data["unsupported_trait_combos"]["combinations"].append(["mem", "cshuffle", "interwave"])
    path = tmp_path / "arch_specs.json"
    path.write_text(json.dumps(data))
    name = "grouped_conv_fwd_fp16_nhwgc_2d_mem_cshuffle_interwave_128x128x64_2x2x1_32x32x16"
    assert evaluate(parse_name(name), "gfx942").valid
    with versions.using(read_arch_specs(path)):
        assert "arch.trait_unsupported" in {v.constraint for v in evaluate(parse_name(name), "gfx942").violations}


def test_neighbors_answers_at_the_chosen_version(capsys):
    """neighbors lists valid configs, which the CK version decides: it takes --ck like every such command
    (it refused the option). compv6 128x128x64 fp32 on gfx950 fits only develop's LDS budget."""
    from cksolve.cli import main

    name = "grouped_conv_fwd_fp32_nhwgc_3d_compv6_cshuffle_intrawave_128x128x64_2x2x1_16x16x8_vec4_4_8"
    out = {}
    for ref in (JUNE, DEVELOP):
        with pytest.raises(SystemExit) as exc:
            main(["neighbors", name, "--arch", "gfx950", "-r", "full", "--ck", ref])
        assert exc.value.code in (0, None), capsys.readouterr().err
        out[ref] = set(capsys.readouterr().out.split())
    assert out[JUNE] != out[DEVELOP] and all("_compv6_" in n for n in out[DEVELOP] - out[JUNE]), out


def test_the_facts_file_is_read_bounded(capsys):
    """--arch-specs read the whole file unbounded (/dev/zero: a MemoryError); it is read like every other input
    file: at most 64 MiB, one error line past it."""
    from cksolve.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["count", "-r", "default", "--arch", "gfx950", "--arch-specs", "/dev/zero"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "larger than 64 MiB" in err, err


@pytest.mark.ck_data  # CK's arch_specs.json
def test_the_facts_file_is_read_once_from_stdin(monkeypatch, capsys):
    """'-' is stdin (a pipe works): the file is read once."""
    import io

    from cksolve.cli import main

    data = (CK / "arch-specs" / "arch_specs.05fcb0f1.json").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    with pytest.raises(SystemExit) as exc:
        main(["count", "-r", "full", "--arch", "gfx950", "--arch-specs", "-"])
    assert exc.value.code in (0, None) and capsys.readouterr().out.strip() == "9089"


def test_features_of_an_arch_only_a_facts_file_knows_is_one_line(tmp_path, capsys):
    """A new arch from --arch-specs has no CK hardware profile: the error listing the profiled archs asked the
    facts file about the bundled archs it does not know (an UnknownArch traceback)."""
    from cksolve.cli import main

    path = _bad(tmp_path, '{"architectures": {' + GOOD_ARCH.replace('"gfx950"', '"gfx9999"') + '}, ' + BUDGET + '}')
    with pytest.raises(SystemExit) as exc:
        main(["features", "-r", "tiny", "--arch", "gfx9999", "--dtype", "fp16", "--arch-specs", path, "--format", "csv"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "gfx9999 has no CK hardware profile" in err, err


def test_diff_at_a_version_that_does_not_know_the_arch_is_one_line(tmp_path, capsys):
    """--arch-specs with a new arch against RULE_SET@REF: the bundled side raised UnknownArch (a traceback)."""
    from cksolve.cli import main

    path = _bad(tmp_path, '{"architectures": {' + GOOD_ARCH.replace('"gfx950"', '"gfx9999"') + '}, ' + BUDGET + '}')
    with pytest.raises(SystemExit) as exc:
        main(["diff", f"full@{DEVELOP}", "full", "--arch", "gfx9999", "--arch-specs", path])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1, err
    assert f"full@{DEVELOP}: CK {DEVELOP} does not know arch 'gfx9999'" in err and capsys.readouterr().out == "", err
