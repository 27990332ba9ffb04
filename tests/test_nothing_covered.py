"""``minimize`` over a workload its rule set covers none of: no names, a summary that says nothing was covered
(not a perfect ratio of 1.0) and exit 1 -- the verdict code, as ``check`` gives an invalid name."""

from __future__ import annotations

import json

from test_cli import run

#: no kernel of tiny can run it (C and K not multiples of any vector width CK checks: apply.forward.vector_c)
UNCOVERED = '{"N": 1, "G": 3, "C": 3, "K": 3, "Hi": 8, "Wi": 8, "Y": 1, "X": 1}\n'


def test_nothing_covered_is_said_and_exits_1(capsys, tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(UNCOVERED)
    argv = ["minimize", "--problems", str(f), "-r", "tiny", "-a", "gfx942", "--dtype", "fp16"]
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert "problems covered: 0 of 1" in err
    assert "score ratio against tiny (padding): none: tiny covers none of the problems, nothing to keep" in err
    assert "1.000" not in err
    code, out, err = run(capsys, *argv, "--summary-format", "json", "-o", str(tmp_path / "kept.txt"))
    assert code == 1 and (tmp_path / "kept.txt").read_text() == ""
    summary = json.loads(out)
    assert summary["covered"] == 0 and summary["ratio"] == {"worst": None, "mean": None}


def test_a_covered_workload_still_exits_0(capsys, tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(UNCOVERED + '{"N": 2, "C": 64, "K": 64}\n')
    code, out, err = run(capsys, "minimize", "--problems", str(f), "-r", "tiny", "-a", "gfx942", "--dtype", "fp16",
                         "--summary-format", "json", "-o", "-")
    assert code == 0, err
    assert out.count("\n") == 1 and json.loads(err)["ratio"]["worst"] == 1.0
