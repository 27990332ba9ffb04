"""Emit tells before it deletes (``--replace``), its JSON summary, ROCm target IDs and unity batches.

The commands run as a user runs them (``python -m cksolve``); the unity
batching and the target-ID parser are also checked as functions.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from cksolve.arch.target_id import TargetId, base_arch, parse_target_id
from cksolve.emit.manifest import MANIFEST
from cksolve.emit import emit_trees
from cksolve.emit.unity import batches
from cksolve.errors import CksolveError
from cksolve.query import select

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["--arch", "gfx942", "--dtype", "fp16", "--ndim", "2"]


def cli(*argv, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cksolve", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def _tree(d: Path, manifest: bool = True) -> dict[str, bytes]:
    """Every file's bytes (the manifest, which records mtimes, only when asked)."""
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file() and (manifest or p.name != MANIFEST)}


def _one_error(proc) -> str:
    assert proc.returncode == 2 and proc.stderr.startswith("cksolve: error: ") and proc.stderr.count("\n") == 1, \
        proc.stderr
    return proc.stderr


@pytest.fixture
def names_file(tmp_path) -> Path:
    names = cli("enumerate", "-r", "default", *SMALL, "--variant", "forward").stdout.split()[:2]
    assert len(names) == 2
    p = tmp_path / "my-kernels.txt"
    p.write_text("\n".join(names) + "\n")
    return p


def test_another_selection_is_refused_with_one_line_until_replace(tmp_path, names_file):
    out = tmp_path / "gen"
    assert cli("emit", "-r", "tiny", *SMALL, "--out", out).returncode == 0
    before = _tree(out)
    n_tiny = len([k for k in before if k.endswith(".cpp")])
    err = _one_error(cli("emit", "--names", names_file, "--arch", "gfx942", "--out", out))
    removed = 3 * len([k for k in before if k.endswith(".cpp") and Path(k).stem not in names_file.read_text()])
    assert f"refusing to remove {removed} files" in err and "(rule set tiny)" in err and "--replace" in err, err
    assert "e.g. " in err and str(out) in err
    assert _tree(out) == before, "a refused emit changed the tree"

    proc = cli("emit", "--names", names_file, "--arch", "gfx942", "--out", out, "--replace")
    assert proc.returncode == 0, proc.stderr
    assert {Path(k).stem for k in _tree(out) if k.endswith(".cpp")} == set(names_file.read_text().split())
    assert n_tiny > 2

    # the same selection again, with a narrower filter: its own kernels go silently, as before
    assert cli("emit", "-r", "tiny", *SMALL, "--out", tmp_path / "g2").returncode == 0
    proc = cli("emit", "-r", "tiny", *SMALL, "--variant", "forward", "--out", tmp_path / "g2")
    assert proc.returncode == 0 and "removed" in proc.stdout and not proc.stderr, proc.stderr


def test_flat_and_arch_trees_do_not_mix_silently(tmp_path):
    out = tmp_path / "gen"
    assert cli("emit", "-r", "tiny", *SMALL, "--out", out).returncode == 0
    flat = _tree(out)
    err = _one_error(cli("emit", "-r", "tiny", "--arch", "gfx942,gfx950", "--dtype", "fp16", "--ndim", "2",
                         "--out", out))
    assert "flat tree" in err and "--replace" in err and "e.g. " in err, err
    assert _tree(out) == flat and not (out / "gfx942").exists()

    proc = cli("emit", "-r", "tiny", "--arch", "gfx942,gfx950", "--dtype", "fp16", "--ndim", "2", "--out", out,
               "--replace")
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == ["gfx942", "gfx950"], "the flat tree was left beside the arch trees"

    err = _one_error(cli("emit", "-r", "tiny", *SMALL, "--out", out))  # and back: the arch trees are in the way
    assert "arch tree" in err and "--replace" in err, err
    assert cli("emit", "-r", "tiny", *SMALL, "--out", out, "--replace").returncode == 0
    assert _tree(out, manifest=False) == {k: v for k, v in flat.items() if k != MANIFEST}


def test_a_re_emit_of_the_same_selection_is_byte_identical_and_says_so_in_json(tmp_path):
    out = tmp_path / "gen"
    first = cli("emit", "-r", "tiny", *SMALL, "--out", out, "--format", "json")
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    (tree,) = doc["trees"]
    assert doc["selection"] == "rule set tiny" and tree["arch"] is None and tree["out_dir"] == str(out)
    assert tree["kernels"] == len(cli("enumerate", "-r", "tiny", *SMALL).stdout.split()) > 0
    assert tree["written"] == tree["files"] == len([p for p in _tree(out) if p != MANIFEST])
    assert doc["total"]["kernels"] == tree["kernels"]
    before = _tree(out)
    again = json.loads(cli("emit", "-r", "tiny", *SMALL, "--out", out, "-f", "json").stdout)
    assert again["trees"][0]["written"] == 0 and again["trees"][0]["unchanged"] == tree["files"]
    assert _tree(out, False) == {k: v for k, v in before.items() if k != MANIFEST}
    err = _one_error(cli("emit", "-r", "tiny", *SMALL, "--out", out, "-f", "yaml"))
    assert "'yaml'" in err


def test_target_ids_select_by_base_and_name_the_tree(tmp_path):
    out = tmp_path / "gen"
    proc = cli("emit", "-r", "tiny", "--arch", "gfx942:sramecc+:xnack-,gfx90a:xnack+", "--dtype", "fp16",
               "--ndim", "2", "--out", out, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    assert sorted(t["arch"] for t in json.loads(proc.stdout)["trees"]) == ["gfx90a:xnack+", "gfx942:sramecc+:xnack-"]
    plain = tmp_path / "plain"
    assert cli("emit", "-r", "tiny", *SMALL, "--out", plain).returncode == 0
    assert _tree(out / "gfx942:sramecc+:xnack-", False) == _tree(plain, False), "features changed the kernels"
    assert cli("count", "-r", "tiny", "--arch", "gfx90a:xnack+").stdout == cli("count", "-r", "tiny", "--arch",
                                                                                   "gfx90a").stdout
    err = _one_error(cli("count", "-r", "tiny", "--arch", "gfx942:xnack"))
    assert "gfx942:xnack" in err


def test_target_id_parser():
    assert parse_target_id("gfx942:sramecc+:xnack-") == TargetId("gfx942", ("sramecc+", "xnack-"))
    assert str(parse_target_id("gfx90a:xnack+")) == "gfx90a:xnack+" and base_arch("gfx1100") == "gfx1100"
    for bad, part in [("gfx942:xnack", "xnack"), ("gfx942:foo+", "foo+"), ("gfx942:xnack+:xnack-", "twice"),
                      ("sm_90", "sm_90"), ("gfx942:", "''"), ("", "''")]:
        with pytest.raises(CksolveError, match=part):
            parse_target_id(bad)
        with pytest.raises(ValueError):
            base_arch(bad)
    assert select(["gfx942:sramecc+:xnack-,gfx942"]).archs == ("gfx942",)
    with pytest.raises(CksolveError, match="unknown arch 'gfx943:xnack-'"):
        select(["gfx943:xnack-"])


def test_unity_batches_are_bounded_stable_and_local():
    rng = random.Random(7)
    names = [f"k{rng.getrandbits(64):016x}" for _ in range(2000)]
    for size in (1, 2, 8, 32):
        got = batches(names, size)
        assert sorted(n for _, m in got for n in m) == sorted(names) and all(1 <= len(m) <= size for _, m in got)
        assert got == batches(list(reversed(names)), size), "the order given changed the batches"
        assert len({f for f, _ in got}) == len(got)
    base = dict(batches(names, 16))
    touched = []
    for _ in range(100):
        new = dict(batches(names + [f"k{rng.getrandbits(64):016x}"], 16))
        touched.append(sum(1 for f, m in new.items() if base.get(f) != m))
    assert max(touched) <= 4 and sum(touched) / len(touched) < 1.5, sorted(touched)
    with pytest.raises(ValueError):
        batches(names, 0)


def test_unity_units_in_the_tree(tmp_path):
    out = tmp_path / "gen"
    proc = cli("emit", "-r", "tiny", *SMALL, "--out", out, "--unity-batch", "4", "-f", "json")
    assert proc.returncode == 0, proc.stderr
    names = cli("enumerate", "-r", "tiny", *SMALL).stdout.split()
    units = sorted((out / "unity").glob("unity_*.cpp"))
    assert json.loads(proc.stdout)["total"]["units"] == len(units) == len(batches(names, 4))
    included = [line.split('"')[1] for u in units for line in u.read_text().splitlines() if line.startswith("#include")]
    assert sorted(included) == sorted(f"../{n}.cpp" for n in names)
    proc = cli("emit", "-r", "tiny", *SMALL, "--out", out)  # without batching: the units go
    assert proc.returncode == 0 and not (out / "unity").exists() and not proc.stderr, proc.stderr
    assert "--unity-batch 0 must be at least 1" in _one_error(cli("emit", "-r", "tiny", *SMALL, "--out", out,
                                                                  "--unity-batch", "0"))
    for bad in (0, -3, True, 2.5, "4"):  # the library names the parameter, not the flag
        with pytest.raises(CksolveError, match=r"^unity_batch .* must be at least 1"):
            emit_trees([], out, archs=["gfx942"], unity_batch=bad)
