"""Options and inputs that used to be accepted and ignored, or to mean more than they say, are refused (or say
why): each is one line and exit 2 before anything is written, unless it is a result worth explaining."""

from __future__ import annotations

import pytest

from cksolve.cli import main


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_report_keep_without_minimize_is_refused(capsys, tmp_path):
    page = tmp_path / "r.html"
    code, out, err = run(capsys, "report", "-r", "tiny", "--keep", "2", "-o", str(page))
    assert code == 2 and err.count("\n") == 1 and "--keep 2 is minimize's: give --minimize ARCH" in err, err
    assert not page.exists()


def test_report_of_a_space_too_large_does_not_advise_a_limit_it_lacks(capsys, tmp_path):
    whole = tmp_path / "whole.toml"
    whole.write_text('kind = "gemm"\n')
    code, out, err = run(capsys, "report", "-r", str(whole), "-a", "gfx942", "--variant", "forward", "--dtype",
                         "fp16", "-o", str(tmp_path / "r.html"))
    assert code == 2 and err.count("\n") == 1 and "too many for a report" in err, err
    assert "--limit" not in err, err
    import cksolve.report.data as report_data

    assert not hasattr(report_data, "_check_size")  # the listing's own size check, worded for report


def test_a_negative_seed_is_refused(capsys):
    code, out, err = run(capsys, "sample", "-r", "tiny", "--seed", "-7")
    assert code == 2 and out == "" and err == "cksolve: error: --seed -7 must not be negative\n", err


def test_emit_cmake_list_refuses_a_semicolon_in_out_before_writing(capsys, tmp_path):
    out_dir = tmp_path / "a;b"
    code, out, err = run(capsys, "emit", "-r", "tiny", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                         "--ndim", "2", "--out", str(out_dir), "--cmake-list", str(tmp_path / "k.cmake"))
    assert code == 2 and err.count("\n") == 1 and "a ';' would split it" in err and "--out" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "emit wrote before refusing"


@pytest.mark.parametrize("key", ["extends", "base"])
def test_an_empty_extends_is_refused(capsys, tmp_path, key):
    path = tmp_path / "e.toml"
    path.write_text(f"{key} = []\n")
    code, out, err = run(capsys, "count", "-r", str(path), "-a", "gfx942")
    assert code == 2 and err.count("\n") == 1 and f"{key}: is an empty array: it extends nothing" in err, err


def test_a_file_without_extends_is_still_the_whole_space(capsys, tmp_path):
    path = tmp_path / "whole.toml"
    path.write_text('kind = "gemm"\n')
    code, out, err = run(capsys, "count", "-r", str(path), "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                         "--ndim", "2")
    assert code == 0 and int(out) > 10 ** 9, (out, err)


def test_an_infeasible_search_says_why(capsys):
    problem = "N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1"
    code, out, err = run(capsys, "search", "--rule-set", "full", "--arch", "gfx1100", "--problem", problem,
                         "--dtype", "fp16")
    assert code == 0 and out.endswith("status: INFEASIBLE (full has no kernel for gfx1100/forward/fp16/2d)\n"), out
    code, out, err = run(capsys, "search", "--rule-set", "full", "--arch", "gfx942", "--problem", problem,
                         "--dtype", "fp16", "--where", "tile_m > 100000", "--format", "jsonl")
    assert code == 0 and out == "", out
    assert err.endswith("cksolve: status: INFEASIBLE (no config of full for gfx942/forward/fp16/2d can run this "
                        "problem and meet --where)\n"), err
