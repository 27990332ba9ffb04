"""Machine-readable outputs: explain's record and JSON, rule-sets and minimize's summary as JSON, check_names
over any names, one spelling of booleans, and enumerate's '# arch: A' sections read back by check and emit."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

from conftest import SHARED

from cksolve import query
from cksolve.cli import main

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = SHARED / "ck" / "workloads" / "validation_holdout.csv"
GOOD = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x64_1x4x1_16x16x16"
LDS = "grouped_conv_fwd_fp16_nhwgc_2d_compv4_cshuffle_intrawave_16x64x256_1x4x1_16x16x32_dsb"
RUNS_NOT = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"
SMALL = ["--variant", "forward", "--dtype", "fp16", "--ndim", "2"]


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


# -- explain ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, extra", [(LDS, []), (GOOD, ["--rule-set", "tiny"]), (GOOD, ["--rule-set", "default"]),
                                         (RUNS_NOT, ["--problem", "C=6,K=64,Y=3,X=3"])])
def test_explain_json_says_what_the_text_says(capsys, name, extra):
    code, text, _ = run(capsys, "explain", name, "--arch", "gfx942", *extra)
    jcode, out, _ = run(capsys, "explain", name, "--arch", "gfx942", "--format", "json", *extra)
    doc = json.loads(out)
    assert (code, jcode) == (0 if doc["ok"] else 1,) * 2, (code, jcode, doc["ok"])
    assert doc["name"] == name and doc["arch"] == "gfx942"
    for v in doc["violations"] + (doc["problem"]["violations"] if doc["problem"] else []):
        assert f"  - {v['message']} [{v['constraint']}]" in text, f"{v} is in the json, not in the words"
    assert text.count("  - ") == len(doc["violations"]) + (len(doc["problem"]["violations"]) if doc["problem"] else 0)
    assert [n["name"] for n in doc["nearest"]] == [line.split()[0] for line in text.splitlines()
                                                   if line.startswith("  grouped_conv")]
    for n in doc["nearest"]:
        assert n["distance"] == len(n["changed"]), n
    assert doc["searched"] is not None and (f"none in {doc['searched']}." in text) == (not doc["nearest"]), text


def test_explain_says_where_it_looked_when_the_combination_has_no_valid_config(capsys):
    """No 1D depthwise kernel exists: an empty list of nearest configs would read as 'nothing is near'."""
    name = "grouped_conv_fwd_depthwise_fp16_nhwgc_1d_16x16_f3_s1x1_p1x1_nb1_sub1x1_vec1_1"
    code, text, _ = run(capsys, "explain", name, "--arch", "gfx942")
    assert code == 1 and text.splitlines()[-1] == \
        "Nearest valid configs: none in default or full for gfx942/forward_depthwise/fp16/1d.", text
    code, out, _ = run(capsys, "explain", name, "--arch", "gfx942", "--nearest", "0", "--format", "json")
    doc = json.loads(out)
    assert doc["nearest"] == [] and doc["searched"] is None, doc


def test_explain_record_in_python():
    rec = query.explain_name(LDS, "gfx942", nearest=2)
    assert not rec.ok and not rec.valid and rec.member is None
    assert [c for c, _ in rec.violations] == ["arch.lds_capacity"]
    assert len(rec.nearest) == 2 and all(n.distance >= 1 for n in rec.nearest)
    assert rec.as_dict()["nearest"][0]["changed"] == dict(rec.nearest[0].changed)
    assert rec.text.startswith(f"{LDS} is not valid for gfx942:\n")
    member = query.explain_name(GOOD, "gfx942", query.load_rule_set("tiny"), nearest=0)
    assert member.valid and member.member is False and not member.ok and member.rule_set == "tiny"


def test_explain_unknown_format_is_one_line(capsys):
    code, _, err = run(capsys, "explain", GOOD, "--arch", "gfx942", "--format", "xml")
    assert code == 2 and err.startswith("cksolve: error: unknown format 'xml'")


# -- rule-sets, minimize ---------------------------------------------------------------------------------------

def test_rule_sets_json(capsys):
    code, out, _ = run(capsys, "rule-sets", "--format", "json")
    assert code == 0
    assert {r["name"]: r["description"] for r in json.loads(out)["rule_sets"]} == query.rule_set_descriptions()
    code, out, _ = run(capsys, "rule-sets", "--show", "tiny", "-a", "gfx942", *SMALL, "--format", "json")
    doc = json.loads(out)
    want = query.rule_set_constraints(query.load_rule_set("tiny"), query.select(["gfx942"], ["forward"], ["fp16"], [2]))
    assert doc["rule_set"] == "tiny" and [c["name"] for c in doc["constraints"]] == [c.name for c in want]
    for got, c in zip(doc["constraints"], want):
        assert got["rows"] == (None if c.rows is None else {"min": c.rows[0], "max": c.rows[1]}), c.name


@pytest.mark.ck_data
def test_minimize_summary_json(capsys, tmp_path):
    kept = tmp_path / "kept.txt"
    args = ["minimize", "--problems", str(HOLDOUT), "--rule-set", "tiny", "--arch", "gfx942", "--dtype", "fp16",
            "-o", str(kept)]
    code, text, _ = run(capsys, *args)
    assert code in (0, None)
    code, out, _ = run(capsys, *args, "--summary-format", "json")
    assert code in (0, None)
    doc = json.loads(out)
    assert doc["kept"] == len(kept.read_text().splitlines())
    assert doc["solver"]["status"] in ("OPTIMAL", "FEASIBLE") and doc["solver"]["objective"] == "kernels"
    assert f"-> {doc['kept']} kept" in text and f"problems covered: {doc['covered']} of {doc['problems']}" in text
    assert f"{doc['candidates']} kernels run" in text and doc["request"]["keep"] == 0.9
    code, _, err = run(capsys, *args, "--summary-format", "yaml")
    assert code == 2 and "unknown summary format 'yaml'" in err


# -- check_names over any names --------------------------------------------------------------------------------

def test_check_names_takes_any_iterable(tmp_path):
    names = [GOOD, LDS]
    path = tmp_path / "names.txt"
    path.write_text("\n".join(names) + "\n")
    from_list = list(query.check_names(names, "gfx942"))
    assert from_list == list(query.check_names(path, "gfx942")) == list(query.check_names(str(path), "gfx942"))
    assert list(query.check_names(iter(names), "gfx942")) == from_list
    assert [r.valid for r in from_list] == [True, False]
    with pytest.raises(query.CksolveError, match="names:2:"):
        list(query.check_names([GOOD, "not_a_kernel"], "gfx942"))


# -- booleans --------------------------------------------------------------------------------------------------

def _csv_values(text: str) -> set[str]:
    return {v for row in csv.reader(io.StringIO(text)) for v in row}


def test_booleans_are_true_false_in_csv(capsys):
    code, out, _ = run(capsys, "enumerate", "-r", "tiny", "-a", "gfx942", *SMALL, "--format", "csv")
    assert code in (0, None) and {"true", "false"} <= _csv_values(out) and not {"True", "False"} & _csv_values(out)
    code, out, _ = run(capsys, "pipeline-variants", "--variant", "forward", "--arch", "gfx950", "--format", "csv")
    assert {"true", "false"} <= _csv_values(out) and not {"True", "False"} & _csv_values(out)


def test_features_keep_ck_flags_and_spell_config_booleans(capsys):
    code, out, _ = run(capsys, "features", "-r", "tiny", "-a", "gfx950", *SMALL)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and not {"True", "False"} & _csv_values(out)
    assert {r["has_dsb"] for r in rows} <= {"0", "1"}, "CK's flag columns stay 0/1"
    assert {r["config_double_smem_buffer"] for r in rows} <= {"true", "false"}


# -- sections ---------------------------------------------------------------------------------------------------

def test_one_arch_listing_has_no_sections(capsys):
    code, out, _ = run(capsys, "enumerate", "-r", "tiny", "-a", "gfx942")
    assert code in (0, None) and out and "#" not in out
    assert out.splitlines() == list(query.enumerate_names(query.load_rule_set("tiny"), query.select(["gfx942"])))


def test_sections_are_the_one_arch_listings():
    rs = query.load_rule_set("tiny")
    lines = "".join(query.enumerate_lines(rs, query.select())).splitlines()
    want = []
    for arch in query.BUNDLED_ARCHS:
        want += [f"# arch: {arch}", *query.enumerate_names(rs, query.select([arch]))]
    assert lines == want
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from fingerprint import names_only

    assert names_only("".join(query.enumerate_lines(rs, query.select())).encode()) == \
        "".join(f"{n}\n" for n in query.enumerate_names(rs, query.select())).encode()


def test_check_reads_the_sections(capsys, tmp_path):
    listing = tmp_path / "tiny.txt"
    code, _, _ = run(capsys, "enumerate", "-r", "tiny", "-a", "gfx942,gfx1100,gfx950", *SMALL, "-o", str(listing))
    sections = {}
    arch = None
    for line in listing.read_text().splitlines():
        if line.startswith("# arch: "):
            arch = line.removeprefix("# arch: ")
        else:
            sections.setdefault(arch, []).append(line)
    code, out, _ = run(capsys, "check", str(listing), "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0, [r for r in records if not r["valid"]][:2]
    got = {}
    for r in records:
        got.setdefault(r["arch"], []).append(r["name"])
    assert got == sections
    code, _, err = run(capsys, "check", str(listing), "--arch", "gfx942")
    assert code == 2 and "is in the section for gfx950, not --arch gfx942" in err, err
    listing.write_text("\n".join(sections["gfx942"]) + "\n")
    code, _, err = run(capsys, "check", str(listing))
    assert code == 2 and f"{listing}:1:" in err and "no --arch is given" in err
    code, _, err = run(capsys, "check", str(listing), "--arch", "gfx942")
    assert code == 0


def test_a_bad_section_is_one_line(capsys, monkeypatch):
    code, out, err = run(capsys, "check", "-", stdin=f"# arch: gfx999\n{GOOD}\n", monkeypatch=monkeypatch)
    assert code == 2 and err.startswith("cksolve: error: stdin:2: unknown arch 'gfx999'") and out == ""


def test_emit_names_by_section(capsys, tmp_path):
    listing = tmp_path / "two.txt"
    run(capsys, "enumerate", "-r", "tiny", "-a", "gfx942,gfx950", *SMALL, "-o", str(listing))
    code, _, err = run(capsys, "emit", "--names", str(listing), "--out", str(tmp_path / "gen"))
    assert code == 0, err
    rs = query.load_rule_set("tiny")
    for arch in ("gfx942", "gfx950"):
        want = set(query.enumerate_names(rs, query.select([arch], ["forward"], ["fp16"], [2])))
        got = {p.stem for p in (tmp_path / "gen" / arch).glob("*.cpp")}
        assert got == want, f"{arch}: only emitted {sorted(got - want)[:2]}, not emitted {sorted(want - got)[:2]}"
    code, _, err = run(capsys, "emit", "--names", str(listing), "--arch", "gfx942", "--out", str(tmp_path / "g2"))
    assert code == 2 and "has a section for gfx950, not among --arch gfx942" in err
    assert not (tmp_path / "g2").exists()
