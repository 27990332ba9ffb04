"""Names files over several architectures: the section line that says which arch the names after it are for.

``cksolve enumerate`` over several archs prints each arch's names after a
line ``# arch: gfx942``. To every reader of names files that line is a
comment (``#`` starts one), so a sectioned file is still a plain names file;
``check`` and ``emit --names`` read it as a section marker and check (or
emit) each name for its section's arch. Names before the first section line
belong to no arch in particular (the ``--arch`` given). The spelling lives
here only: the writer (``section_line``) and the reader (``section_arch``)
cannot drift apart.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from .naming import name_entries

__all__ = ["SECTION_PREFIX", "section_line", "section_arch", "sectioned_entries"]

#: what a section line starts with, before the arch
SECTION_PREFIX = "# arch: "

_SECTION = re.compile(r"\s*#\s*arch:\s*(\S+)\s*$")


def section_line(arch: str) -> str:
    """The line (without its end) that starts the names of ``arch``."""
    return f"{SECTION_PREFIX}{arch}"


def section_arch(line: str) -> str | None:
    """The arch a section line names, or None for any other line (white space around the parts is allowed)."""
    m = _SECTION.match(line)
    return m.group(1) if m else None


def sectioned_entries(numbered_lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str | None, str]]:
    """(line number, section arch or None, name) of a names file's (line number, line) pairs.

    Names are read as ``naming.name_entries`` reads them; a section line sets
    the arch of the names after it.
    """
    arch: list[str | None] = [None]

    def lines():
        for no, line in numbered_lines:
            if "#" in line and (found := section_arch(line)) is not None:
                arch[0] = found
                continue
            yield no, line

    for no, name in name_entries(lines()):
        yield no, arch[0], name
