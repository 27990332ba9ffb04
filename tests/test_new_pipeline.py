"""A new CK pipeline is one table in ``pipelines.toml``.

The test copies the package, appends a made-up pipeline (``compv9``) to the
copy's ``pipelines.toml`` -- no other file changes -- and runs the copy's
``cksolve`` on it: the pipeline must reach the axis domain and names
(``enumerate``), the arch rules and their messages (``explain``, ``check``), the
constraint reference and the emitted C++. The unmodified package must not know
the name at all, so every assertion below can fail.
"""

from __future__ import annotations

import pytest

from cksolve.rulesets.listed import rule_set_file
from cksolve.space.naming import parse_name

from package_copy import ROOT, copy_with, run as cksolve


NEW_PIPELINE = """
[compv9]
ck_enum = "COMPUTE_V9"
pipeline_class = "GemmPipelineAgBgCrCompV9"
base_class = "BaseGemmPipelineAgBgCrCompV9"
tail = "std"
lds_buffering = "double"
lds_capacity = 32768
intrawave_only = true
key = "CompV9"
"""
#: a valid compv3 kernel of default on gfx942, to which the new pipeline is given
BASE = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"
GOOD = BASE.replace("compv3", "compv9")                                     # valid: 32 KiB of LDS
INTERWAVE = GOOD.replace("intrawave", "interwave")                          # compv9 is intrawave-only
TOO_BIG = GOOD.replace("128x128x64", "256x128x64")                          # 48 KiB > compv9's 32 KiB


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """A copy of the package whose pipeline table has one more entry."""
    return copy_with(tmp_path_factory.mktemp("pkg"), "space/pipelines.toml", NEW_PIPELINE)



def _configs(*names):
    base = parse_name(BASE)
    out = []
    for name in names:  # built field by field: this package does not know compv9
        changes = {"pipeline": "compv9"}
        if "interwave" in name:
            changes["scheduler"] = "interwave"
        if "256x128x64" in name:
            changes["tile_m"] = 256
        out.append(base.replace(**changes))
    return out


def test_the_unmodified_package_does_not_know_it():
    proc = cksolve(ROOT, "explain", GOOD, "--arch", "gfx942")
    assert proc.returncode == 2 and "not a grouped-conv kernel name" in proc.stderr


def test_enumerate_lists_it_and_applies_its_arch_rules(package, tmp_path):
    configs = _configs(GOOD, INTERWAVE, TOO_BIG)
    assert [c.name() for c in configs] == [GOOD, INTERWAVE, TOO_BIG]
    rs = tmp_path / "compv9.toml"
    rs.write_text(rule_set_file(configs, "three compv9 kernels"), encoding="utf-8")
    proc = cksolve(package, "enumerate", "--rule-set", str(rs), "--arch", "gfx942", "--variant", "forward",
                   "--dtype", "fp16", "--ndim", "2", "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    assert [line.split('"name": "')[1].split('"')[0] for line in proc.stdout.splitlines()] == [GOOD], proc.stdout
    assert '"block_per_cu": 1' in proc.stdout  # lds_buffering = "double"


@pytest.mark.slow
def test_explain_and_check_give_its_rules_in_words(package, tmp_path):
    proc = cksolve(package, "explain", GOOD, "--arch", "gfx942", "--nearest", "0")
    assert proc.returncode == 0 and f"{GOOD} is valid for gfx942" in proc.stdout, proc.stdout + proc.stderr
    proc = cksolve(package, "explain", INTERWAVE, "--arch", "gfx942", "--nearest", "0")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "pipeline compv9 with epilogue cshuffle supports only the intrawave scheduler" in proc.stdout
    assert "[arch.trait_combo]" in proc.stdout
    names = tmp_path / "names.txt"
    names.write_text(f"{GOOD}\n{TOO_BIG}\n", encoding="utf-8")
    proc = cksolve(package, "check", str(names), "--arch", "gfx942")
    assert proc.returncode == 1
    assert f"{GOOD}: valid" in proc.stdout
    assert "LDS capacity exceeded: 49152 bytes > 32768 bytes limit" in proc.stdout, proc.stdout


def test_the_constraint_reference_lists_it(package):
    proc = cksolve(package, module="cksolve.docs")
    assert proc.returncode == 0, proc.stderr
    assert "| `compv9` | COMPUTE_V9 | double | 32768 | 1 |" in proc.stdout
    assert "compv6, comp_async, basic_async_v1, compv9." in proc.stdout  # arch.trait_combo's doc
    assert "basic_async_v1, wavelet, compv9 |" in proc.stdout  # the pipeline axis domain


@pytest.mark.slow
def test_emit_writes_its_cpp(package, tmp_path):
    names = tmp_path / "names.txt"
    names.write_text(f"{GOOD}\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = cksolve(package, "emit", "--names", str(names), "--arch", "gfx942", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    header = (out / f"{GOOD}.hpp").read_text(encoding="utf-8")
    assert "GemmPipelineAgBgCrCompV9<UniversalGemmProblem>" in header
    assert "BaseGemmPipelineAgBgCrCompV9" in header and "COMPUTE_V9" in header
    assert "kBlockPerCu            = 1;" in header
    wrapper = (out / "dispatcher_wrappers" / f"dispatcher_wrapper_{GOOD}.hpp").read_text(encoding="utf-8")
    assert "CompV9" in wrapper
