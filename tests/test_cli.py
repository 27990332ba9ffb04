"""The command line: machine formats, and bad input as one line with exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CK

from cksolve.cli import main

GOOD = "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_16x64x64_1x4x1_16x16x16"
LDS = "grouped_conv_fwd_fp16_nhwgc_2d_compv4_cshuffle_intrawave_16x64x256_1x4x1_16x16x32_dsb"


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io

        data = stdin if isinstance(stdin, bytes) else stdin.encode("utf-8")
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_enumerate_names_and_jsonl(capsys):
    code, out, _ = run(capsys, "enumerate", "--rule-set", "default", "--arch", "gfx942",
                       "--variant", "forward", "--dtype", "fp16", "--ndim", "2")
    assert code == 0
    names = out.split()
    assert GOOD in names and names == sorted(names) and len(names) == 11
    code, out, _ = run(capsys, "enumerate", "-r", "default", "-a", "gfx942", "--variant", "forward",
                       "--dtype", "fp16", "--ndim", "2", "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["name"] for r in records] == names
    assert {"rule_set", "arch", "variant", "dtype", "ndim", "name", "tile_m", "pipeline"} <= set(records[0])


@pytest.mark.parametrize("rule_set", ["default", "full", "tiny"])
def test_enumerate_names_listing_equals_the_records(capsys, rule_set):
    """The names listing (straight from the solver's name order) is the records' names, in their order."""
    from cksolve import query

    code, out, _ = run(capsys, "enumerate", "-r", rule_set, "-a", "gfx942,gfx1201")
    records = list(query.enumerate_records(query.load_rule_set(rule_set), query.select(["gfx942", "gfx1201"])))
    want = [line for arch in ("gfx942", "gfx1201")
            for line in [f"# arch: {arch}"] + [r.name for r in records if r.combo.arch == arch]]
    assert code == 0 and records and out.splitlines() == want
    assert [line for line in want if not line.startswith("#")] == [r.name for r in records]  # arch-major


def test_enumerate_csv_and_output_file(capsys, tmp_path):
    target = tmp_path / "out.csv"
    code, out, _ = run(capsys, "enumerate", "-r", "default", "-a", "gfx90a", "--variant", "bwd_weight",
                       "--dtype", "fp32", "--ndim", "3", "--format", "csv", "--output", str(target))
    assert code == 0 and out == ""
    lines = target.read_text().splitlines()
    assert lines[0].startswith("rule_set,arch,variant") and len(lines) == 1 + 12


def test_count_json_by_arch(capsys):
    code, out, _ = run(capsys, "count", "-r", "default", "--arch", "gfx942,gfx950", "--by", "arch", "--format", "json")
    payload = json.loads(out)
    assert code == 0 and payload["total"] == sum(g["count"] for g in payload["groups"])
    assert [g["arch"] for g in payload["groups"]] == ["gfx942", "gfx950"]
    assert payload["groups"][0]["count"] == 417


def test_check_exit_codes_and_jsonl(capsys, tmp_path, monkeypatch):
    names = tmp_path / "names.txt"
    names.write_text(f"{GOOD}\n{LDS}\nnot_a_kernel\n")
    code, out, _ = run(capsys, "check", "--arch", "gfx942", "--format", "jsonl", str(names))
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 2  # a line that is not a kernel name is bad input, after every line is reported
    assert [r["valid"] for r in records] == [True, False, False]
    assert records[1]["violations"][0]["constraint"] == "arch.lds_capacity"
    assert records[2]["violations"][0]["constraint"] == "parse"
    code, out, _ = run(capsys, "check", "--arch", "gfx942", "-", stdin=f"{GOOD}\n", monkeypatch=monkeypatch)
    assert code == 0 and "valid" in out


def test_explain_names_constraint_and_neighbours(capsys):
    code, out, _ = run(capsys, "explain", LDS, "--arch", "gfx942")
    assert code == 1  # invalid, as check says
    assert "LDS capacity exceeded: 40960 bytes > 32768" in out and "arch.lds_capacity" in out
    assert "Nearest valid configs" in out


def test_explain_exit_code_follows_check(capsys, tmp_path):
    """explain exits 1 exactly where check would: invalid, or not in the rule set asked about."""
    names = tmp_path / "names.txt"
    for name, rule_set, want in ((GOOD, None, 0), (LDS, None, 1), (GOOD, "tiny", 1), (GOOD, "default", 0)):
        extra = ["--rule-set", rule_set] if rule_set else []
        code, out, _ = run(capsys, "explain", name, "--arch", "gfx942", "--nearest", "0", *extra)
        names.write_text(name + "\n")
        check_code, _, _ = run(capsys, "check", "--arch", "gfx942", str(names), *extra)
        assert (code, check_code) == (want, want), (name, rule_set, out)


def test_rule_sets_and_archs_list(capsys):
    code, out, _ = run(capsys, "rule-sets")
    assert code == 0 and out.startswith("default")
    code, out, _ = run(capsys, "archs", "--format", "json")
    archs = [a["arch"] for a in json.loads(out)["archs"]]
    assert archs == ["gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1200", "gfx1201", "gfx1250"]


def test_diff_of_rule_set_and_names_file(capsys, tmp_path):
    names = tmp_path / "some.txt"
    names.write_text(GOOD + "\n")
    code, out, _ = run(capsys, "diff", "default", str(names), "--arch", "gfx942", "--variant", "forward",
                       "--dtype", "fp16", "--ndim", "2")
    assert code == 0
    assert "gfx942/forward/fp16/2d: only in default: 10, only in some.txt: 0, common: 1" in out
    assert "only in default: 3 configs with pipeline=compv4" in out


BAD_INPUTS = [
    (["enumerate", "--rule-set", "nonesuch"], "unknown rule set 'nonesuch'"),
    (["enumerate", "--rule-set", "default", "--arch", "gfx000"], "unknown arch 'gfx000'"),
    (["enumerate", "--rule-set", "default", "--variant", "sideways"], "unknown variant 'sideways'"),
    (["enumerate", "--rule-set", "default", "--dtype", "fp8"], "unknown dtype 'fp8'"),
    (["enumerate", "--rule-set", "default", "--ndim", "4"], "unknown ndim '4'"),
    (["count", "--rule-set", "default", "--by", "colour"], "unknown --by field 'colour'"),
    (["enumerate", "--rule-set", "missing-file.toml"], "cannot read missing-file.toml: No such file"),
    (["check", "--arch", "gfx942", "no/such/names.txt"], "cannot read no/such/names.txt"),
    (["enumerate"], "Missing option"),
]


@pytest.mark.parametrize("argv, message", BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err and out == ""


def test_malformed_rule_set_file(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("pin = [\n")
    code, _, err = run(capsys, "enumerate", "--rule-set", str(bad))
    assert code == 2 and err.count("\n") == 1 and "malformed rule-set file" in err
    bad.write_text('[pin]\ncolour = ["red"]\n')
    code, _, err = run(capsys, "enumerate", "--rule-set", str(bad))
    assert code == 2 and "unknown axis 'colour'" in err


def test_rule_set_file_narrows_its_base(capsys, tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('base = "default"\n[pin]\npipeline = ["compv4"]\n')
    code, out, _ = run(capsys, "enumerate", "--rule-set", str(mine), "--arch", "gfx942", "--variant", "forward",
                       "--dtype", "fp16", "--ndim", "2")
    assert code == 0 and len(out.split()) == 3 and all("compv4" in n for n in out.split())


def test_unwritable_output_leaves_nothing(capsys, tmp_path):
    target = tmp_path / "missing-dir" / "out.txt"
    code, _, err = run(capsys, "enumerate", "-r", "default", "-a", "gfx942", "--output", str(target))
    assert code == 2 and err.startswith("cksolve: error: cannot write") and err.count("\n") == 1
    assert not target.parent.exists()


def _cksolve(seed: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    """``python -m cksolve ARGS`` in a fresh process with PYTHONHASHSEED=seed."""
    return subprocess.run([sys.executable, "-m", "cksolve", *args], capture_output=True,
                          env=dict(os.environ, PYTHONHASHSEED=seed), cwd=Path(__file__).resolve().parents[1], **kwargs)


def test_console_script_reports_errors_without_traceback():
    proc = _cksolve("123", "enumerate", "--rule-set", "default", "--arch", "bogus", text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_output_is_byte_identical_across_hash_seeds():
    outs = set()
    for seed in ("0", "1", "4242"):
        outs.add(_cksolve(seed, "enumerate", "--rule-set", "default", "--format", "jsonl", check=True).stdout)
    assert len(outs) == 1 and len(next(iter(outs))) > 1000


def test_diff_of_a_rule_set_and_its_subset_breaks_down_by_feature(capsys):
    code, out, _ = run(capsys, "diff", "full", "full-tests", "--arch", "gfx942", "--variant", "forward",
                       "--dtype", "fp16", "--ndim", "2")
    assert code == 0
    head = out.splitlines()[0]
    assert head.startswith("gfx942/forward/fp16/2d: only in full: ") and "only in full-tests: 0" in head
    assert "configs with pipeline=" in out and "configs with specialization=" in out
    code, out, _ = run(capsys, "diff", "full", "full-tests", "--arch", "gfx942", "--variant", "forward",
                       "--dtype", "fp16", "--ndim", "2", "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert records and all(r["only_in"] == "a" and r["side"] == "full" for r in records)


@pytest.mark.slow
def test_tiny_is_byte_identical_across_hash_seeds():
    # tiny goes through the full rule set, set ordering and the minimum cover: all must be seed-free.
    outs = set()
    for seed in ("0", "977"):
        outs.add(_cksolve(seed, "enumerate", "--rule-set", "tiny", "--arch", "gfx942", "--format", "jsonl",
                          check=True).stdout)
    assert len(outs) == 1 and next(iter(outs)).count(b"\n") >= 100


def test_console_script_runs_without_the_cyclic_gc_and_main_leaves_it(monkeypatch, capsys):
    """``cksolve`` (cli.run) is one command per process: GC off; ``main`` in a longer process: untouched."""
    import gc

    import cksolve.cli as cli

    assert gc.isenabled()
    code, _, _ = run(capsys, "archs")
    assert code == 0 and gc.isenabled()
    seen = []
    monkeypatch.setattr(cli, "main", lambda: seen.append(gc.isenabled()))
    try:
        cli.run()
    finally:
        gc.enable()
    assert seen == [False]


COMMANDS = ("enumerate", "count", "check", "explain", "diff", "emit", "rule-sets", "archs", "applicable", "coverage",
            "minimize", "features", "pipeline-variants", "audit", "cmake-dir", "report", "train", "evaluate", "select",
            "plan", "calibrate")


@pytest.mark.parametrize("command", COMMANDS)
def test_help_lists_choices_from_the_registries_without_type_placeholders(capsys, command):
    from cksolve import query

    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    options = out.split("Options:", 1)[1]  # typer prints arguments' types; options carry metavars
    assert "<" not in options and "list[" not in options, options
    if "--rule-set" in options:
        assert all(name in " ".join(options.split()) for name in query.RULE_SETS), options
    if "--arch " in options or "--arch," in options:  # not --arch-specs
        assert all(a in options for a in query.BUNDLED_ARCHS), options


def test_the_command_table_names_the_family_that_registers_each_command_in_help_order():
    import cksolve.cli as cli
    from cksolve.cli.commands import family

    cli.load_families()
    registered = [(c.name, c.callback.__module__.rsplit(".", 1)[1]) for c in cli.app.registered_commands]
    groups = [(g.name, g.typer_instance.registered_commands[0].callback.__module__.rsplit(".", 1)[1])
              for g in cli.app.registered_groups]  # command groups (names expand) follow the commands
    assert registered + groups == [(name, family(name)) for name in cli.COMMANDS]


def test_a_command_builds_its_own_family_only_and_the_whole_help_every_family():
    """One command per process: building the other families' options is start-up time no command needs
    (space borrows listing's table of records)."""
    import cksolve.cli as cli
    from cksolve.cli.commands import family

    code = ("import sys\nfrom cksolve.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('cksolve.cli.')))")
    base = ["app", "commands", "completion", "errors", "options"]
    every = sorted({family(name) for name in cli.COMMANDS})
    for argv, families in ((["archs"], ["listing"]), (["--strict", "count", "-r", "default"], ["listing"]),
                           (["sample", "--help"], ["listing", "space"]), (["--help"], every),
                           (["--help", "count"], every), (["--strict", "--help", "sample"], every)):
        proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[-1] == repr(sorted(base + families)), (argv, proc.stdout.splitlines()[-1])


def test_a_command_builds_its_own_options_only_and_the_app_keeps_every_command(capsys, monkeypatch):
    """typer reads the signature of every command it builds: a process builds the one it runs (not its
    family's others), and the app itself is left whole, so a second command in the same process still runs."""
    import typer.main

    import cksolve.cli as cli

    built = []
    real = typer.main.get_command

    def spy(app):
        group = real(app)
        built.append(sorted(n for n in group.commands  # (groups stay)
                            if n in cli.COMMANDS and cli.COMMANDS.target(n).startswith("cksolve.cli.listing:")))
        return group

    monkeypatch.setattr(typer.main, "get_command", spy)
    assert run(capsys, "count", "-r", "default", "-a", "gfx942")[0] == 0
    assert run(capsys, "enumerate", "-r", "default", "-a", "gfx942", "--variant", "forward")[0] == 0
    assert built == [["count"], ["enumerate"]], built
    assert {"count", "enumerate", "neighbors", "rule-sets", "archs"} <= {c.name for c in cli.app.registered_commands}


def test_the_global_options_take_no_value_so_the_command_is_the_first_bare_word():
    """``cli._invoked`` finds the command as the first word without a dash: an app option taking a
    value (``cksolve --opt VALUE enumerate``) would make it read VALUE as the command."""
    from typer.main import get_command

    import cksolve.cli as cli

    params = get_command(cli.app).params
    assert params and all(p.is_flag for p in params), [(p.name, p.is_flag) for p in params]


def test_shell_completion_is_on():
    env = dict(os.environ, _CKSOLVE_COMPLETE="complete_bash", COMP_WORDS="cksolve enu", COMP_CWORD="1")
    proc = subprocess.run([sys.executable, "-c", "from cksolve.cli import main; main()"], capture_output=True,
                          text=True, env=env)
    assert proc.stdout.split() == ["enumerate"], proc.stdout + proc.stderr
    code = subprocess.run([sys.executable, "-m", "cksolve", "--help"], capture_output=True, text=True).stdout
    assert "--install-completion" in code


# --- stdout and stderr that cannot take the output -------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = CK / "workloads" / "validation_holdout.csv"
#: every command that writes a listing to stdout, in each of its writers
WRITERS = [
    *(["enumerate", "-r", "tiny", "-a", "gfx942", "--format", f] for f in ("names", "jsonl", "csv", "table")),
    ["count", "-r", "tiny", "--by", "arch"], ["archs", "--format", "json"], ["rule-sets"],
    ["diff", "default", "tiny", "-a", "gfx942", "--format", "jsonl"], ["pipeline-variants", "-a", "gfx942", "--variant", "forward", "--format", "csv"],
    ["features", "-r", "tiny", "-a", "gfx950", "--variant", "forward"], ["cmake-dir"],
]
WORKLOAD_WRITERS = [["coverage", "--problems", str(HOLDOUT), "-r", "tiny", "-a", "gfx942", "--format", "jsonl",
                     "--with-kernels"]]


def _process(argv, **kwargs):
    return subprocess.run([sys.executable, "-m", "cksolve", *argv], cwd=ROOT, **kwargs)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("argv", WRITERS + (WORKLOAD_WRITERS if HOLDOUT.is_file() else []), ids=" ".join)
def test_every_stdout_writer_reports_a_full_disk(argv):
    with open("/dev/full", "wb") as full:
        proc = _process(argv, stdout=full, stderr=subprocess.PIPE)
    assert (proc.returncode, proc.stderr) == (2, b"cksolve: error: cannot write output: No space left on device\n"), argv


def _closed_after_one_line(argv, stdin=None):
    """Run with stdout a pipe that the reader closes after the first line (``| head -1``)."""
    proc = subprocess.Popen([sys.executable, "-m", "cksolve", *argv], cwd=ROOT, stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=120), first, err


@pytest.mark.parametrize("valid", [True, False])
def test_check_into_a_closed_pipe_ends_quietly_with_exit_0(tmp_path, valid):
    """``check -a gfx942 many.txt | head -1``: exit 0 and nothing on stderr, as enumerate; the verdict is
    what the reader stopped reading (an invalid name among the rest does not make it 1)."""
    names = tmp_path / "many.txt"
    names.write_text(f"{GOOD}\n" * 3000 + ("" if valid else "not_a_kernel\n"))
    code, first, err = _closed_after_one_line(["check", "-a", "gfx942", str(names)])
    assert (code, err) == (0, b"") and first == f"{GOOD}: valid\n".encode()
    code, first, err = _closed_after_one_line(["check", "-a", "gfx942", "--format", "jsonl", str(names)])
    assert (code, err) == (0, b"") and json.loads(first)["name"] == GOOD


def test_enumerate_into_a_closed_pipe_ends_quietly_with_exit_0():
    code, first, err = _closed_after_one_line(["enumerate", "-r", "full", "-a", "gfx942"])
    assert (code, err) == (0, b"") and first.startswith(b"grouped_conv_")


@pytest.mark.parametrize("argv, code", [(["enumerate", "-r", "foo"], 2), (["count", "-r", "tiny", "--arch", ""], 2),
                                        (["enumerate", "--nope"], 2), (["count", "-r", "tiny"], 0),
                                        (["check", "-a", "gfx942", "-"], 2)])  # stdin is not a kernel name
def test_a_closed_stderr_changes_no_exit_code(argv, code):
    """``cksolve enumerate -r foo 2>&-`` exits 2 as with stderr open; the error line just has nowhere to go."""
    proc = _process(argv, input=b"not_a_kernel\n", stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(2))
    assert proc.returncode == code, argv


# --- --strict: a parameter from the command line's edge down, never an environment write ------------


@pytest.fixture
def damaged_builder_configs(tmp_path):
    """CK's builder configs with one ``.conf`` a dangling link: the Builder would skip it, cksolve warns."""
    import shutil

    source = CK / "builder-configs"
    if not source.is_dir():
        pytest.skip(f"needs {source} (CKSOLVE_SHARED)")
    root = tmp_path / "configs"
    shutil.copytree(source, root)
    conf = root / "forward" / "tests" / "nhwgc_fp16.conf"
    conf.unlink()
    conf.symlink_to(tmp_path / "gone.conf")
    return root


def test_strict_is_passed_down_and_leaves_the_environment_alone(capsys, monkeypatch, damaged_builder_configs):
    monkeypatch.delenv("CKSOLVE_STRICT", raising=False)
    argv = ["count", "-r", "tests", "--builder-configs", str(damaged_builder_configs), "-a", "gfx942"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and "cksolve: warning: " in err and "dangling symbolic link" in err
    code, out, err = run(capsys, "--strict", *argv)
    assert code == 2 and err.startswith("cksolve: error: ") and "dangling symbolic link" in err
    assert "CKSOLVE_STRICT" not in os.environ
    code, out, err = run(capsys, "--strict", "audit", *argv[1:])  # every command that loads a rule set
    assert code == 2 and "dangling symbolic link" in err
    code, out, err = run(capsys, *argv)  # the next run in the same process is not strict
    assert code == 0
    monkeypatch.setenv("CKSOLVE_STRICT", "1")  # still read at the command line's edge
    code, out, err = run(capsys, *argv)
    assert code == 2 and "dangling symbolic link" in err


# --- completion, suggestions, aliases, --version ---------------------------------------------------

COMPLETIONS = [
    ("cksolve enumerate --rule-set f", ["full", "full-tests"]),
    ("cksolve enumerate -r t", ["tests", "tiny"]),
    ("cksolve enumerate --rule-set sets/", ["sets/a.toml", "sets/deeper/"]),
    ("cksolve count -r tiny --arch gfx9", ["gfx908", "gfx90a", "gfx942", "gfx950"]),
    ("cksolve count -r tiny --arch gfx942,gfx9", ["gfx942,gfx908", "gfx942,gfx90a", "gfx942,gfx950"]),
    ("cksolve check -a gfx12", ["gfx1200", "gfx1201", "gfx1250"]),
    ("cksolve enumerate --variant f", ["forward", "forward_depthwise"]),
    ("cksolve enumerate --dtype ", ["fp16", "bf16", "fp32"]),
    ("cksolve enumerate --ndim ", ["1", "2", "3"]),
    ("cksolve enumerate --format j", ["jsonl"]),
    ("cksolve count --format ", ["table", "json"]),
    ("cksolve count --by arch,", ["arch,variant", "arch,dtype", "arch,ndim"]),
    ("cksolve audit --fail-on empty,d", ["empty,dead"]),
    ("cksolve features --semantics ", ["ck", "exact"]),
    ("cksolve applicable --dtype b", ["bf16"]),
    ("cksolve rule-sets --show d", ["default"]),
]


@pytest.mark.parametrize("words, expected", COMPLETIONS, ids=[w for w, _ in COMPLETIONS])
def test_completion_offers_the_closed_value_sets(tmp_path, words, expected):
    """As bash asks: the completion entry point with COMP_WORDS/COMP_CWORD, candidates one a line."""
    (tmp_path / "sets" / "deeper").mkdir(parents=True)
    (tmp_path / "sets" / "a.toml").write_text("")
    (tmp_path / "sets" / "notes.txt").write_text("")
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = dict(os.environ, _CKSOLVE_COMPLETE="complete_bash", COMP_WORDS=words, COMP_CWORD=str(cword),
               PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "cksolve"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.split() == expected, (proc.stdout, proc.stderr)


@pytest.mark.parametrize("argv, message", [
    (["count", "-r", "ful"], "did you mean 'full'?"),
    (["count", "-r", "tiny", "-a", "gfx94"], "did you mean 'gfx942'?"),
    (["count", "-r", "tiny", "--variant", "bwd_dat"], "did you mean 'bwd_data'?"),
    (["count", "-r", "tiny", "--dtype", "bf61"], "did you mean 'bf16'?"),
    (["count", "-r", "tiny", "--by", "dtpye"], "did you mean 'dtype'?"),
    (["count", "-r", "tiny", "--format", "jsno"], "did you mean 'json'?"),
    (["audit", "-r", "tiny", "--fail-on", "idel"], "did you mean 'idle'?"),
    (["features", "-r", "tiny", "-a", "gfx950", "--semantics", "exakt"], "did you mean 'exact'?"),
])
def test_a_close_miss_says_did_you_mean(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.startswith("cksolve: error: unknown ") and err.rstrip().endswith(message), err
    assert err.count("\n") == 1


def test_a_far_miss_suggests_nothing(capsys):
    code, _, err = run(capsys, "count", "-r", "tiny", "-a", "sparc")
    assert code == 2 and "did you mean" not in err


@pytest.mark.parametrize("alias, variant", [("fwd", "forward"), ("bwd-data", "bwd_data"), ("bwd_data", "bwd_data"),
                                            ("bwd-weight", "bwd_weight"), ("fwd_depthwise", "forward_depthwise"),
                                            ("forward-depthwise", "forward_depthwise")])
def test_variant_aliases_as_ck_spells_them(capsys, alias, variant):
    code, out, _ = run(capsys, "count", "-r", "default", "--variant", alias, "--by", "variant", "--format", "json")
    expected = run(capsys, "count", "-r", "default", "--variant", variant, "--by", "variant", "--format", "json")[1]
    assert code == 0 and out == expected and json.loads(out)["groups"][0]["variant"] == variant


def test_version(capsys):
    import cksolve

    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"cksolve {cksolve.__version__}\n")
