"""How archs are spelled on the command line and in facts files.

``--arch`` takes lists the way CK writes them (``GPU_TARGETS="gfx942;gfx950"``, blank-separated) and product
names (``MI300X``, from ``arch/devices.toml``) where they name one arch; an ``--arch-specs`` file may only
introduce arch names spelled like CK's (they become directory names and ``# arch:`` lines); every arch has a
device, so the performance model ranks on all of them.
"""

from __future__ import annotations

import json

import pytest

from cksolve.errors import CksolveError


def _run(capsys, *argv):
    from cksolve.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    return (exc.value.code or 0), out.out, out.err


# --- arch names from --arch-specs --------------------------------------------------------------------


def _specs(tmp_path, name: str) -> str:
    path = tmp_path / "arch_specs.json"
    path.write_text(json.dumps({
        "architectures": {name: {"family": "cdna3", "warp_size": 64, "lds_capacity_kb": 64, "warp_configs": [[2, 2, 1]],
                                 "warp_tile_combos": {"fp16_fp16_fp32": [[32, 32, 16]]}}},
        "pipeline_lds_budget": {"default": {"basis": "fraction", "value": 1.0}}}))
    return str(path)


HOSTILE = ["../../x", "gfx942\n# arch: gfx950", "gfx942/../../etc", "", " gfx942", "GFX942", "gfx12345678901",
           "gfx942:xnack", "gfx942:bogus+"]


@pytest.mark.parametrize("name", HOSTILE)
def test_emit_and_enumerate_refuse_an_arch_name_unlike_cks(tmp_path, capsys, name):
    """``emit`` crashed (a ValueError traceback) on an arch named ``../../x``; ``enumerate`` wrote a forged
    ``# arch: gfx950`` line from a name holding a newline. Now: one line naming the file, exit 2, no output."""
    specs = _specs(tmp_path, name)
    for argv in (["emit", "-r", "tiny", "-o", str(tmp_path / "out")], ["enumerate", "-r", "tiny"]):
        code, out, err = _run(capsys, *argv, "--arch-specs", specs)
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, code, out, err)
        assert specs in err and "is not an arch name" in err, err
        assert not (tmp_path / "out").exists()


def test_names_like_cks_are_accepted(tmp_path, capsys):
    for name in ("gfx9999", "gfx90a", "gfx942:xnack-"):
        code, out, err = _run(capsys, "count", "-r", "tiny", "--arch-specs", _specs(tmp_path, name), "--by", "arch")
        assert code == 0 and name in out, (name, err)


def test_a_bundled_delta_is_held_to_the_same_names():
    from cksolve.arch.versions import apply_delta

    new = {"family": "cdna9", "warp_size": 64, "warp_configs": [[2, 2, 1]], "warp_tile_combos": {}}
    with pytest.raises(CksolveError, match=r"ck_x\.toml: \[architectures\] '\.\./x' is not an arch name"):
        apply_delta({}, {"../x": new}, "ck_x.toml")


# --- --arch lists as CK writes them, product names --------------------------------------------------------


@pytest.mark.parametrize("spelling", ["gfx942;gfx950", "gfx942 gfx950", " gfx942 ; gfx950 ", "gfx942,gfx950",
                                      "gfx950;gfx942", "MI300X;MI355X"])
def test_arch_lists_in_cks_spellings(capsys, spelling):
    """CK's GPU_TARGETS form and a blank-separated list were refused ("did you mean 'gfx950'?")."""
    code, out, err = _run(capsys, "count", "-r", "tiny", "--arch", spelling, "--by", "arch")
    assert code == 0, err
    rows = [line.split()[0] for line in out.splitlines()[1:-1]]
    assert rows == ["gfx942", "gfx950"], out


@pytest.mark.parametrize("spelling, says", [("gfx942;", "empty --arch in 'gfx942;'"),
                                            ("gfx942;;gfx950", "empty --arch"),
                                            ("gfx942;gfx9x", "unknown arch 'gfx9x'")])
def test_a_broken_list_is_one_line(capsys, spelling, says):
    code, out, err = _run(capsys, "count", "-r", "tiny", "--arch", spelling)
    assert code == 2 and out == "" and err.count("\n") == 1 and says in err, err


def test_one_arch_commands_refuse_a_list_in_the_users_words(capsys):
    code, out, err = _run(capsys, "applicable", "-r", "tiny", "-a", "gfx942;gfx950", "-p", "C=64,K=64")
    assert code == 2 and "--arch takes one architecture here, got 'gfx942;gfx950'" in err, err


@pytest.mark.parametrize("product, arch", [("MI300X", "gfx942"), ("mi300x", "gfx942"), ("MI30", "gfx942"),
                                           ("MI355X", "gfx950"), ("MI2", "gfx90a"), ("RX7900XTX", "gfx1100")])
def test_a_product_name_selects_its_arch(capsys, product, arch):
    """``--arch MI300X`` was refused though devices.toml knows it is gfx942 (a prefix that names the parts of
    one arch only counts too: MI30 is MI300X and MI300A, both gfx942)."""
    want = _run(capsys, "count", "-r", "tiny", "--arch", arch)
    got = _run(capsys, "count", "-r", "tiny", "--arch", product)
    assert got == want and want[0] == 0, (got, want)


def test_one_arch_options_take_a_product_name_too(capsys):
    want = _run(capsys, "applicable", "-r", "tiny", "-a", "gfx942", "-p", "C=64,K=64", "--dtype", "fp16")
    got = _run(capsys, "applicable", "-r", "tiny", "-a", "MI300X", "-p", "C=64,K=64", "--dtype", "fp16")
    assert got == want and want[0] == 0 and want[1], got


@pytest.mark.parametrize("product, candidates", [("MI3", "gfx942: MI300X, MI300A, MI325X; gfx950: MI355X, MI350X"),
                                                 ("RX90", "gfx1201: RX9070XT; gfx1200: RX9060XT")])
def test_an_ambiguous_product_name_is_refused_naming_the_candidates(capsys, product, candidates):
    code, out, err = _run(capsys, "count", "-r", "tiny", "--arch", product)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"ambiguous --arch '{product}'" in err and candidates in err, err


def test_the_product_note_is_for_a_terminal_only(capsys, monkeypatch):
    """A product name is said on stderr when a person reads stdout; a program reading stdout gets nothing extra."""
    code, out, err = _run(capsys, "count", "-r", "tiny", "--arch", "MI300X")
    assert code == 0 and err == "", err
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    code, out, err = _run(capsys, "count", "-r", "tiny", "--arch", "MI300X")
    assert code == 0 and err == "cksolve: note: --arch MI300X is gfx942\n", err


def test_the_library_reads_the_same_spellings():
    from cksolve import query

    assert query.select(archs=["gfx950;MI300X"]).archs == ("gfx942", "gfx950")
    assert query.arch_spellings(["MI300X gfx950:xnack-"]) == (["gfx942", "gfx950:xnack-"], [("MI300X", "gfx942")])
    with pytest.raises(CksolveError, match="ambiguous"):
        query.select(archs=["MI3"])


def test_a_stand_in_is_not_a_product_name():
    from cksolve.arch.devices import product_arch

    assert product_arch("gfx1250-standin") is None and product_arch("standin") is None


# --- a device for every arch ----------------------------------------------------------------------------


def test_every_arch_has_a_default_device_and_stand_ins_say_so():
    """gfx1250 could not be ranked: it had no device. It has a stand-in now, marked as one."""
    from cksolve.arch.devices import DEFAULT_DEVICE, device
    from cksolve.arch.facts import BUNDLED_ARCHS

    assert set(BUNDLED_ARCHS) <= set(DEFAULT_DEVICE), set(BUNDLED_ARCHS) - set(DEFAULT_DEVICE)
    for arch in BUNDLED_ARCHS:
        d = device(arch)
        assert d.arch == arch
        assert not d.stand_in or "stand-in" in d.source, (d.name, d.source)
    assert device("gfx1250").stand_in and not device("gfx942").stand_in


@pytest.mark.parametrize("command", ["search", "select"])
def test_gfx1250_is_ranked(capsys, command):
    argv = [command, "-p", "N=8,C=64,K=64,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1", "-a", "gfx1250", "--dtype", "fp16",
            "-r", "tiny"]
    code, out, err = _run(capsys, *argv, "--top", "2")
    assert code == 0 and "grouped_conv_fwd_fp16" in out, (out, err)


def test_a_device_of_another_arch_names_the_archs_devices(capsys):
    """``--device MI355X`` on gfx1250 is refused with the devices gfx1250 has (it named none)."""
    code, out, err = _run(capsys, "search", "-p", "N=8,C=64,K=64,Hi=28,Wi=28", "-a", "gfx1250", "--dtype", "fp16",
                          "-r", "tiny", "--device", "MI355X")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "MI355X is a gfx950 part, not gfx1250; gfx1250's devices: gfx1250-standin" in err, err
    code, out, err = _run(capsys, "search", "-p", "N=8,C=64,K=64,Hi=28,Wi=28", "-a", "gfx942", "--dtype", "fp16",
                          "-r", "tiny", "--device", "MI355X")
    assert code == 2 and "gfx942's devices: MI300X, MI300A, MI325X" in err, err
