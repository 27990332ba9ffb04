"""Every example of README.md and docs/*.md runs, and prints what the doc shows (the rules: docs/README.md).

A doc's examples share one workspace: a directory holding the doc's files (the blocks introduced by
"File `NAME`:") with ``../shared`` beside it, so the commands read exactly as a reader types them from a
checkout. Shell commands go through bash with this environment's ``cksolve`` first on PATH; Python blocks
run in this process (the imports are paid once) with the workspace as the current directory.
"""

from __future__ import annotations

import difflib
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SHARED
from doc_examples import all_docs, output_pattern

DOCS = {d.name: d for d in all_docs()}
EXAMPLES = [b for d in DOCS.values() for b in d.examples]
BIN = str(Path(sys.executable).parent)


def _param(block):
    marks = [pytest.mark.slow] if block.slow else []
    if block.needs_ck:
        marks.append(pytest.mark.ck_data)
    return pytest.param(block, id=block.id, marks=marks)


class Workspace:
    def __init__(self, root: Path, doc):
        self.dir = root / "work"
        self.dir.mkdir(parents=True)
        (root / "shared").symlink_to(SHARED, target_is_directory=True)
        for name, body in doc.files.items():
            (self.dir / name).write_text(body, encoding="utf-8")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("CKSOLVE_")}
        self.env["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"

    def run(self, text: str) -> tuple[int, str]:
        if text.startswith("export "):
            for assignment in shlex.split(text, comments=True)[1:]:
                key, _, value = assignment.partition("=")
                self.env[key] = value
            return 0, ""
        proc = subprocess.run(["bash", "-c", text], cwd=self.dir, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600)
        return proc.returncode, "".join(f"{line.rstrip()}\n" for line in proc.stdout.splitlines())


@pytest.fixture(scope="session")
def workspaces(tmp_path_factory):
    made: dict[str, Workspace] = {}

    def get(block) -> Workspace:
        if block.doc not in made:
            made[block.doc] = Workspace(tmp_path_factory.mktemp(block.doc.replace("/", "_")), DOCS[block.doc])
        return made[block.doc]

    return get


@pytest.mark.parametrize("block", [_param(b) for b in EXAMPLES])
def test_example_runs_as_shown(block, workspaces, monkeypatch, capsys):
    if block.not_run:
        pytest.skip(f"{block.id} is marked not run: {block.not_run}")
    ws = workspaces(block)
    if block.lang == "python":
        monkeypatch.chdir(ws.dir)
        code = compile("\n" * block.line + block.body, block.doc, "exec")
        capsys.readouterr()
        exec(code, {"__name__": "__docs__"})
        out = "".join(f"{line.rstrip()}\n" for line in capsys.readouterr().out.splitlines())
        if block.shown is not None:
            _compare(f"{block.id} (python)", block.shown, out)
        return
    for command in block.commands():
        code, out = ws.run(command.text)
        where = f"{block.doc}:{command.line}: $ {command.text}"
        assert "Traceback" not in out, f"{where}\n{out}"
        assert code == command.exit_code, f"{where}\nexit {code}, the doc says {command.exit_code}\n{out[-3000:]}"
        if command.output is not None:
            _compare(where, command.output, out)


def _compare(where: str, shown: tuple[str, ...], out: str) -> None:
    if not output_pattern(shown).fullmatch(out):
        diff = "\n".join(difflib.unified_diff(list(shown), out.splitlines(), "doc", "run", lineterm=""))
        pytest.fail(f"{where}\nthe output differs from the doc's:\n{diff[:4000]}")


def test_every_command_is_in_a_labelled_block():
    """A ``$ cksolve`` outside a fenced block, or in a block without a language, would never run."""
    problems = [p for d in DOCS.values() for p in d.unfenced]
    assert not problems, "\n".join(problems)


def test_examples_that_do_not_run_are_few_and_say_why():
    skipped = [f"{b.id}: {b.not_run}" for b in EXAMPLES if b.not_run]
    assert len(skipped) <= len(EXAMPLES) // 5, "\n".join(skipped)
    print(f"{len(skipped)} of {len(EXAMPLES)} doc examples are not run:", *skipped, sep="\n  ")


def test_elisions_stand_for_what_the_rules_say_and_no_more():
    lines = output_pattern(("first", "...", "last"))
    assert lines.fullmatch("first\nlast\n") and lines.fullmatch("first\na\nb\nlast\n")
    assert not lines.fullmatch("first\nlast\nmore\n") and not lines.fullmatch("frist\nlast\n")
    inline = output_pattern(("in ... s -> out",))
    assert inline.fullmatch("in 0.28 s -> out\n") and not inline.fullmatch("in 0.28 s -> out\nextra\n")
    assert not inline.fullmatch("in 1\n2 s -> out\n"), "an in-line elision never spans lines"
