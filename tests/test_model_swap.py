"""``train``'s model directory replaces an old one in one step (renameat2 RENAME_EXCHANGE on Linux): no moment
leaves nothing at ``--out``; where the call fails, two renames still replace it."""

from __future__ import annotations

import os

import pytest

from cksolve.ml import dirswap, modeldir
from cksolve.ml.modeldir import MANIFEST_FILE, SPEC_FILE, write_model_dir

TEXT = "tree\nversion=v4\n"  # write_model_dir writes the text as given; these tests never load it


def _write(d, n):
    write_model_dir(d, TEXT, {"arch": "gfx950", "n": n}, {"rows": n})


def _can_exchange(tmp_path) -> bool:
    a, b = tmp_path / "xa", tmp_path / "xb"
    a.mkdir()
    b.mkdir()
    (a / "f").write_text("a")
    (b / "g").write_text("b")
    try:
        return dirswap.exchange(a, b) and (b / "f").read_text() == "a" and (a / "g").read_text() == "b"
    finally:
        for p in (a, b):
            for f in p.iterdir():
                f.unlink()
            p.rmdir()


def test_a_model_directory_is_replaced_in_one_step(tmp_path, monkeypatch):
    if not _can_exchange(tmp_path):
        pytest.skip("no renameat2(RENAME_EXCHANGE) on this system or file system")
    d = tmp_path / "model"
    _write(d, 1)

    def no_rename(*a, **k):  # a rename would leave a moment with no directory at d (a SIGKILL there: no model)
        raise AssertionError(f"rename {a}")

    monkeypatch.setattr(modeldir.os, "rename", no_rename)
    _write(d, 2)
    assert '"n": 2' in (d / SPEC_FILE).read_text() and '"rows": 2' in (d / MANIFEST_FILE).read_text()
    assert sorted(os.listdir(tmp_path)) == ["model"]  # the old model removed, no temporary left


def test_a_failed_exchange_falls_back_to_two_renames(tmp_path, monkeypatch):
    d = tmp_path / "model"
    _write(d, 1)
    calls = []

    def failing(*args):
        calls.append(args)
        return -1  # EINVAL: a file system that refuses RENAME_EXCHANGE

    monkeypatch.setattr(dirswap, "_RENAMEAT2", failing)
    _write(d, 2)
    assert calls and '"n": 2' in (d / SPEC_FILE).read_text()
    assert sorted(os.listdir(tmp_path)) == ["model"]
    monkeypatch.setattr(dirswap, "_RENAMEAT2", None)  # no renameat2 at all (not Linux)
    _write(d, 3)
    assert '"n": 3' in (d / SPEC_FILE).read_text() and sorted(os.listdir(tmp_path)) == ["model"]
