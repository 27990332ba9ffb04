"""Emission: CK-equal facts, skip-unchanged, atomic failure, file names, determinism.

Golden facts: for every set in shared/ck/instance-facts/ the set's names are
emitted (parsed back into configs, for the set's arch) and checked with
``shared/tools/instance_facts.py --against``, every file of every set (about
five minutes: the tool extracts facts at ~0.1 s per file). For quick local
runs ``CKSOLVE_FACTS_SAMPLE=1`` checks a covering sample instead: one kernel
for every distinct launch shape and every dtype, ndim, pipeline, scheduler,
specialization and feature suffix present in the set, plus the four
per-directory headers (which list the whole set).
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cksolve.emit import EmitError, emit, names_to_configs
from cksolve.emit import files, render, writer
from cksolve.space.config import DepthwiseConfig, KernelConfig

from conftest import CK, SHARED

FACTS_DIR = CK / "instance-facts"
TOOL = SHARED / "tools" / "instance_facts.py"
FULL = os.environ.get("CKSOLVE_FACTS_SAMPLE", "") in ("", "0")

SETS = sorted(p.name for p in FACTS_DIR.iterdir() if (p / "names.txt").is_file()) if FACTS_DIR.is_dir() else []
needs_shared = pytest.mark.skipif(not FACTS_DIR.is_dir() or not TOOL.is_file(),
                                  reason=f"CK reference data not found at {FACTS_DIR} (shared/ beside the repo)")


def _load_set(name: str):
    base = FACTS_DIR / name
    arch = json.loads((base / "meta.json").read_text())["arch"]
    configs = names_to_configs((base / "names.txt").read_text().splitlines(), str(base / "names.txt"))
    return arch, configs


def _features(c) -> set:
    """Everything a kernel exercises in the templates; a sample covers each once."""
    if isinstance(c, DepthwiseConfig):
        return {("kind", "depthwise"), ("dtype", c.dtype), ("dw_filt", c.filt), ("dw_stride", c.str_h)}
    ctx = render.gemm_context(c, "gfx942")
    feats = {("shape", c.variant, ctx["path"], ctx["tail"], ctx["zeroing"], tuple(ctx["extra_includes"]))}
    feats |= {(k, getattr(c, k)) for k in (
        "variant", "dtype", "ndim", "pipeline", "scheduler", "epilogue", "specialization", "double_smem_buffer",
        "split_image", "explicit_gemm", "two_stage", "streamk", "streamk_strategy", "streamk_persistent",
        "groups_to_merge", "wave_groups", "layout")}
    feats.add(("pad", c.pad_m, c.pad_n, c.pad_k))
    return feats


def _sample(configs) -> list:
    seen, out = set(), []
    for c in sorted(configs, key=lambda c: c.name()):
        f = _features(c)
        if not f <= seen:
            seen |= f
            out.append(c)
    return out


@pytest.mark.slow
@needs_shared
@pytest.mark.parametrize("set_name", SETS)
def test_facts_equal_ck(set_name, tmp_path):
    arch, configs = _load_set(set_name)
    out = tmp_path / "generated"
    summary = emit([(arch, c) for c in configs], out, jobs=2, progress=False)
    assert summary.kernels == len(configs) and summary.written == 3 * len(configs) + 4

    facts_file = FACTS_DIR / set_name / "facts.json.gz"
    if not FULL:
        with gzip.open(facts_file, "rt", encoding="utf-8") as fh:
            expected = json.load(fh)
        keep = set(render.global_paths())
        for c in _sample(configs):
            keep.update(render.kernel_paths(c.name()))
        missing = keep - set(expected)
        assert not missing, f"sampled files not in the recorded facts: {sorted(missing)[:3]}"
        facts_file = tmp_path / "facts-sample.json.gz"
        with gzip.open(facts_file, "wt", encoding="utf-8") as fh:
            json.dump({k: v for k, v in expected.items() if k in keep}, fh)

    proc = subprocess.run([sys.executable, str(TOOL), "--against", str(facts_file), str(out)],
                          capture_output=True, text=True, timeout=3600)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "EQUAL" in report.splitlines()[-1], report[-20000:]


@needs_shared
def test_sample_covers_every_launch_shape():
    arch, configs = _load_set("tiny-gfx942") if "tiny-gfx942" in SETS else _load_set(SETS[0])
    shapes = {f for c in configs for f in _features(c) if f[0] in ("shape", "kind")}
    sampled = {f for c in _sample(configs) for f in _features(c) if f[0] in ("shape", "kind")}
    assert shapes == sampled


# ------------------------------------------------------------------ helpers
def _cfg(**kw) -> KernelConfig:
    base = dict(variant="forward", dtype="fp16", ndim=2, tile_m=128, tile_n=128, tile_k=64,
                wave_m=2, wave_n=2, wave_k=1, warp_tile_m=32, warp_tile_n=32, warp_tile_k=16,
                pipeline="compv3", epilogue="cshuffle", scheduler="intrawave")
    base.update(kw)
    return KernelConfig(**base)


def _small_set():
    """A handful of kernels over every launch path (CK-valid or not: emission does not judge)."""
    return [("gfx942", c) for c in [
        _cfg(),
        _cfg(pipeline="compv1", variant="bwd_data"),
        _cfg(pipeline="mem", variant="bwd_weight", two_stage=True, vector_a=1, vector_b=1, vector_c=1),
        _cfg(pipeline="mem", variant="bwd_weight", streamk=True, streamk_strategy="linear", streamk_persistent=True),
        _cfg(pipeline="wavelet", ndim=3, layout="ndhwgc"),
        DepthwiseConfig(dtype="bf16", ndim=2, tile_h=32, tile_w=32, filt=3, str_h=1, str_w=1, pad_h=1, pad_w=1,
                        nbatch=1, sub_h=4, sub_w=4, in_vec=8, out_vec=8),
    ]]


def _snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(root.rglob("*")) if p.is_file()}


# -------------------------------------------------------------- behaviour
def test_files_of_an_emit(tmp_path):
    items = _small_set()
    s = emit(items, tmp_path / "out", jobs=1, progress=False)
    names = [c.name() for _, c in items]
    files = {str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*")
             if p.is_file() and not p.name.startswith(".")}
    expected = {p for n in names for p in render.kernel_paths(n)} | set(render.global_paths())
    assert files == expected
    assert (s.kernels, s.written, s.unchanged) == (len(items), len(expected), 0)
    assert s.bytes == sum((tmp_path / "out" / f).stat().st_size for f in expected)
    assert "kernels" in s.line() and "written" in s.line()
    reg = (tmp_path / "out" / render.REGISTER_HEADER).read_text()
    assert "get_grouped_conv_kernel_count() { return 6; }" in reg


def test_second_emit_writes_nothing(tmp_path):
    items = _small_set()
    out = tmp_path / "out"
    emit(items, out, jobs=1, progress=False)
    before = _snapshot(out)
    s = emit(items, out, jobs=1, progress=False)
    assert s.written == 0 and s.unchanged == 3 * len(items) + 4
    assert _snapshot(out) == before  # same bytes, same mtimes (manifest included)


def test_unchanged_without_manifest_and_after_touch(tmp_path):
    items = _small_set()
    out = tmp_path / "out"
    emit(items, out, jobs=1, progress=False)
    (out / writer.MANIFEST).unlink()
    hpp = out / render.kernel_paths(items[0][1].name())[0]
    os.utime(hpp, ns=(1, 1))
    before = _snapshot(out)
    s = emit(items, out, jobs=1, progress=False)
    assert s.written == 0
    after = _snapshot(out)
    assert {k: v for k, v in after.items() if not k.startswith(".")} == before


def test_changed_file_is_restored(tmp_path):
    items = _small_set()
    out = tmp_path / "out"
    emit(items, out, jobs=1, progress=False)
    cpp = out / render.kernel_paths(items[1][1].name())[1]
    good = cpp.read_bytes()
    cpp.write_bytes(good + b"// edited\n")
    s = emit(items, out, jobs=1, progress=False)
    assert s.written == 1 and cpp.read_bytes() == good


def test_parallel_emit_is_deterministic(tmp_path):
    arch, configs = ("gfx942", [c for _, c in _small_set()])
    many = [(arch, c.replace(tile_k=k)) if isinstance(c, KernelConfig) else (arch, c)
            for c in configs for k in (16, 32, 64, 128)]
    many = list(dict.fromkeys(many))
    assert len(many) >= 21
    big = [(arch, _cfg(tile_m=m, tile_n=n, tile_k=k)) for m in (16, 32, 64, 128) for n in (16, 64, 256)
           for k in (16, 32, 64, 128)]
    emit(many + big, tmp_path / "a", jobs=1, progress=False)
    emit(list(reversed(many + big)), tmp_path / "b", jobs=2, progress=False)
    a, b = _snapshot(tmp_path / "a"), _snapshot(tmp_path / "b")
    strip = lambda snap: {k: v[1] for k, v in snap.items() if not k.startswith(".")}
    assert strip(a) == strip(b)


def test_skeleton_rendering_equals_direct_jinja():
    for arch, c in _small_set():
        assert render.render_kernel(arch, c) == render.render_kernel(arch, c, direct=True)


def test_unwritable_output_directory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(EmitError, match="cannot write"):
        emit(_small_set(), blocker / "out", jobs=1, progress=False)
    with pytest.raises(EmitError, match="not a directory"):
        emit(_small_set(), blocker, jobs=1, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_full_disk_leaves_nothing_behind(tmp_path, monkeypatch, jobs):
    real = files.write_new
    calls = {"n": 0}

    def flaky(path, data, dir_fd=None):
        calls["n"] += 1
        if calls["n"] > 7:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return real(path, data, dir_fd)

    items = [("gfx942", _cfg(tile_m=m, tile_n=n, tile_k=k)) for m in (16, 32, 64, 128)
             for n in (16, 64, 128, 256) for k in (16, 32, 64, 128)]  # 64 kernels: the pool path
    # a new directory: nothing at all may appear
    monkeypatch.setattr(files, "write_new", flaky)
    with pytest.raises(EmitError, match="No space left on device"):
        emit(items, tmp_path / "new", jobs=jobs, progress=False)
    assert list(tmp_path.iterdir()) == []

    # an existing emit: old files intact, no temporaries left
    monkeypatch.setattr(files, "write_new", real)
    out = tmp_path / "old"
    emit(_small_set(), out, jobs=1, progress=False)
    before = _snapshot(out)
    calls["n"] = 0
    monkeypatch.setattr(files, "write_new", flaky)
    with pytest.raises(EmitError, match="No space left on device"):
        emit(_small_set() + items, out, jobs=jobs, progress=False)
    assert _snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["old"]


def test_bad_file_names_refused(tmp_path):
    evil = _cfg(layout="../../etc")
    with pytest.raises(EmitError, match="not a plain file name"):
        emit([("gfx942", _cfg()), ("gfx942", evil)], tmp_path / "out", jobs=1, progress=False)
    with pytest.raises(EmitError, match="refusing arch"):
        emit([('gfx942"; int x; "', _cfg())], tmp_path / "out", jobs=1, progress=False)
    with pytest.raises(EmitError, match="twice"):
        emit([("gfx942", _cfg()), ("gfx950", _cfg())], tmp_path / "out", jobs=1, progress=False)
    assert not (tmp_path / "out").exists()
    for bad in ("", ".hidden", "a/b", "a\\x00b", "x" * 300):
        with pytest.raises(EmitError):
            writer.check_file_name(bad)


def test_names_to_configs_reports_the_first_bad_line():
    good = _cfg().name()
    assert [c.name() for c in names_to_configs([good, "", "# comment", f"  {good}  "])] == [good, good]
    with pytest.raises(EmitError, match=r"names.txt:3: not a kernel name: 'garbage'"):
        names_to_configs([good, "", "garbage", "more garbage"], "names.txt")
    explicit = good + "_vec4_8_8"  # CK never spells the default vector sizes out
    with pytest.raises(EmitError, match="not CK's spelling"):
        names_to_configs([explicit])


def test_duplicates_are_emitted_once(tmp_path):
    items = _small_set()
    s = emit(items + items, tmp_path / "out", jobs=1, progress=False)
    assert s.kernels == len(items)


def test_the_list_watches_every_file_a_rule_set_file_reads(capsys, tmp_path):
    """CKSOLVE_DEPENDS names the rule-set file and what it extends (another file, a names file): a change to
    any of them must re-run the configure, not only a change to the file named on the command line."""
    from test_cli import GOOD, run as run_cli

    (tmp_path / "one.txt").write_text(f"{GOOD}\n")
    (tmp_path / "inner.toml").write_text('extends = "default"\n')
    (tmp_path / "outer.toml").write_text('extends = ["inner.toml", "one.txt"]\n')
    listing = tmp_path / "list.cmake"
    code, _, err = run_cli(capsys, "emit", "-r", str(tmp_path / "outer.toml"), "-a", "gfx942", "--out",
                           str(tmp_path / "gen"), "--cmake-list", str(listing))
    assert code == 0, err
    text = listing.read_text()
    depends = text[text.index("set(CKSOLVE_DEPENDS"):]
    depends = depends[:depends.index(")")]
    for name in ("outer.toml", "inner.toml", "one.txt"):
        assert str((tmp_path / name).resolve()) in depends, (name, depends)
