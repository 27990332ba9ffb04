"""A rule that depends only on the arch is in the arch's space: async-copy pipelines exist only where CK Tile
runs them (facts.toml async_copy: gfx950), so count, sample, search and explain all see it."""

from __future__ import annotations

import pytest

from cksolve.arch.facts import archs_with
from cksolve.cli import main
from cksolve.space.pipelines import pipelines_with

ASYNC = pipelines_with("async_copy")
NAME = "grouped_conv_fwd_fp16_nhwgc_2d_comp_async_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def _whole(tmp_path, pins: str = "") -> str:
    path = tmp_path / "whole.toml"
    path.write_text('kind = "gemm"\n' + pins)
    return str(path)


def test_the_facts_name_one_async_arch_and_two_async_pipelines():
    assert archs_with("async_copy") == ("gfx950",) and set(ASYNC) == {"comp_async", "basic_async_v1"}


@pytest.mark.parametrize("arch, some", [("gfx942", False), ("gfx90a", False), ("gfx1201", False), ("gfx950", True)])
def test_async_pipelines_are_counted_only_where_they_run(capsys, tmp_path, arch, some):
    pins = "[pin]\npipeline = [" + ", ".join(f'"{p}"' for p in ASYNC) + "]\n"
    code, out, err = run(capsys, "count", "-r", _whole(tmp_path, pins), "-a", arch, "--variant", "forward",
                         "--dtype", "fp16", "--ndim", "2")
    assert code == 0 and (int(out) > 0) is some, (arch, out, err)


def test_sampling_the_whole_space_of_gfx942_draws_no_async_kernel(capsys, tmp_path):
    code, out, err = run(capsys, "sample", "-r", _whole(tmp_path), "-a", "gfx942", "--variant", "forward",
                         "--dtype", "fp16", "--ndim", "2", "-n", "300", "--seed", "3")
    assert code == 0 and len(out.splitlines()) == 300, err
    assert not [n for n in out.splitlines() if "_async" in n], out


def test_explain_names_the_arch_rule(capsys):
    code, out, err = run(capsys, "explain", NAME, "--arch", "gfx942")
    assert code == 1 and "[arch.async_copy]" in out and "runs it only on gfx950, not gfx942" in out, out
    code, out, err = run(capsys, "explain", NAME, "--arch", "gfx950")
    assert code == 0 and "is valid for gfx950" in out, out


def test_search_over_the_space_never_ranks_an_async_kernel_off_gfx950(capsys):
    code, out, err = run(capsys, "search", "--problem", "N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1", "--arch", "gfx942",
                         "--dtype", "fp16", "--top", "20", "--format", "names")
    assert code == 0 and out and "_async" not in out, out
