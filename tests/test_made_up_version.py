"""Adding a CK version is one data file: a made-up version in a copied package, followed through
``count``, ``diff`` and ``emit``.

The copy gets ``cksolve/arch/ck_0badc0de.toml`` -- a delta on develop that gives gfx942 128 KB of LDS,
dated after every bundled version -- and nothing else changes. It must become the default (the
newest), be reachable by its commit prefix and its alias, change gfx942's answers exactly by the
LDS budget (the names only in it name ``arch.lds_capacity``), and reach the emitted kernels.
"""

from __future__ import annotations

import json

import pytest

from package_copy import copy_with, run as cksolve

MADE_UP = """
[version]
commit = "0badc0de00000000000000000000000000000000"
date = "2027-01-15"
aliases = ["2027-01"]
based_on = "05fcb0f1"
lds_rule = "arch"
description = "a made-up CK: gfx942 with 128 KB of LDS"

[architectures.gfx942]
lds_capacity_kb = 128
"""

SELECT = ("--arch", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "2")


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    root = copy_with(tmp_path_factory.mktemp("made_up"), "arch/ck_05fcb0f1.toml", "")
    (root / "cksolve" / "arch" / "ck_0badc0de.toml").write_text(MADE_UP, encoding="utf-8")
    return root


def _out(package, *args) -> str:
    proc = cksolve(package, *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_new_version_is_the_default_and_changes_counts(package, monkeypatch):
    monkeypatch.delenv("CKSOLVE_CK")  # (package_copy.run passes the environment on)
    new = int(_out(package, "count", "-r", "default", "--arch", "gfx942"))
    assert new == int(_out(package, "count", "-r", "default", "--arch", "gfx942", "--ck", "0badc0de"))
    assert new == int(_out(package, "count", "-r", "default", "--arch", "gfx942", "--ck", "2027-01"))
    develop = int(_out(package, "count", "-r", "default", "--arch", "gfx942", "--ck", "05fcb0f1"))
    assert new > develop == 417  # gfx942 is unchanged from June to develop; more LDS admits more tiles
    assert int(_out(package, "count", "-r", "default", "--arch", "gfx950")) == 528  # other archs as develop


def test_diff_names_the_lds_rule(package):
    lines = _out(package, "diff", "default@05fcb0f1", "default@0badc0de", *SELECT, "--format", "jsonl").splitlines()
    records = [json.loads(line) for line in lines]
    assert records and all(r["only_in"] == "b" and r["constraint"] == "arch.lds_capacity" for r in records), records[:3]
    assert all("65536 bytes limit" in r["message_a"] or "32768 bytes limit" in r["message_a"] for r in records)


def test_emit_follows_the_version(package, tmp_path):
    names = {}
    for ref in ("05fcb0f1", "0badc0de"):
        out = tmp_path / ref
        _out(package, "emit", "-r", "default", *SELECT, "--out", str(out), "--ck", ref)
        names[ref] = {p.name[:-4] for p in out.glob("*.hpp") if p.name.startswith("grouped_conv_")}
    only_new = names["0badc0de"] - names["05fcb0f1"]
    assert only_new and not names["05fcb0f1"] - names["0badc0de"]
    listed = set(_out(package, "enumerate", "-r", "default", *SELECT, "--ck", "0badc0de").split())
    assert names["0badc0de"] == listed
