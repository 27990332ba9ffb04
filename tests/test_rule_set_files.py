"""Rule-set files: docs/rule-set-files.md's examples, validation of every key, extends, kinds, counting free files."""

from __future__ import annotations

import re
import shlex
from math import prod
from pathlib import Path

import pytest

from conftest import CK
from test_cli import run

DOC = Path(__file__).resolve().parents[1] / "docs" / "rule-set-files.md"


def _doc_files_and_commands() -> tuple[dict[str, str], list[tuple[str, list[str]]]]:
    """The doc's files (a fenced block after "File `NAME`:") and its console examples (command, output lines)."""
    text = DOC.read_text(encoding="utf-8")
    files = {m[1]: m[2] for m in re.finditer(r"File `([^`]+)`:\n\n```\w*\n(.*?)```", text, re.S)}
    commands = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            line, *output = chunk.rstrip("\n").split("\n")
            commands.append((line, output))
    return files, commands


FILES, COMMANDS = _doc_files_and_commands()


def test_the_doc_has_the_three_worked_examples():
    assert {"compv3-256.toml", "site.toml", "zoo.toml", "kernels.txt"} <= set(FILES)
    assert len(COMMANDS) >= 8


@pytest.mark.parametrize("line, expected", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_doc_example_prints_what_the_doc_shows(capsys, tmp_path, monkeypatch, line, expected):
    for name, body in FILES.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("../shared", str(CK.parent)) for a in shlex.split(line)[1:]]
    code, out, err = run(capsys, *argv)
    got = [ln.rstrip() for ln in (out + err).splitlines()]
    assert got == [ln.rstrip() for ln in expected], f"{line}: doc and output differ"
    assert code == (2 if err else 0), (line, err)
