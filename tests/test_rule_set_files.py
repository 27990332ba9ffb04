"""Rule-set files: validation of every key, extends, kinds, counting free files (the examples of
docs/rule-set-files.md run in tests/test_docs_run.py)."""

from __future__ import annotations

import json

from test_cli import run


def _count(capsys, rule_set, *selection) -> dict[str, int]:
    code, out, err = run(capsys, "count", "-r", str(rule_set), "--by", "variant", "--format", "json", *selection)
    assert code == 0, err
    return {g["variant"]: g["count"] for g in json.loads(out)["groups"]}


def test_extends_resolves_against_the_file_and_intersects(capsys, tmp_path, monkeypatch):
    sub = tmp_path / "sets"
    sub.mkdir()
    (sub / "compv3.toml").write_text('extends = "full"\n[pin]\npipeline = ["compv3"]\n')
    (sub / "wide.toml").write_text('base = "full"\n[pin]\ntile_n = [256]\n')
    (sub / "both.toml").write_text('extends = ["compv3.toml", "wide.toml"]\n')
    monkeypatch.chdir(tmp_path)  # not the files' directory: extends must not depend on the cwd
    sel = ("-a", "gfx942")
    both = _count(capsys, "sets/both.toml", *sel)
    narrowed = tmp_path / "narrowed.toml"
    narrowed.write_text('extends = "full"\n[pin]\npipeline = ["compv3"]\ntile_n = [256]\n')
    assert both == _count(capsys, narrowed, *sel) and both["forward"] > 0
    full = _count(capsys, "full", *sel)
    assert both["forward_depthwise"] == full["forward_depthwise"] > 0, "GEMM pins leave depthwise kernels alone"


def test_kind_keeps_one_kernel_kind(capsys, tmp_path):
    sel = ("-a", "gfx942")
    full = _count(capsys, "full", *sel)
    for kind in ("gemm", "depthwise"):
        path = tmp_path / f"{kind}.toml"
        path.write_text(f'extends = "full"\nkind = "{kind}"\n')
        got = _count(capsys, path, *sel)
        want = {v: (n if (v == "forward_depthwise") == (kind == "depthwise") else 0) for v, n in full.items()}
        assert got == want, f"kind = {kind}: {got} != {want}"


def test_a_pin_on_a_common_axis_reaches_both_kinds(capsys, tmp_path):
    path = tmp_path / "fp32.toml"
    path.write_text('extends = "full"\n[pin]\ndtype = ["fp32"]\n')
    assert _count(capsys, path, "-a", "gfx942") == _count(capsys, "full", "-a", "gfx942", "--dtype", "fp32")


def test_show_lists_the_files_own_constraints(capsys, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('description = "mine"\nextends = "default"\n[pin]\npipeline = "compv3"\n'
                    '[[table]]\nname = "mine.tiles"\nscope = ["tile_m", "tile_n"]\nforbid = true\nrows = [[16, 64]]\n')
    code, out, err = run(capsys, "rule-sets", "--show", str(path), "-a", "gfx942", "--variant", "forward",
                         "--dtype", "fp16", "--ndim", "2")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "mine: mine", err
    rows = {ln.split()[0]: ln.split() for ln in lines[2:]}
    assert rows["file.mine.pipeline"][1:6] == ["pipeline", "table", "gemm", "1", "1"]
    assert rows["mine.tiles"][1:6] == ["tile_m,tile_n", "forbid", "table", "gemm", "1"]
    assert "rules.default.core" in rows


def test_a_kernel_list_over_a_counted_file_keeps_its_kernels(tmp_path):
    """A names list over a file too free to join: the file's own solve only counted its core, so the
    list's kernels are not looked up in it (they were all dropped when the file was solved first)."""
    from cksolve.query import evaluate, load_rule_set
    from cksolve.solver import enumerate_combo, solve_combo
    from cksolve.space.combo import Combo
    from cksolve.space.memos import MEMOS

    combo = Combo("gfx942", "forward", "fp16", 2)
    free = tmp_path / "free.toml"
    free.write_text('kind = "gemm"\n[pin]\ntile_m = [64, 128]\ntile_n = [64, 128]\ntile_k = [32, 64]\n'
                    'pipeline = ["compv3"]\ngroups_to_merge = [1]\nstreamk = [false]\nwave_groups = [1]\n')
    base = load_rule_set(str(free))
    names = [c.name() for c in enumerate_combo(load_rule_set("full"), combo)
             if evaluate(c, combo.arch, base).member][:5]
    (tmp_path / "five.txt").write_text("".join(f"{n}\n" for n in names))
    (tmp_path / "listed.toml").write_text('extends = ["free.toml", "five.txt"]\n')
    listed = load_rule_set(str(tmp_path / "listed.toml"))
    MEMOS.clear()
    assert any(c.counted is not None for c in solve_combo(base, combo).components), "the file must be only counted"
    assert len(names) == 5 and sorted(c.name() for c in solve_combo(listed, combo).configs()) == sorted(names)
