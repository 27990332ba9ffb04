"""A new gfx target is one table in ``arch/facts.toml``.

The test copies the package, appends a made-up arch (``gfx9z1``: gfx950's tiles and wave
splits, its own hardware profile, stream-K backward weight and async copy) to the copy's
``facts.toml`` and its default device (its CU count) to ``devices.toml`` -- no other file
changes -- and runs the copy's ``cksolve`` on it: the arch
must reach ``archs``, ``enumerate``, ``check``, the run-time checks and their messages
(``applicable``, ``explain --problem``, ``coverage``), ``minimize`` (its CU count), ``features``
(its hardware profile), the constraint reference and ``emit``. The unmodified package must not
know the name at all, so every assertion below can fail.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from package_copy import ROOT, copy_with, run as cksolve

ARCH = "gfx9z1"

NEW_ARCH = f"""
[{ARCH}]
streamk_bwd_weight = true
async_copy = true
family = "cdna9"
warp_size = 64
wave_splits = [[1, 1, 1], [1, 2, 1], [1, 4, 1], [2, 1, 1], [2, 1, 2], [2, 2, 1], [4, 1, 1], [8, 2, 1], [4, 4, 1]]

[{ARCH}.warp_tiles]
fp32_fp32_fp32 = [[16, 16, 4], [16, 16, 8], [16, 16, 16], [32, 32, 4], [32, 32, 8]]
fp16_fp16_fp32 = [[32, 32, 8], [16, 16, 16], [32, 32, 16], [16, 16, 32], [4, 64, 16], [64, 4, 16]]
bf16_bf16_fp32 = [[32, 32, 8], [16, 16, 16], [32, 32, 16], [16, 16, 32], [4, 64, 16], [64, 4, 16]]

[{ARCH}.hw_profile]
num_cus = 321
simds_per_cu = 4
shader_engines = 33
max_clock_mhz = 2777
max_waves_per_cu = 32
lds_capacity = 163840
l1_cache_kb = 32
l2_cache_kb = 4096
l3_cache_kb = 262144
num_xcd = 8
"""
#: its (made-up) default device, in devices.toml
NEW_DEVICE = f"""
[device.MI9Z]
arch = "{ARCH}"
cus = 321
clock_mhz = 2777
matrix = {{ fp16 = 4096, bf16 = 4096, fp32 = 256 }}
hbm_tbps = 8.0
lds_kb = 160
simds = 4
waves_per_simd = 8
vgprs = 512
max_vgprs = 512
source = "made up"
"""
#: forward problems: a 1x1 and a 3x3 convolution
PROBLEMS = "N,G,C,K,Hi,Wi,Y,X,pad_h,pad_w\n4,1,256,256,28,28,1,1,0,0\n8,1,64,64,28,28,3,3,1,1\n"
#: an async pipeline kernel (comp_async): it runs only where async_copy is set
ASYNC = "grouped_conv_fwd_fp16_nhwgc_2d_comp_async_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """A copy of the package whose arch facts have one more table."""
    root = copy_with(tmp_path_factory.mktemp("pkg"), "arch/facts.toml", NEW_ARCH)
    devices = root / "cksolve" / "arch" / "devices.toml"  # its part: what minimize's score reads
    text = devices.read_text(encoding="utf-8").replace("[defaults]\n", f"[defaults]\n{ARCH} = \"MI9Z\"\n", 1)
    devices.write_text(text + NEW_DEVICE, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    path = tmp_path_factory.mktemp("problems") / "problems.csv"
    path.write_text(PROBLEMS, encoding="utf-8")
    return str(path)



def test_the_unmodified_package_does_not_know_it():
    proc = cksolve(ROOT, "count", "--rule-set", "default", "--arch", ARCH)
    assert proc.returncode == 2 and ARCH in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_archs_and_enumerate_list_it(package):
    proc = cksolve(package, "archs", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert ARCH in [a["arch"] for a in json.loads(proc.stdout)["archs"]], proc.stdout
    args = ("--rule-set", "default", "--variant", "forward", "--dtype", "fp16", "--ndim", "2")
    new = cksolve(package, "enumerate", *args, "--arch", ARCH)
    old = cksolve(package, "enumerate", *args, "--arch", "gfx950")
    assert new.returncode == 0 and old.returncode == 0, new.stderr + old.stderr
    # gfx950's tiles and wave splits: the same kernels
    assert new.stdout and new.stdout == old.stdout


def test_check_judges_names_by_its_tiles(package, tmp_path):
    names = tmp_path / "names.txt"
    wave = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_256x128x64_8x2x1_16x16x32"  # 8x2x1: gfx950's only
    names.write_text(f"{wave}\n", encoding="utf-8")
    assert cksolve(package, "check", str(names), "--arch", ARCH).returncode == 0
    proc = cksolve(package, "check", str(names), "--arch", "gfx942")
    assert proc.returncode == 1 and "arch.wave_split" in proc.stdout, proc.stdout


@pytest.mark.slow
def test_its_run_time_flags_reach_the_checks_and_their_messages(package):
    problem = "N=4,G=1,C=256,K=256,Hi=28,Wi=28,Y=1,X=1"
    proc = cksolve(package, "explain", ASYNC, "--arch", ARCH, "--problem", problem, "--nearest", "0")
    assert "asynchronous" not in proc.stdout, proc.stdout
    proc = cksolve(package, "explain", ASYNC, "--arch", "gfx942", "--problem", problem, "--nearest", "0")
    assert proc.returncode == 1
    assert f"is asynchronous and runs only on gfx950 and {ARCH}, not gfx942" in proc.stdout, proc.stdout
    # gfx950's facts and flags: the same kernels run the problem
    new, old = (cksolve(package, "applicable", "--problem", problem, "--rule-set", "full", "--arch", arch,
                        "--dtype", "fp16") for arch in (ARCH, "gfx950"))
    assert new.returncode == 0 and new.stdout.strip() and new.stdout == old.stdout, new.stderr
    docs = cksolve(package, module="cksolve.docs")
    assert docs.returncode == 0, docs.stderr
    assert f"stream-K needs gfx90a, gfx942, gfx950 or {ARCH} and k_batch = 1." in docs.stdout
    assert f"| {ARCH} | cdna9 | 64 |" in docs.stdout and "Architectures: gfx908," in docs.stdout


def test_coverage_covers_its_problems(package, problems):
    proc = cksolve(package, "coverage", "--problems", problems, "--rule-set", "tiny", "--arch", ARCH,
                   "--dtype", "fp16", "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(records) == 2 and all(r["applicable"] > 0 for r in records), proc.stdout


@pytest.mark.slow
def test_minimize_scores_with_its_cu_count(package, problems):
    proc = cksolve(package, "minimize", "--problems", problems, "--rule-set", "tiny", "--arch", ARCH,
                   "--dtype", "fp16")
    assert proc.returncode == 0 and proc.stdout.strip(), proc.stderr
    # every bundled arch has a device now (gfx1250 a documented stand-in, devices.toml): it scores with its count
    proc = cksolve(package, "minimize", "--problems", problems, "--rule-set", "tiny", "--arch", "gfx1250",
                   "--dtype", "fp16")
    assert proc.returncode == 0 and proc.stdout.strip(), proc.stderr


@pytest.mark.slow
def test_features_carry_its_hardware_profile(package, problems):
    proc = cksolve(package, "features", "--rule-set", "tiny", "--arch", ARCH, "--variant", "forward",
                   "--dtype", "bf16", "--problems", problems)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert rows, proc.stdout
    assert {(r["hw_num_cus"], r["hw_shader_engines"], r["hw_max_clock_mhz"]) for r in rows} == {("321", "33", "2777")}


@pytest.mark.slow
def test_emit_writes_its_kernels(package, tmp_path):
    out = tmp_path / "out"
    proc = cksolve(package, "emit", "--rule-set", "tiny", "--arch", ARCH, "--variant", "forward", "--dtype", "fp16",
                   "--ndim", "2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    headers = sorted(out.glob("grouped_conv_*.hpp"))
    assert headers, list(out.iterdir())
    assert re.search(rf"\b{ARCH}\b", headers[0].read_text(encoding="utf-8")) or any(
        ARCH in p.read_text(encoding="utf-8") for p in out.rglob("*.hpp"))
