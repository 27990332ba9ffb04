"""Bad input, as a new user would try it: one line on stderr naming the bad value, exit 2, never a traceback.

The regression table holds the inputs that once printed a traceback, grew
memory or were silently accepted; each case is a command, the files it reads,
the exit code and the start of the message (after ``cksolve: error: ``).
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CK, fresh_solves
from test_cli import GOOD, LDS, run

BIG = "1" * 5000
#: a kernel (tiny, gfx942) and a depthwise kernel; a CK Builder forward line (tile 256x128x256)
TILE = GOOD
DW = "grouped_conv_fwd_depthwise_fp16_nhwgc_2d_8x8_f3_s1x1_p1x1_nb8_sub2x2_vec2_2"
CONF = ("DeviceGroupedConvFwdMultipleABD_Xdl_CShuffle<2,NHWGC,GKYXC,EmptyTuple,NHWGK,fp16,fp16,fp32,fp16,EmptyTuple,"
        "fp16,PassThrough,PassThrough,PassThrough,Default,MNKPadding,1,256,128,256,32,8,8,32,32,2,4,Seq(4,64,1),"
        "Seq(1,0,2),Seq(1,0,2),2,8,8,true,Seq(4,64,1),Seq(1,0,2),Seq(1,0,2),2,8,8,true,1,1,Seq(1,32,1,8),8,fp16,fp16,"
        "Default,1>\n")
NAME_BIG = f"grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_{BIG}x64x64_1x4x1_16x16x16"
ARABIC = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x\u0666\u0664_1x4x1_16x16x16"
DEEP = "x = " + "[" * 3000 + "]" * 3000 + "\n"
#: a rule-set file that counts (62,816,256 configs on gfx942 forward fp16 2D) but is far too large to list
FREE = (b"kind = 'gemm'\n[pin]\ntile_m = [64, 128]\ntile_n = [64, 128]\ntile_k = [32, 64]\npipeline = ['compv3']\n"
        b"groups_to_merge = [1]\nstreamk = [false]\nstreamk_strategy = ['tree']\nstreamk_persistent = [false]\n"
        b"wave_groups = [1]\n")

# (id, argv, files {name: bytes}, exit code, start of the error message); "{d}" is the case's directory
CASES = [
    # names files that are not UTF-8, for every command that reads one
    *[(f"{cmd[0]}-{kind}", [*cmd, "{d}/n.txt"], {"n.txt": data}, 2, "{d}/n.txt:1: not UTF-8 text")
      for cmd in (["check", "-a", "gfx942"], ["diff", "default"], ["emit", "-a", "gfx942", "--out", "{d}/o", "--names"])
      for kind, data in (("random", b"\x8f\xff\x00\xfe" * 50), ("utf16", GOOD.encode("utf-16")),
                         ("latin1", GOOD.encode() + b"\xe9\n"))],
    # rule-set files with wrong types and values
    *[(f"ruleset-{i}", ["count", "-r", "{d}/r.toml"], {"r.toml": text.encode()}, 2, f"{{d}}/r.toml: {start}")
      for i, (text, start) in enumerate([
          ("pin = 5\n", "'pin' must be a table of axis = [values], got an integer"),
          ("pin = 'abc'\n", "'pin' must be a table of axis = [values], got a string"),
          ("pin = [1, 2]\n", "'pin' must be a table of axis = [values], got an array"),
          ("[pin]\npipeline = {a = 1}\n", "pin.pipeline: a table {'a': 1} is not a value of pipeline; valid values: "),
          ("[pin]\npipeline = [['compv3']]\n", "pin.pipeline: an array ['compv3'] is not a value of pipeline"),
          ("table = 5\n", "'table' must be an array of tables ([[table]]), got an integer"),
          (DEEP, "malformed rule-set file: values nested too deeply"),
          (f"x = {BIG}\n", "malformed rule-set file: Exceeds the limit (4300 digits)"),
          ("[pin]\npipeline = ['compv99']\n", "pin.pipeline: 'compv99' is not a value of pipeline; valid values: basic_v1"),
          ("[pin]\ntile_m = ['64']\n", "pin.tile_m: '64' is not a value of tile_m; valid values: 16, 32"),
          ("[pin]\ntile_m = [true]\n", "pin.tile_m: a boolean True is not a value of tile_m"),
          ("[pin]\ndouble_smem_buffer = ['yes']\n", "pin.double_smem_buffer: 'yes' is not a value of double_smem_buffer; "
                                                  "valid values: false, true"),
          ("[pin]\npipeline = []\n", "pin.pipeline: an empty list allows nothing"),
          ("[[table]]\nscope = ['tile_m']\nrows = [[64]]\nforbid = 'no'\n", "table #1.forbid: must be true or false"),
          ("[[table]]\nscope = ['tile_m', 'tile_h']\nrows = []\n", "file.r.table1: scope mixes GEMM and depthwise"),
          ("[[table]]\nscope = ['tile_m']\nrows = [[64, 1]]\n", "table #1.rows[1]: must be an array of 1 values"),
          ("kind = 'both'\n", "kind: 'both' is not one of gemm, depthwise"),
          ("[[table]]\nscope = [['tile_m']]\nrows = []\n", "table #1.scope: unknown axis ['tile_m']"),
          ("extends = 'nope'\n", "extends 'nope', which is neither a rule set"),
          ("extends = 'default'\nbase = 'full'\n", "give 'extends' or its alias 'base', not both"),
          ("colour = 'red'\n", "unknown key 'colour'; valid keys: description, extends"),
          ("extends = 'r.toml'\n", "rule-set files extend each other in a cycle: r.toml -> r.toml"),
      ])],
    ("ruleset-not-utf8", ["count", "-r", "{d}/r.toml"], {"r.toml": b"\xff\xfe[pin]"}, 2, "{d}/r.toml: not UTF-8 text"),
    ("ruleset-cycle", ["count", "-r", "{d}/a.toml"], {"a.toml": b"extends = 'b.toml'\n", "b.toml": b"base = './a.toml'\n"},
     2, "{d}/a.toml: rule-set files extend each other in a cycle: a.toml -> b.toml -> a.toml"),
    # strings that are not kernel names (a value outside its axis, a spelling CK never writes): exit 2 for
    # explain and check alike (check reports every line first); an invalid kernel is exit 1 (test_cli)
    *[(f"{cmd[0]}-not-a-name-{why}", [*cmd], {"n.txt": (name + "\n").encode()}, 2,
       (f"{{d}}/n.txt:1: " if cmd[0] == "check" else "") + start)
      for why, name, start in [
          ("fp8", GOOD.replace("_fp16_", "_fp8_"), f"not a kernel name: {GOOD.replace('_fp16_', '_fp8_')!r} (dtype 'fp8' "
                                                   "is not one of fp16, bf16, fp32)"),
          ("4d", GOOD.replace("_2d_", "_4d_"), f"not a kernel name: {GOOD.replace('_2d_', '_4d_')!r} (ndim 4 is not one "
                                               "of 1, 2, 3)"),
          ("tile-0x0x0", TILE.replace("16x64x64_", "0x0x0_"), "not a kernel name: "),
          ("tile-25-digits", TILE.replace("16x64x64_", "1234567890123456789012345x64x64_"),
           "not a kernel name: "),
          ("depthwise-f0", DW.replace("_f3_", "_f0_"), f"not a kernel name: {DW.replace('_f3_', '_f0_')!r} (filt 0 is "
                                                       "not one of 1, 3, 5, 7)"),
          ("leading-zero", TILE.replace("16x64x64_", "016x64x64_"),
           f"{TILE.replace('16x64x64_', '016x64x64_')!r} is not CK's spelling of this kernel; CK names it {TILE!r}"),
      ]
      for cmd in (["check", "-a", "gfx942", "{d}/n.txt"], ["explain", name, "-a", "gfx942", "--nearest", "0"])],
    # .conf numbers: plain ASCII digits only (int() also reads 1_28, +128 and Arabic-Indic digits); paired brackets
    *[(f"conf-{why}", ["count", "-r", "tests", "--builder-configs", "{d}/bc", "-a", "gfx942", "--variant", "forward",
                       "--dtype", "fp16", "--ndim", "2"],
       {"bc/forward/tests/nhwgc_fp16.conf": line.encode()}, 2, f"{{d}}/bc/forward/tests/nhwgc_fp16.conf:1: {start}")
      for why, line, start in [
          ("underscore", CONF.replace(",1,256,128,256,", ",1,256,1_28,256,"), "DeviceGroupedConvFwdMultipleABD_Xdl_CShuffle:"
                                                                         " field tile_m must be an integer in plain ASCII"),
          ("arabic", CONF.replace(",1,256,128,256,", ",1,256,\u0661\u0662\u0668,256,"), "DeviceGroupedConvFwdMultipleABD"
                                                                                   "_Xdl_CShuffle: field tile_m must"),
          ("leading-zero", CONF.replace(",1,256,128,256,", ",1,256,0128,256,"), "DeviceGroupedConvFwdMultipleABD_Xdl"
                                                                            "_CShuffle: field tile_m must"),
          ("brackets", CONF.replace("CShuffle<2,", "CShuffle<<<2,"), "expected an instance string Kind<...> (with its"),
          ("huge", CONF.replace(",1,256,128,256,", ",1,256," + "9" * 5000 + ",256,"), "DeviceGroupedConvFwdMultipleABD"
                                                                                "_Xdl_CShuffle: field tile_m is out"),
      ]],
    # --perf measurements: decimal numbers in ASCII digits; JSON true is not 1
    *[(f"perf-{why}", ["minimize", "--problems", "{d}/w.csv", "-r", "default", "-a", "gfx942", "--dtype", "fp16",
                       "--perf", "{d}/perf.txt"], {"w.csv": b"N,G,C,K\n1,1,64,128\n", "perf.txt": perf.encode()}, 2,
       f"{{d}}/perf.txt:{start}")
      for why, perf, start in [
          ("underscore", f"N,G,C,K,kernel,tflops\n1,1,64,128,{TILE},1_0\n", "2: field tflops: '1_0' is not a number"),
          ("arabic", f"N,G,C,K,kernel,tflops\n1,1,64,128,{TILE},\u0661\u0660\n", "2: field tflops: '\u0661\u0660' is not"),
          ("json-true", f'{{"N": 1, "C": 64, "K": 128, "kernel": "{TILE}", "tflops": true}}\n',
           "1: field tflops: true is not a number"),
          ("json-problem-true", f'{{"N": true, "C": 64, "K": 128, "kernel": "{TILE}", "tflops": 1}}\n',
           "1: field N: not an integer (expected decimal ASCII digits, at most 18)"),  # a file's cell: named, not echoed
      ]],
    # problem files: an integral JSON number is an integer, 4.5 is not; more than 18 digits in any form is refused
    *[(f"problems-json-{why}", ["coverage", "--problems", "{d}/p.jsonl", "-r", "tiny", "-a", "gfx942"],
       {"p.jsonl": row.encode()}, 2, f"{{d}}/p.jsonl:1: {start}")
      for why, row, start in [
          ("half", '{"N": 4.5, "C": 64, "K": 64}\n', "field N: not an integer (expected decimal ASCII digits, at most 18)"),
          ("30-digits", '{"N": ' + "9" * 30 + ', "C": 64, "K": 64}\n', "field N: more than 18 digits"),
          ("19-digits-float", '{"N": 1e18, "C": 64, "K": 64}\n', "field N: more than 18 digits"),
          ("string-30-digits", '{"N": "' + "9" * 30 + '", "C": 64, "K": 64}\n', "field N: more than 18 digits"),
      ]],
    # a chain of rule-set files deeper than MAX_DEPTH: one line, not Python's RecursionError
    ("ruleset-chain-400", ["count", "-r", "{d}/c0.toml"],
     {**{f"c{i}.toml": f"extends = 'c{i + 1}.toml'\n".encode() for i in range(400)}, "c400.toml": b"extends = 'tiny'\n"},
     2, "{d}/c64.toml: 'extends' nests rule-set files more than 64 deep (starting at c0.toml)"),
    # numbers over 4,300 digits inside kernel names
    ("check-big-number", ["check", "-a", "gfx942", "{d}/n.txt"], {"n.txt": (NAME_BIG + "\n").encode()}, 2,
     "{d}/n.txt:1: line longer than 4096 bytes"),
    ("diff-big-number", ["diff", "{d}/n.txt", "default"], {"n.txt": (NAME_BIG[:3000] + "\n").encode()}, 2,
     "{d}/n.txt:1: not a kernel name: 'grouped_conv_fwd"),
    ("emit-big-number", ["emit", "-a", "gfx942", "--out", "{d}/o", "--names", "{d}/n.txt"],
     {"n.txt": (NAME_BIG[:3000] + "\n").encode()}, 2, "{d}/n.txt:1: not a kernel name"),
    ("explain-big-number", ["explain", NAME_BIG, "-a", "gfx942"], {}, 2,
     "not a grouped-conv kernel name (longer than 400 characters): 'grouped_conv"),
    # names that are too long, empty or odd option values
    ("rule-set-too-long", ["count", "-r", "x" * 100_000], {}, 2, "unknown rule set 'xxxx"),
    ("rule-set-file-too-long", ["count", "-r", "x" * 100_000 + ".toml"], {}, 2, "cannot read xxxx"),
    ("output-empty", ["enumerate", "-r", "tiny", "--output", ""], {}, 2, "empty value for --output"),
    ("out-empty", ["emit", "-r", "tiny", "--out", ""], {}, 2, "empty value for --out"),
    ("out-empty-eq", ["emit", "-r", "tiny", "--out="], {}, 2, "empty value for --out"),
    ("arch-empty", ["count", "-r", "tiny", "--arch", ""], {}, 2, "empty value for --arch"),
    ("arch-empty-after-strict", ["--strict", "count", "-r", "tiny", "--arch", ""], {}, 2, "empty value for --arch"),
    ("arch-comma", ["count", "-r", "tiny", "--arch", ","], {}, 2, "empty --arch in ','"),
    ("arch-trailing-comma", ["count", "-r", "tiny", "--arch", "gfx942,"], {}, 2, "empty --arch in 'gfx942,'"),
    ("variant-empty", ["count", "-r", "tiny", "--variant", ""], {}, 2, "empty value for --variant"),
    ("check-empty-path", ["check", "-a", "gfx942", ""], {}, 2, "empty path for the names file"),
    ("by-empty", ["count", "-r", "tiny", "--by", ""], {}, 2, "empty value for --by"),
    ("nearest-negative", ["explain", GOOD, "-a", "gfx942", "--nearest", "-5"], {}, 2, "--nearest -5 must not be negative"),
    ("limit-negative", ["enumerate", "-r", "tiny", "--limit", "-1"], {}, 2, "--limit -1 must not be negative"),
    ("ndim-arabic", ["count", "-r", "tiny", "--ndim", "\u0662"], {}, 2, "unknown ndim '\u0662'; valid: 1, 2, 3"),
    ("names-arabic-digits", ["diff", "{d}/n.txt", "default"], {"n.txt": (ARABIC + "\n").encode()}, 2,
     "{d}/n.txt:1: not a kernel name"),
    # problem specs (applicable, explain --problem): an empty item or value is a slip, not CK's default
    *[(f"{cmd[0]}-problem-{i}", [*cmd, spec], {}, 2, f"problem spec {spec!r}: {start}")
      for i, (spec, start) in enumerate([("N=2,,C=64", "an empty FIELD=VALUE"), ("N=2,", "an empty FIELD=VALUE"),
                                         (",", "an empty FIELD=VALUE"), ("N=", "field 'N' has no value"),
                                         ("C= ,N=2", "field 'C' has no value"),
                                         ("N=" + "9" * 30, "field N: '" + "9" * 30 + "' has more than 18 digits")])
      for cmd in (["applicable", "-r", "tiny", "-a", "gfx942", "-p"], ["explain", GOOD, "-a", "gfx942", "-p"])],
    # minimize's request: checked (by workload.minimize.Request) before the problems are read
    *[(f"minimize-{opt[2:]}-{value}", ["minimize", "--problems", "{d}/missing.csv", "-r", "tiny", "-a", "gfx942",
                                       opt, value], {}, 2, f"{opt} {shown} {start}")
      for opt, value, shown, start in [("--keep", "1.5", "1.5", "must be between 0 and 1"),
                                       ("--keep", "nan", "nan", "must be between 0 and 1"),
                                       ("--per-problem", "0", "0", "must be at least 1"),
                                       ("--max-kernels", "-3", "-3", "must not be negative"),
                                       ("--time-limit", "0", "0.0", "must be positive"),
                                       ("--time-limit", "nan", "nan", "must be positive")]],
    # emit's options: refused before a tree is written
    *[(f"emit-jobs-{n}", ["emit", "-r", "tiny", "-a", "gfx942", "--out", "{d}/o", "--jobs", n], {}, 2,
       f"--jobs {n} must be at least 1") for n in ("0", "-1")],
    ("emit-cmake-list-no-dir", ["emit", "-r", "tiny", "-a", "gfx942", "--out", "{d}/o", "--cmake-list",
                                "{d}/missing/l.cmake"], {}, 2, "cannot write {d}/missing/l.cmake: No such file"),
    ("emit-cmake-list-is-dir", ["emit", "-r", "tiny", "-a", "gfx942", "--out", "{d}/o", "--cmake-list", "{d}"], {}, 2,
     "cannot write {d}: Is a directory"),
    ("emit-cmake-list-under-file", ["emit", "-r", "tiny", "-a", "gfx942", "--out", "{d}/o", "--cmake-list",
                                    "{d}/f.txt/l.cmake"], {"f.txt": b""}, 2, "cannot write {d}/f.txt/l.cmake: Not a directory"),
    # GEMM-only commands: a depthwise variant among others is refused, not silently dropped
    ("pipeline-variants-depthwise", ["pipeline-variants", "--variant", "forward,forward_depthwise"], {}, 2,
     "forward_depthwise kernels have no GEMM pipeline"),
    ("features-depthwise", ["features", "-r", "tiny", "-a", "gfx942", "--variant", "forward,forward_depthwise"], {}, 2,
     "variant forward_depthwise: CK's feature engine describes implicit-GEMM kernels"),
    # outputs are checked before the work, and before another output is written
    ("minimize-second-output-unwritable", ["minimize", "--problems", "{d}/p.csv", "-r", "tiny", "-a", "gfx942",
                                           "--output-rule-set", "{d}/o", "-o", "{d}/missing/names.txt"],
     {"p.csv": b"N,C,K\n1,64,64\n"}, 2, "cannot write {d}/missing/names.txt: No such file or directory"),
    *[(f"{cmd[0]}-output-unwritable", [*cmd, "-o", "{d}/missing/out"], {"p.csv": b"N,C,K\n1,64,64\n"}, 2,
       "cannot write {d}/missing/out: No such file or directory")
      for cmd in (["enumerate", "-r", "tiny"], ["coverage", "--problems", "{d}/p.csv", "-r", "tiny", "-a", "gfx942"],
                  ["features", "-r", "tiny", "-a", "gfx942"], ["audit", "-r", "tiny", "-a", "gfx942"])],
    # bounded reads
    ("names-dev-zero", ["check", "-a", "gfx942", "/dev/zero"], {}, 2, "/dev/zero:1: line longer than 4096 bytes"),
    ("emit-names-dev-zero", ["emit", "-a", "gfx942", "--out", "{d}/o", "--names", "/dev/zero"], {}, 2,
     "/dev/zero:1: line longer than 4096 bytes"),
    ("ruleset-dev-zero", ["count", "-r", "/dev/zero"], {}, 2, "/dev/zero: rule-set file is larger than 64 MiB"),
    # bounded memory: a file with no base is counted, but not listed past the limit
    ("enumerate-limit", ["enumerate", "-r", "{d}/r.toml", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                         "--ndim", "2"], {"r.toml": b"kind = 'gemm'\n[pin]\npipeline = ['compv3']\n"}, 2,
     "r has more than 10,000,000 configs in this selection (34,358,722,560 up to gfx942/forward/fp16/2d)"),
    ("enumerate-small-limit", ["enumerate", "-r", "tiny", "-a", "gfx942", "--limit", "3"], {}, 2,
     "tiny has more than 3 configs in this selection (10 up to gfx942/forward/fp16/1d)"),
    # bounded memory: commands that list a combination's configs (workloads, features, diff, audit's
    # containment) refuse a file too free to list instead of filling memory (explain's nearest configs come
    # from the model past the limit: tests/test_stream.py)
    *[(f"{cmd[0]}-too-many-configs", [c if c != "R" else "{d}/r.toml" for c in cmd],
       {"r.toml": FREE, "p.csv": b"N,C,K\n1,64,64\n"}, 2,
       "r has 62,816,256 configs for gfx942/forward/fp16/2d, more than the 1,000,000 a command lists")
      for cmd in (["applicable", "-r", "R", "-a", "gfx942", "--dtype", "fp16", "-p", "N=1"],
                  ["coverage", "-r", "R", "-a", "gfx942", "--dtype", "fp16", "--problems", "{d}/p.csv"],
                  ["minimize", "-r", "R", "-a", "gfx942", "--dtype", "fp16", "--problems", "{d}/p.csv"],
                  ["features", "-r", "R", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "2"],
                  ["diff", "R", "default", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "2"],
                  ["audit", "-r", "tiny", "--against", "R", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                   "--ndim", "2"])],
]


@pytest.mark.slow
@pytest.mark.parametrize("argv, files, code, start", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line(capsys, tmp_path, argv, files, code, start):
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    argv = [a.replace("{d}", str(tmp_path)) for a in argv]
    got, out, err = run(capsys, *argv)
    start = start.replace("{d}", str(tmp_path))
    assert (got, err.count("\n")) == (code, 1), f"{argv[:4]}: exit {got}, stderr {err[:300]!r}"
    assert err.startswith(f"cksolve: error: {start}"), f"{argv[:4]}: {err[:300]!r}"
    assert len(err) < 700, "error lines echo at most ~200 characters of the input"
    assert not (tmp_path / "o").exists(), "nothing is written after an error"


def _extends_graph(tmp_path: Path, levels: int) -> Path:
    """d0 extends [d1, d1], and [a, b] at every level that both extend the next [a, b]: 2**levels paths."""
    for i in range(levels):
        (tmp_path / f"d{i}.toml").write_text(f"extends = ['d{i + 1}.toml', 'd{i + 1}.toml', 'a{i + 1}.toml']\n")
        for x in "ab":
            (tmp_path / f"{x}{i}.toml").write_text(f"extends = ['a{i + 1}.toml', 'b{i + 1}.toml']\n"
                                                  f"[pin]\ntile_m = [64, 128, {16 * (i % 16 + 1)}]\n")
    for x in "dab":
        (tmp_path / f"{x}{levels}.toml").write_text("extends = ['tiny', 'default.toml']\n")
    (tmp_path / "default.toml").write_text("extends = 'full'\n[pin]\npipeline = ['compv3', 'mem']\n")
    return tmp_path / "d0.toml"


def test_a_file_extended_many_times_is_read_once(capsys, tmp_path, monkeypatch):
    """``extends`` makes a graph: each file is read once per load and its constraints counted once, however
    many paths reach it (a file repeated at each of 30 levels took 2**30 loads)."""
    from cksolve.rulesets import file as file_mod
    from cksolve.rulesets import get_rule_set
    from cksolve.rulesets.rule_set import Combo

    top = _extends_graph(tmp_path, 12)
    reads = []
    real_read = file_mod.read_text
    monkeypatch.setattr(file_mod, "read_text", lambda path, what: reads.append(Path(path).name) or real_read(path, what))
    rs = get_rule_set(str(top))
    reached = sorted(p.name for p in tmp_path.glob("*.toml") if p.name not in ("a0.toml", "b0.toml", "b1.toml"))
    assert sorted(reads) == reached, "each file read exactly once"
    combo = Combo("gfx942", "forward", "fp16", 2)
    names = [c.name for c in rs.constraints(combo)]
    # a1..a11 and b2..b11 pin tile_m once each, default.toml its pipeline once (the d files and a12, b12 pin nothing)
    own = [n for n in names if n.startswith("file.")]
    assert sorted(own) == sorted([f"file.a{i}.tile_m" for i in range(1, 12)] + [f"file.b{i}.tile_m" for i in range(2, 12)]
                                 + ["file.default.pipeline"])
    built_in = len(get_rule_set("tiny").constraints(combo)) + len(get_rule_set("full").constraints(combo))
    assert len(names) == built_in + len(own), "a rule set reached twice adds its constraints once"
    code, out, err = run(capsys, "count", "-r", str(_extends_graph(tmp_path, 30)), "-a", "gfx942")
    assert code == 0 and int(out) > 0, err


def test_names_files_share_one_syntax(capsys, tmp_path):
    """# anywhere, BOM, CRLF, blank lines: check, diff and emit --names read the same names."""
    other = "grouped_conv_fwd_fp16_nhwgc_1d_compv3_cshuffle_intrawave_16x64x128_1x4x1_16x16x32"
    text = f"\ufeff# heading\r\n{GOOD}   # a comment\r\n\r\n  {other}#tight\r\n".encode("utf-8")
    names = tmp_path / "names.txt"
    names.write_bytes(text)
    code, out, err = run(capsys, "check", "-a", "gfx942", str(names), "--format", "jsonl")
    assert code == 0 and [json.loads(ln)["name"] for ln in out.splitlines()] == [GOOD, other], err
    code, out, err = run(capsys, "diff", str(names), str(names), "-a", "gfx942")
    assert code == 0 and out.splitlines()[-1] == "total: only in names.txt: 0, only in names.txt: 0, common: 2", err
    code, out, err = run(capsys, "emit", "-a", "gfx942", "--names", str(names), "--out", str(tmp_path / "o"))
    assert code == 0 and sorted(p.stem for p in (tmp_path / "o").glob("grouped_conv_*.hpp")) == sorted([GOOD, other])


def test_check_reports_every_line_then_exits_2_if_one_is_not_a_kernel_name(capsys, tmp_path):
    """One rule for check and explain: not a kernel name is bad input (exit 2), an invalid kernel exit 1."""
    lds = LDS  # an LDS overflow on gfx942
    names = tmp_path / "n.txt"
    names.write_text(f"{GOOD}\n{lds}\n")
    code, out, err = run(capsys, "check", "-a", "gfx942", str(names))
    assert code == 1 and err == "" and out.count("invalid") == 1, (out, err)
    names.write_text(f"{GOOD}\nfoo\n{lds}\n{GOOD.replace('_fp16_', '_fp8_')}\n")
    code, out, err = run(capsys, "check", "-a", "gfx942", "--format", "jsonl", str(names))
    records = [json.loads(ln) for ln in out.splitlines()]
    assert [r["valid"] for r in records] == [True, False, False, False], "every line is reported"
    assert [r["violations"][0]["constraint"] for r in records[1:]] == ["parse", "arch.lds_capacity", "parse"]
    assert code == 2 and err == f"cksolve: error: {names}:2: not a kernel name: 'foo' (and 1 more such line)\n", err


def test_integral_json_numbers_are_integers(capsys, tmp_path):
    problems = tmp_path / "p.jsonl"
    problems.write_text('{"N": 4.0, "G": 1, "C": 64, "K": 64.0, "Hi": 28, "Wi": 28}\n')
    from cksolve.workload import parse_problem, read_problems

    assert read_problems(problems) == [parse_problem("N=4,G=1,C=64,K=64,Hi=28,Wi=28")]
    code, out, err = run(capsys, "coverage", "--problems", str(problems), "-r", "tiny", "-a", "gfx942",
                         "--dtype", "fp16")
    assert code == 0, err


def test_check_reads_stdin_as_utf8_bytes(capsys, monkeypatch):
    code, out, _ = run(capsys, "check", "-a", "gfx942", "-", stdin=f"{GOOD}\r\n".encode(), monkeypatch=monkeypatch)
    assert code == 0 and out == f"{GOOD}: valid\n"
    code, out, err = run(capsys, "check", "-a", "gfx942", "-", stdin=b"\xff\n", monkeypatch=monkeypatch)
    assert code == 2 and err == "cksolve: error: stdin:1: not UTF-8 text (byte 0xff at offset 0)\n"


@pytest.mark.slow
def test_a_non_ascii_name_is_invalid_not_a_crash_under_an_ascii_locale(tmp_path):
    names = tmp_path / "n.txt"
    names.write_text("gr\u00f6uped\n", encoding="utf-8")
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    proc = subprocess.run([sys.executable, "-m", "cksolve", "check", "-a", "gfx942", str(names)],
                          capture_output=True, env=env)
    assert proc.returncode == 2 and proc.stdout == b"gr\\xf6uped: invalid\n  - parse: not a grouped-conv kernel name: " \
                                                   b"'gr\\xf6uped'\n", proc.stderr
    assert proc.stderr == f"cksolve: error: {names}:1: not a kernel name: 'gr\\xf6uped'\n".encode(), proc.stderr
    proc = subprocess.run([sys.executable, "-m", "cksolve", "diff", str(names), "default"], capture_output=True, env=env)
    assert proc.returncode == 2 and proc.stderr.startswith(b"cksolve: error: ") and b"Traceback" not in proc.stderr


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_stdout_full_or_closed_is_one_line():
    root = Path(__file__).resolve().parents[1]
    for argv in (["enumerate", "-r", "tiny"], ["count", "-r", "tiny"], ["check", "-a", "gfx942", "-"]):
        with open("/dev/full", "wb") as full:
            proc = subprocess.run([sys.executable, "-m", "cksolve", *argv], stdout=full, stderr=subprocess.PIPE,
                                  input=f"{GOOD}\n".encode(), cwd=root)
        assert proc.returncode == 2 and proc.stderr == b"cksolve: error: cannot write output: No space left on device\n"
    proc = subprocess.run([sys.executable, "-m", "cksolve", "count", "-r", "tiny"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, cwd=root, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2 and proc.stderr == b"cksolve: error: cannot write output: stdout is closed\n"



@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_output_into_a_fifo_or_device_writes_into_it_never_replaces_it(capsys, tmp_path):
    """``-o /dev/null``, ``-o /dev/full``, ``-o a-fifo``: a temporary renamed over the path would replace the
    node with a regular file (as root, /dev/null itself). The output goes into it, as a shell redirection."""
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, out, err = run(capsys, "enumerate", "-r", "tiny", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                         "--ndim", "2", "-o", str(fifo))
    reader.join(10)
    assert code == 0 and out == "", err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert got and len(got[0].decode().splitlines()) == 10, got


# --- count without configs ----------------------------------------------------------------


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.encode("unicode_escape").decode().replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"


@pytest.mark.slow
def test_count_of_a_file_with_no_base_equals_brute_force(capsys, tmp_path):
    """No base, every GEMM axis pinned but tile_k, the vectors and the pads: count equals checking each config."""
    from itertools import product

    from cksolve.solver.questions.evaluate import evaluate
    from cksolve.space.axes import AXES
    from cksolve.space.config import KernelConfig

    pins = {"layout": "nhwgc", "tile_m": 128, "tile_n": 128, "wave_m": 2, "wave_n": 2, "wave_k": 1,
            "warp_tile_m": 32, "warp_tile_n": 32, "warp_tile_k": 16, "pipeline": "compv3", "epilogue": "cshuffle",
            "scheduler": "intrawave", "double_smem_buffer": False, "groups_to_merge": 1, "wave_groups": 1,
            "split_image": False, "explicit_gemm": False, "two_stage": False, "specialization": "default",
            "streamk": False, "streamk_strategy": "tree", "streamk_persistent": False}
    rule_set = tmp_path / "free.toml"
    rule_set.write_text("[pin]\n" + "".join(f"{k} = [{_toml(v)}]\n" for k, v in pins.items()))
    code, out, err = run(capsys, "count", "-r", str(rule_set), "-a", "gfx942", "--variant", "forward",
                         "--dtype", "fp16", "--ndim", "2")
    free = ["tile_k", "vector_a", "vector_b", "vector_c", "pad_m", "pad_n", "pad_k"]
    brute = sum(evaluate(KernelConfig(variant="forward", dtype="fp16", ndim=2, **pins, **dict(zip(free, values))),
                         "gfx942").valid
                for values in product(*(AXES[a].domain for a in free)))
    assert code == 0 and brute > 0 and int(out) == brute, (out, brute, err)


@pytest.mark.parametrize("rule_set", ["default", "full", "tiny"])
def test_the_counting_join_agrees_with_the_listing_join(monkeypatch, rule_set):
    """Force components through ``counting.count_join`` (a row bound of 3): same counts, same listing."""
    from cksolve import query
    from cksolve.solver.engine import direct

    selection = query.select(["gfx942", "gfx1100"], None, ["fp16"], None)
    rs = query.load_rule_set(rule_set)
    listed = query.count_records(rs, selection)
    names = [r.name for r in query.enumerate_records(rs, selection)]
    fresh_solves(monkeypatch)
    monkeypatch.setattr(direct, "ROW_LIMIT", 3)
    counted = query.count_records(rs, selection)
    assert any(c.counted is not None for s in direct._SOLVED.values() for c in s.components), "fallback not taken"
    differ = {combo.key: (listed[combo], counted[combo]) for combo in listed if listed[combo] != counted[combo]}
    assert not differ and sum(listed.values()) > 0, f"(listed, counted) differ: {differ}"
    # a counted component is joined after all when it is listed
    again = [r.name for r in query.enumerate_records(rs, selection)]
    assert again == names, f"first difference: {next(((a, b) for a, b in zip(names, again) if a != b), None)}"


@pytest.mark.slow
def test_count_of_a_file_pinning_only_the_pipeline_is_counted_not_listed(capsys, tmp_path):
    rule_set = tmp_path / "r.toml"
    rule_set.write_text('[pin]\npipeline = ["compv3"]\n')
    code, out, err = run(capsys, "count", "-r", str(rule_set), "-a", "gfx942", "--variant", "forward",
                         "--dtype", "fp16", "--ndim", "2")
    assert code == 0 and int(out) > 10**10, err  # 34,358,722,560


# --- fuzzing the three parsers through the CLI ------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

_PIECES = ["grouped_conv_", "fwd_", "bwd_data_", "fp16_", "nhwgc_", "2d_", "compv3_", "cshuffle_", "intrawave_",
           "16x64x64_", "1x4x1_", "16x16x16", "_vec8_8_8", "_dsb", "_pad000", "#", " ", "\r", "\t", "\ufeff",
           "\u0663", "9" * 50, "depthwise_", "\x00", "\xe9"]


def _cli(capsys, *argv) -> tuple[int, str]:
    try:
        code, _, err = run(capsys, *argv)
    except Exception as exc:  # noqa: BLE001 - the point: nothing may escape main
        pytest.fail(f"{argv[:3]}: {type(exc).__name__}: {exc}")
    assert code in (0, 1, 2) and "Traceback" not in err and err.count("\n") <= 1 + err.count("warning"), (argv, err)
    return code, err


@pytest.mark.slow
@FUZZ
@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=8)), max_size=30).map("".join)
       | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_fuzz_kernel_names(capsys, tmp_path, text):
    path = tmp_path / "names.txt"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    _cli(capsys, "check", "-a", "gfx942", str(path))
    _cli(capsys, "diff", str(path), "default", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "2")
    first = text.split("\n", 1)[0]
    if first and not first.startswith("-") and "\x00" not in first:
        _cli(capsys, "explain", first, "-a", "gfx942", "--nearest", "0")


_TOML_KEYS = ["description", "extends", "base", "kind", "pin", "table", "colour"]
_TOML_VALUES = st.recursive(
    st.one_of(st.integers(-3, 300), st.booleans(), st.sampled_from(["compv3", "default", "gemm", "tile_m", "64", ""]),
              st.text(max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(
        st.sampled_from(["tile_m", "pipeline", "scope", "rows", "forbid", "name", "x"]), inner, max_size=3)),
    max_leaves=12)


@pytest.mark.slow
@FUZZ
@given(st.dictionaries(st.sampled_from(_TOML_KEYS), _TOML_VALUES, max_size=4) | st.binary(max_size=120))
def test_fuzz_rule_set_files(capsys, tmp_path, doc):
    path = tmp_path / "r.toml"
    if isinstance(doc, bytes):
        path.write_bytes(doc)
    else:
        path.write_text("".join(f"{k} = {_toml(v)}\n" for k, v in doc.items()), encoding="utf-8")
    _cli(capsys, "count", "-r", str(path), "-a", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "1")


_CONF = CK / "builder-configs"
_ROOTS = itertools.count()


@pytest.mark.ck_data
@FUZZ
@given(st.lists(st.one_of(st.integers(-2, 300).map(str), st.sampled_from(["true", "Seq(4,64,1)", "Default", "Intrawave",
                                                                              "v3", "", "x"])), min_size=0, max_size=52),
       st.sampled_from(["DeviceGroupedConvFwdMultipleABD_Xdl_CShuffle_V3", "GroupedConvolutionForwardDepthwise",
                        "DeviceGroupedConvBwdWeight_Xdl_CShuffle", "Bogus"]))
def test_fuzz_conf_lines(capsys, tmp_path, args, head):
    root = tmp_path / f"bc{next(_ROOTS)}"  # a fresh root: loaded rule sets are cached per root
    (root / "forward" / "tests").mkdir(parents=True)
    line = f"{head}<{','.join(args)}>\n"
    (root / "forward" / "tests" / "nhwgc_fp16.conf").write_text(line)
    (root / "forward" / "tests" / "ngchw_depthwise.conf").write_text(line)
    _cli(capsys, "count", "-r", "tests", "--builder-configs", str(root), "-a", "gfx942", "--variant", "forward",
         "--dtype", "fp16", "--ndim", "2")


def test_a_component_too_large_to_join_is_listed_from_its_tree(capsys, monkeypatch):
    """A component only counted (its join passed the bound) is listed by walking its solution tree, never
    joined: the same names as the joined listing (it used to be refused past LIST_LIMIT)."""
    from cksolve.solver.engine import direct

    args = ("enumerate", "-r", "default", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "2")
    code, want, _ = run(capsys, *args)
    fresh_solves(monkeypatch)
    monkeypatch.setattr(direct, "ROW_LIMIT", 3)
    monkeypatch.setattr(direct, "LIST_LIMIT", 3)
    code, out, err = run(capsys, *args)
    assert any(c.counted is not None for s in direct._SOLVED.values() for c in s.components), "path not taken"
    assert (code, err) == (0, "") and out == want and want.count("\n") > 5


def test_a_file_that_leaves_depthwise_kernels_free_says_so(capsys, tmp_path):
    path = tmp_path / "r.toml"
    path.write_text('[pin]\npipeline = ["compv3"]\n')
    code, out, err = run(capsys, "count", "-r", str(path), "-a", "gfx942", "--variant", "forward_depthwise")
    assert code == 0 and int(out) > 0 and err == (
        f"cksolve: warning: {path}: nothing here constrains depthwise kernels and nothing is extended, so every "
        'depthwise kernel valid for the arch is in this set; add kind = "gemm" to drop them\n')
    path.write_text('kind = "gemm"\n[pin]\npipeline = ["compv3"]\n')
    code, out, err = run(capsys, "count", "-r", str(path), "-a", "gfx942", "--variant", "forward_depthwise")
    assert (code, out, err) == (0, "0\n", "")
