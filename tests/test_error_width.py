"""An error line is one line of about 200 characters: a long list of valid values is shortened (its first few,
how many, where the rest are documented), the did-you-mean stays, and the central cap keeps a line's head and
tail (where the did-you-mean and the way out are)."""

from __future__ import annotations

import pytest

from cksolve.cli.errors import LINE_CAP, capped
from cksolve.errors import valid_list
from test_cli import run

#: "one line, about 200 characters": these messages' own text (their values are short) stays within it
ABOUT = 220

FIELDS_TYPO = "stride_hh"


def test_valid_list_keeps_a_short_list_and_shortens_a_long_one():
    assert valid_list(["a", "b", "c"]) == "a, b, c"
    long = [f"column_{i}" for i in range(32)]
    text = valid_list(long, see="docs/measurements.md")
    assert len(text) < 130, text
    assert text.startswith("column_0, column_1, ") and text.endswith(", … (32 in all; see docs/measurements.md)")
    assert valid_list(long).endswith(", … (32 in all)")


def test_capped_keeps_head_and_tail():
    line = "start " + "w " * 5000 + "; did you mean 'x'?"
    got = capped(line)
    assert len(got) <= LINE_CAP, len(got)
    assert got.startswith("start w") and got.endswith("; did you mean 'x'?")
    assert "characters cut" in got
    assert capped("unknown 'abc'; valid: a, b") == "unknown 'abc'; valid: a, b"


def _cases(tmp_path):
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    typo = tmp_path / "typo.csv"
    typo.write_text(f"N,G,{FIELDS_TYPO}\n1,1,1\n")
    rs = tmp_path / "rs.toml"
    rs.write_text('description = "x"\n[pin]\ntile_mm = [1]\n')
    return passwd, typo, rs


@pytest.mark.parametrize("argv,must", [
    (["select", "-p", "N=1", "-a", "gfx942", "--dtype", "fp16", "-r", "tiny", "--measurements", "{passwd}"],
     "(32 in all; see docs/measurements.md)"),
    (["train", "--measurements", "{passwd}", "--arch", "gfx950", "--dtype", "bf16", "--variant", "forward",
      "--out", "{tmp}/m"], "(32 in all"),
    (["select", "--problems", "{typo}", "-a", "gfx942", "--dtype", "fp16", "-r", "tiny"],
     f"did you mean 'stride_h'?"),
    (["count", "-r", "{rs}"], "did you mean 'tile_m'?"),
    (["search", "-p", "N=1,stride_hh=1", "-a", "gfx942"], "did you mean 'stride_h'?"),
    (["count", "-r", "tiny", "-a", "gfx99"], "did you mean"),
], ids=["measurements-passwd", "train-passwd", "problems-typo", "rule-set-axis", "problem-field", "arch"])
def test_error_lines_are_about_200_characters(capsys, tmp_path, argv, must):
    passwd, typo, rs = _cases(tmp_path)
    argv = [a.format(passwd=passwd, typo=typo, rs=rs, tmp=tmp_path) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1, err
    line = err.rstrip("\n").replace(str(tmp_path), "T")  # the pytest path's length is not the message's
    assert len(line) <= ABOUT, (len(line), line)
    assert must in err, err
    assert "root:x" not in err
