"""Every TOML or JSON file a user gives is parsed into one error line: nesting deeper than the parser recurses and
an integer past Python's 4,300-digit limit were tracebacks (RecursionError, ValueError) in ``--factors``,
``--kernel-map`` and ``plan merge``'s ``shard.json``, while rule-set files, arch_specs.json and model directories
already refused them."""

from __future__ import annotations

import pytest

from test_cli import run

PROBLEM = ["-p", "N=1,C=64,K=64,Hi=28,Wi=28", "-r", "tiny", "-a", "gfx950", "--dtype", "bf16"]
#: a measurement file (MADE-UP TFLOPS) for --kernel-map to map: one CK short label
MEASURED = "kernel,N,C,K,Hi,Wi,tflops\ngrouped_conv_forward_bf16_2d_16x64x64_compv3,1,64,64,28,28,1.0\n"

TOML = {
    "deep array": "a = " + "[" * 5000 + "]" * 5000 + "\n",
    "deep table": "a = " + "{x=" * 3000 + "1" + "}" * 3000 + "\n",
    "huge integer": "a = " + "9" * 5000 + "\n",
}
JSON = {
    "deep array": "[" * 100_000 + "]" * 100_000,
    "huge integer": '{"format": ' + "9" * 5000 + "}",
}


def _one_line_exit_2(capsys, argv, path):
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out, (code, out, err[-300:])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and str(path) in lines[0], err[-300:]
    return lines[0]


@pytest.mark.parametrize("case", TOML)
def test_factors_file(capsys, tmp_path, case):
    path = tmp_path / "factors.toml"
    path.write_text(TOML[case])
    _one_line_exit_2(capsys, ["search", *PROBLEM, "--factors", str(path)], path)


@pytest.mark.parametrize("case", TOML)
def test_kernel_map(capsys, tmp_path, case):
    path = tmp_path / "map.toml"
    path.write_text(TOML[case])
    measured = tmp_path / "m.csv"
    measured.write_text(MEASURED)
    _one_line_exit_2(capsys, ["select", *PROBLEM, "--measurements", str(measured), "--kernel-map", str(path)], path)


@pytest.mark.parametrize("case", JSON)
def test_plan_shard_file(capsys, tmp_path, case):
    (tmp_path / "shard.json").write_text(JSON[case])
    results = tmp_path / "results.csv"
    results.write_text(MEASURED)
    _one_line_exit_2(capsys, ["plan", "merge", str(results), "-o", str(tmp_path / "merged.csv")],
                     tmp_path / "shard.json")
