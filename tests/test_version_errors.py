"""Version errors point to the way out: an arch an ``--arch-specs`` file lacks names the file (not a near
spelling of another arch), an unknown ``--ck`` points at ``--arch-specs``, and ``--ck``/``--arch-specs`` may
come before the command's name."""

from __future__ import annotations

import json

import pytest

from test_cli import run

SPECS = {"architectures": {"gfx950": {"family": "cdna4", "warp_size": 64, "lds_capacity_kb": 160,
                                      "warp_configs": [[2, 2, 1]], "warp_tile_combos": {"fp16_fp16_fp32": [[32, 32, 8]]}}},
         "pipeline_lds_budget": {"default": {"basis": "fraction", "value": 1.0}}}


@pytest.fixture
def specs(tmp_path):
    f = tmp_path / "arch_specs.json"  # MADE UP: a checkout that knows gfx950 only
    f.write_text(json.dumps(SPECS))
    return f


@pytest.mark.parametrize("arch", ["gfx1250", "gfx942", "gfx942:xnack-"])
def test_an_arch_the_file_lacks_names_the_file(capsys, specs, arch):
    code, _, err = run(capsys, "count", "-r", "tiny", "--arch", arch, "--arch-specs", str(specs))
    base = arch.split(":")[0]
    assert code == 2 and err == (f"cksolve: error: arch {base!r} is not in CK arch_specs.json at {specs}, which lists "
                                 "gfx950: drop --arch-specs (the bundled CK versions know it) or give a file that "
                                 "lists it\n")
    assert "did you mean" not in err


def test_an_unknown_arch_is_still_a_spelling_error(capsys, specs):
    code, _, err = run(capsys, "count", "-r", "tiny", "--arch", "gfx951", "--arch-specs", str(specs))
    assert code == 2 and "unknown arch 'gfx951'" in err and "did you mean 'gfx950'?" in err


def test_an_unknown_version_points_at_arch_specs(capsys):
    code, _, err = run(capsys, "count", "-r", "tiny", "--ck", "54f25023")
    assert code == 2 and err.startswith("cksolve: error: unknown CK version '54f25023'; bundled: ")
    assert err.endswith("; for another CK checkout give its dispatcher/codegen/arch_specs.json with --arch-specs "
                        "FILE\n")


@pytest.mark.parametrize("before", [["--ck", "60b27664"], ["--ck=60b27664"], ["--strict", "--ck", "60b27664"]])
def test_ck_before_the_command(capsys, before):
    code, out, err = run(capsys, *before, "count", "-r", "default", "--arch", "gfx950")
    assert code == 0, err
    code, want, _ = run(capsys, "count", "-r", "default", "--arch", "gfx950", "--ck", "60b27664")
    assert out == want
    code, newest, _ = run(capsys, *before, "count", "-r", "default", "--arch", "gfx950", "--ck", "develop")
    assert newest != want  # the one after the name wins


def test_arch_specs_before_the_command(capsys, specs):
    code, _, err = run(capsys, "--arch-specs", str(specs), "count", "-r", "tiny", "--arch", "gfx942")
    assert code == 2 and f"is not in CK arch_specs.json at {specs}" in err


def test_ck_before_a_command_without_it_is_refused(capsys):
    code, _, err = run(capsys, "--ck", "develop", "cmake-dir")
    assert code == 2 and err.count("\n") == 1 and "--ck" in err
