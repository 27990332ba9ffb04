"""``where`` expressions in rule-set files (docs/space.md): safe parsing, named checks, exact semantics."""

from __future__ import annotations

import pytest

from cksolve import query
from cksolve.cli import main


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err
from cksolve.rulesets.where import compile_where, where_test

WHERE = ["tile_m * tile_n <= 16384", "tile_k % (warp_tile_k * wave_k) == 0",
         "pipeline != 'mem' or tile_m >= 64", "vector_a in (4, 8)", "not (tile_n // 16 > 8) and -tile_m < 0"]


def _python(c) -> bool:
    """The same conditions written in Python, for the comparison."""
    return (c.tile_m * c.tile_n <= 16384 and c.tile_k % (c.warp_tile_k * c.wave_k) == 0
            and (c.pipeline != "mem" or c.tile_m >= 64) and c.vector_a in (4, 8)
            and not (c.tile_n // 16 > 8) and -c.tile_m < 0)


def test_where_narrows_exactly_like_the_python_conditions(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text('extends = "full"\nkind = "gemm"\nwhere = [' + ", ".join(f'"{w}"' for w in WHERE) + "]\n")
    selection = query.select(["gfx942", "gfx1201"], None, ["fp16", "fp32"], ["2"])
    full = [r for r in query.enumerate_records(query.load_rule_set("full"), selection) if r.config.kind == "gemm"]
    want = sorted(r.name for r in full if _python(r.config))
    got = sorted(r.name for r in query.enumerate_records(query.load_rule_set(str(path)), selection))
    assert got == want and 0 < len(got) < len(full), (len(got), len(want), len(full))
    names = [s.name for s in query.rule_set_constraints(query.load_rule_set(str(path)), selection)]
    assert [f"file.w.where[{i}]" for i in range(len(WHERE))] == [n for n in names if ".where[" in n]


def test_explain_names_the_where_constraint(tmp_path, capsys):
    path = tmp_path / "w.toml"
    path.write_text('extends = "full"\nwhere = ["tile_m <= 64"]\n')
    name = next(r.name for r in query.enumerate_records(query.load_rule_set("full"),
                                                        query.select(["gfx942"], ["forward"], ["fp16"], ["2"]))
                if r.config.tile_m == 256)
    code, out, _err = run(capsys, "explain", name, "-a", "gfx942", "-r", str(path))
    assert code == 1 and "file.w.where[0]" in out and "tile_m <= 64 does not hold (tile_m=256)" in out, out


@pytest.mark.parametrize("expr, column, what", [
    ("tile_m * ", 9, "syntax error"),
    ("tile_m + pipeline > 3", 1, "'+' needs integers"),
    ("__import__('os').system('true')", 1, "Call is not allowed"),
    ("foo > 1", 1, "unknown axis 'foo'"),
    ("tile_m", 1, "must be a condition"),
    ("tile_m ** 2 > 3", 1, "operator Pow is not allowed"),
    ("tile_m > 3 and pipeline.upper() == 'X'", 16, "Call is not allowed"),
    ("pipeline < 'mem'", 12, "'<' needs integers"),
    ("tile_m in (1, 'a')", 11, "'in' needs a tuple or list of int constants"),
])
def test_a_bad_expression_is_one_line_naming_file_expression_and_column(tmp_path, capsys, expr, column, what):
    path = tmp_path / "bad.toml"
    path.write_text("where = ['tile_m > 0', " + '"' + expr.replace('"', '\\"') + '"]\n')
    code, _out, err = run(capsys, "count", "-r", str(path), "-a", "gfx942")
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"cksolve: error: {path}: where[1]: ") and f"at column {column}: {what}" in err, err


def test_programs_never_reach_eval(monkeypatch):
    import builtins

    monkeypatch.setattr(builtins, "eval", lambda *a, **k: pytest.fail("eval called"))
    monkeypatch.setattr(builtins, "exec", lambda *a, **k: pytest.fail("exec called"))
    scope, program = compile_where("tile_k % (warp_tile_k * wave_k) == 0 and tile_m // 0 == 1")
    assert scope == ("tile_k", "warp_tile_k", "wave_k", "tile_m")
    assert where_test(64, 16, 2, 128, program) is False  # a division by zero is false, not an error
    scope, program = compile_where("tile_k % (warp_tile_k * wave_k) == 0")
    assert where_test(64, 16, 2, program) and not where_test(64, 16, 8, program)
