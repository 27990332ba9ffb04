"""CK's dispatcher short names in ``check``, ``explain`` and ``names expand``.

A short name stands for the kernels of a rule set whose short name it is; it is valid for an arch
when it stands for at least one ``default`` kernel there (the resolver of ``workload.labels`` then
finds it ``exact``: what ``train``/``evaluate`` use is a kernel with this very short name), or one
kernel of the rule set given.
"""

from __future__ import annotations

import json

import pytest

from test_cli import run  # the CLI run in-process: (exit code, stdout, stderr)
from cksolve.rulesets import get_rule_set
from cksolve.solver import enumerate_combo
from cksolve.space.combo import Combo
from cksolve.space.shortnames import dispatcher_name
from cksolve.workload.expand import expand_short
from cksolve.workload.labels import LabelResolver

EXACT = "grouped_conv_forward_bf16_2d_64x64x64_compv3"  # a default kernel's short name at gfx950
NEAREST = "grouped_conv_forward_bf16_2d_16x64x64_compv4"  # no default kernel has it: CK's runner maps it
BAD_DTYPE = "grouped_conv_forward_xx9_2d_64x64x64_compv3"


@pytest.mark.parametrize("rule_set", ["default", "full"])
def test_expand_lists_exactly_the_rule_sets_kernels_with_that_short_name(rule_set):
    rs = get_rule_set(rule_set)
    configs = enumerate_combo(rs, Combo("gfx950", "forward", "bf16", 2))
    by_short: dict[str, list[str]] = {}
    for c in configs:
        by_short.setdefault(dispatcher_name(c), []).append(c.name())
    assert EXACT + "_intrawave" in by_short  # the dispatcher writes the scheduler; a reader may leave it out
    for short, names in sorted(by_short.items()):
        e = expand_short(short, "gfx950", rs)
        assert list(e.kernels) == names, short
        assert e.valid and e.member is True


def test_the_runners_kernel_is_the_resolvers_and_validity_follows_it():
    for short in (EXACT, NEAREST, EXACT + "_intrawave", "grouped_conv_forward_bf16_2d_64x64x128_compv4_intrawave_dsb"):
        e = expand_short(short, "gfx950")
        r = LabelResolver("gfx950").resolve(short)
        assert (e.resolved.kernel, e.resolved.how) == (r.kernel, r.how), short
        assert e.valid == (r.how == "exact"), short  # check's verdict agrees with what train/evaluate use
        assert (r.kernel in e.kernels) == (r.how == "exact"), short
    assert expand_short(NEAREST, "gfx950").kernels == ()


def test_check_reads_short_names_and_keeps_its_keys(capsys, monkeypatch):
    code, out, _ = run(capsys, "check", "-", "--arch", "gfx950", stdin=f"{EXACT}\n{NEAREST}\n", monkeypatch=monkeypatch)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{EXACT}: valid"
    assert lines[1] == f"{NEAREST}: invalid"
    assert lines[2].startswith("  - short-name: no kernel of the default rule set for gfx950 has this short name;")
    code, out, _ = run(capsys, "check", "-", "--arch", "gfx950", "-f", "jsonl", stdin=f"{EXACT}\n",
                       monkeypatch=monkeypatch)
    assert code == 0
    d = json.loads(out)
    assert list(d)[:4] == ["name", "arch", "valid", "violations"]  # the keys of a full name's record, first
    assert d["valid"] and d["how"] == "exact" and d["kernels"] == [d["resolved"]]


def test_check_short_name_membership_in_a_rule_set(capsys, monkeypatch):
    code, out, _ = run(capsys, "check", "-", "--arch", "gfx950", "-r", "full", "-f", "jsonl", stdin=f"{EXACT}\n",
                       monkeypatch=monkeypatch)
    d = json.loads(out)
    assert code == 0 and d["member"] is True and len(d["kernels"]) > 1
    assert d["kernels"] == list(expand_short(EXACT, "gfx950", get_rule_set("full")).kernels)


def test_a_short_name_with_an_unknown_dtype_is_bad_input(capsys, monkeypatch):
    code, _, err = run(capsys, "check", "-", "--arch", "gfx950", stdin=f"{BAD_DTYPE}\n", monkeypatch=monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "not a kernel name" in err
    for argv in (("explain", BAD_DTYPE), ("names", "expand", BAD_DTYPE), ("names", "expand", "nonsense")):
        code, _, err = run(capsys, *argv, "--arch", "gfx950")
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (argv, err)


def test_explain_a_short_name_explains_the_resolved_kernel(capsys):
    code, out, _ = run(capsys, "explain", NEAREST, "--arch", "gfx950", "--nearest", "0")
    resolved = LabelResolver("gfx950").resolve(NEAREST).kernel
    assert code == 1
    assert out.splitlines()[0] == (f"{NEAREST} is a dispatcher short name; in rule set default for gfx950 it "
                                   "stands for 0 kernels.")
    assert f"CK's runner builds the nearest of the default rule set: {resolved}" in out
    assert f"{resolved} is valid for gfx950." in out
    code, out, _ = run(capsys, "explain", EXACT, "--arch", "gfx950", "--nearest", "0", "-f", "json")
    d = json.loads(out)
    assert code == 0 and d["name"] == EXACT and d["ok"] and d["how"] == "exact"
    assert {"name", "arch", "ok", "valid", "rule_set", "member", "violations", "problem", "nearest",
            "searched"} <= set(d)


def test_names_expand_text_and_jsonl(capsys):
    code, out, _ = run(capsys, "names", "expand", EXACT, NEAREST, "--arch", "gfx950")
    assert code == 1  # NEAREST stands for no default kernel
    exact = LabelResolver("gfx950").resolve(EXACT).kernel
    assert out.splitlines()[:2] == [f"{EXACT}: 1 kernel in rule set default for gfx950",
                                    f"  {exact}  (CK's runner builds this one)"]
    code, out, _ = run(capsys, "names", "expand", EXACT, "--arch", "gfx950", "-r", "full", "-f", "jsonl")
    d = json.loads(out)
    assert code == 0 and d["rule_set"] == "full" and d["resolved"] == exact and exact not in d["kernels"]
