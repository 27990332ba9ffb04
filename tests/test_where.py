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


# --- bounds: an expression is input, so its size, depth, literals and cost are limited ---------------------

from cksolve.rulesets import where as where_module  # noqa: E402

BOUND_BREACHES = {
    "1000 nots": ("not " * 1000 + "tile_m > 0", "longer than 2000 characters"),
    "2000-term sum": (" + ".join(["tile_m"] * 2000) + " > 0", "longer than 2000 characters"),
    "975 minus signs": ("-" * 975 + "tile_m < 0", "nests deeper than 64 levels"),
    "400 nots": ("not " * 400 + "tile_m > 0", "nests deeper than 64 levels"),
    "190-term or": (" or ".join(["0<ndim"] * 190), "has more than 512 terms"),
    "100-deep sum": ("+".join(["1"] * 100) + " + tile_m > 0", "nests deeper than 64 levels"),
    "deep parentheses": ("(" * 300 + "tile_m" + ")" * 300 + " > 0", "syntax error"),
    "long tuple": ("tile_m in (" + ",".join(["16"] * 300) + ")", "lists more than 256 values"),
    "big hex": ("tile_m < 0x" + "f" * 1000, "integer constant longer than 18 digits"),
    "big decimal": ("tile_m < 1" + "0" * 18, "integer constant longer than 18 digits"),
    "14 axes": (" + ".join(["tile_m", "tile_n", "tile_k", "wave_m", "wave_n", "wave_k", "warp_tile_m",
                            "warp_tile_n", "warp_tile_k", "vector_a", "vector_b", "vector_c", "groups_to_merge",
                            "wave_groups"]) + " > 0", "1,000,000; split it into expressions over fewer axes"),
}


@pytest.mark.parametrize("case", sorted(BOUND_BREACHES))
def test_an_expression_past_a_bound_is_one_line_and_exit_2(tmp_path, capsys, case):
    expr, what = BOUND_BREACHES[case]
    path = tmp_path / "b.toml"
    path.write_text(f'kind = "gemm"\nwhere = ["{expr}"]\n')
    code, out, err = run(capsys, "count", "-r", str(path), "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                         "--ndim", "2")
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("cksolve: error: "), (case, err[-300:])
    assert what in err and "Traceback" not in err, (case, err[-300:])


def test_expressions_just_inside_the_bounds_still_solve(tmp_path, capsys):
    """The deepest and largest allowed forms load and solve (no RecursionError or KeyError in the solvers)."""
    inside = ["-" * 60 + "tile_m < 1000", "not " * 60 + "tile_m > 0", "tile_m < 999999999999999999",
              "tile_m in (" + ",".join(["16"] * 256) + ")",
              "tile_m + tile_n + tile_k + wave_m + wave_n + wave_k > 0",
              "tile_m + tile_n + tile_k + vector_a + vector_b + warp_tile_k > 0"]  # 870,912 combinations
    path = tmp_path / "ok.toml"
    path.write_text('extends = "full"\nwhere = [' + ", ".join(f'"{w}"' for w in inside) + "]\n")
    code, out, err = run(capsys, "count", "-r", str(path), "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                         "--ndim", "2")
    assert code == 0 and int(out) > 0, (out, err)


def test_too_many_expressions_are_refused(tmp_path, capsys):
    n = where_module.MAX_EXPRESSIONS + 1
    path = tmp_path / "many.toml"
    path.write_text('extends = "full"\nwhere = [' + ", ".join(['"tile_m > 0"'] * n) + "]\n")
    code, _out, err = run(capsys, "count", "-r", str(path))
    assert code == 2 and f"where has {n} expressions, more than 64" in err, err
    code, _out, err = run(capsys, "search", "--problem", "N=32,C=1024,K=256", "--arch", "gfx942", "--dtype", "fp16",
                          "--rule-set", "full", *[a for _ in range(n) for a in ("--where", "tile_m > 0")])
    assert code == 2 and f"{n} --where conditions, more than 64" in err, err


def test_search_where_past_a_bound_is_one_short_line(capsys):
    code, out, err = run(capsys, "search", "--problem", "N=32,C=1024,K=256", "--arch", "gfx942", "--dtype", "fp16",
                         "--rule-set", "full", "--where", "not " * 1000 + "tile_m > 0")
    assert code == 2 and out == "" and err.count("\n") == 1 and "longer than 2000 characters" in err, err
    assert len(err) < 400, err
