"""The examples of README.md and docs/*.md, read as the docs test runs them (docs/README.md states the rules).

Kept apart from the test module so that other tests (the CMake sample project, the faces' check) read the
docs' files and snippets the same way instead of parsing Markdown again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Fence languages the runner executes; every other fenced block is text (a file when introduced as one).
RUNNABLE = ("console", "sh", "bash", "python")
#: A block's first line that keeps it from running, with the reason (a comment in sh and Python alike).
NOT_RUN = re.compile(r"#\s*not run:\s*(.+)")
#: The line before a block (the end of a paragraph) that makes it a file of the doc's workspace.
FILE_LINE = re.compile(r"(?:.* )?File `([^`/]+)`(?: \(.*\))?:", re.S)
#: The (invisible) marker before a block that is too expensive for the fast tier.
SLOW_LINE = "<!-- docs-run: slow -->"
FENCE = re.compile(r"^```(\S*)\s*$")
#: The end of the paragraph before a block that shows what the python block before it prints.
PRINTS = "It prints:"
#: ``# exit N`` in a command's comment: the exit code it is documented to end with (0 otherwise).
EXIT = re.compile(r"#.*\bexit (\d+)")


@dataclass(frozen=True)
class Command:
    line: int          # 1-based line in the doc
    text: str          # what the shell runs (continuation lines joined)
    output: tuple[str, ...] | None = None   # console blocks: the lines shown after the prompt

    @property
    def exit_code(self) -> int:
        if self.output is not None and any(o.startswith("cksolve: error: ") for o in self.output):
            return 2
        m = EXIT.search(self.text)
        return int(m[1]) if m else 0


@dataclass(frozen=True)
class Block:
    doc: str           # path relative to the checkout
    line: int          # line of the opening fence
    lang: str
    body: str
    file: str | None = None       # introduced by "File `NAME`:"
    slow: bool = False
    not_run: str | None = None
    #: python blocks: what it prints, the block after a paragraph ending in "It prints:"
    shown: tuple[str, ...] | None = None

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"

    @property
    def needs_ck(self) -> bool:
        return "../shared" in self.body or "CKSOLVE_BUILDER_CONFIGS" in self.body

    def commands(self) -> list[Command]:
        """Console: ``$ `` lines and the output after each; sh: every line that is not blank or a comment."""
        out: list[Command] = []
        lines = self.body.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        i = 0
        while i < len(lines):
            start, text = i, lines[i]
            i += 1
            if self.lang == "console":
                if not text.startswith("$ "):
                    raise ValueError(f"{self.doc}:{self.line + 1 + start}: console output before any '$ ' prompt")
                text = text[2:]
            elif not text.strip() or text.lstrip().startswith("#"):
                continue
            while text.endswith("\\") and i < len(lines):
                text = text + "\n" + lines[i]
                i += 1
            output = None
            if self.lang == "console":
                first = i
                while i < len(lines) and not lines[i].startswith("$ "):
                    i += 1
                output = tuple(lines[first:i])
            out.append(Command(self.line + 1 + start, text, output))
        return out


@dataclass
class Doc:
    path: Path
    blocks: list[Block] = field(default_factory=list)
    #: problems of form: a "$ cksolve" outside a fenced block, an unlabelled block of commands
    unfenced: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.relative_to(ROOT).as_posix()

    @property
    def files(self) -> dict[str, str]:
        return {b.file: b.body for b in self.blocks if b.file}

    @property
    def examples(self) -> list[Block]:
        return [b for b in self.blocks if b.lang in RUNNABLE and not b.file]


def doc_paths() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def read_doc(path: Path) -> Doc:
    rel = path.relative_to(ROOT).as_posix()
    doc = Doc(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            stripped = lines[i].lstrip()
            if stripped.startswith("$ cksolve") or (lines[i].startswith("    cksolve ") and not lines[i - 1].strip()):
                doc.unfenced.append(f"{rel}:{i + 1}: a command outside a fenced console/sh block")
            i += 1
            continue
        start, lang = i, m[1]
        end = i + 1
        while end < len(lines) and lines[end] != "```":
            end += 1
        body = "\n".join(lines[start + 1:end]) + "\n"
        before = [ln for ln in lines[max(0, start - 4):start] if ln.strip()]
        name = FILE_LINE.fullmatch(before[-1].strip()) if before else None
        first = body.split("\n", 1)[0]
        not_run = NOT_RUN.fullmatch(first.strip())
        if not lang and first.startswith("$ "):
            doc.unfenced.append(f"{rel}:{start + 1}: a block of commands without a language (```console)")
        if before and before[-1].endswith(PRINTS):
            shown = tuple(body.split("\n")[:-1])
            python = [k for k, b in enumerate(doc.blocks) if b.lang == "python"]
            if not python:
                raise ValueError(f"{rel}:{start + 1}: output shown before any python block")
            doc.blocks[python[-1]] = replace(doc.blocks[python[-1]], shown=shown)
        else:
            doc.blocks.append(Block(rel, start + 1, lang, body, file=name[1] if name else None,
                                    slow=SLOW_LINE in before[-2:], not_run=not_run[1] if not_run else None))
        i = end + 1
    return doc


def all_docs() -> list[Doc]:
    return [read_doc(p) for p in doc_paths()]


def output_pattern(shown: tuple[str, ...]) -> re.Pattern:
    """A line ``...`` stands for any number of lines, ``...`` inside a line for any text (a path, a time)."""
    parts = []
    for line in shown:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in line.rstrip().split("...")) + r"\n")
    return re.compile("".join(parts))
