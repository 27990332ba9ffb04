"""The ``cksolve`` command: the typer app (``app``), the shared options (``options``), the exit-code
plumbing (``errors``) and one module per command family, each parsing options, calling a face
(``cksolve.query``, ``.workload``, ``.features``, ``.audit``, ``.explore``; ``cksolve.emit`` for emit) and printing.

Bad input never produces a traceback: every user error becomes one line on
stderr and exit code 2. Output files are written whole or not at all
(``cksolve.outputs``).
"""

from __future__ import annotations

import copy
import gc
import os
import sys
from typing import Optional

import typer

from .app import app
from .commands import CK_COMMANDS, COMMANDS
from .errors import run_command
from .options import with_ck_options

__all__ = ["COMMANDS", "app", "load_families", "main", "run"]


def load_families(names=None) -> None:
    """Import the family modules of the commands ``names`` (all when None): importing one registers its commands.

    A process runs one command, so it builds that command's family alone: building every
    command's options (typer reads each signature) and importing what each family
    imports cost about 0.03 s of every run, measured on ``enumerate -r default``.
    """
    for name in COMMANDS if names is None else names:
        COMMANDS.get(name)  # imports the family module, which registers its commands
    for info in app.registered_commands:  # --ck and --arch-specs: one definition, every command that needs CK's facts
        if info.name in CK_COMMANDS:
            info.callback = with_ck_options(info.callback)
    for group in app.registered_groups:  # a group's commands: "names expand" is in CK_COMMANDS as "names"
        if group.name in CK_COMMANDS:
            for info in group.typer_instance.registered_commands:
                info.callback = with_ck_options(info.callback)
    order = COMMANDS.names()
    app.registered_commands.sort(key=lambda c: order.index(c.name) if c.name in order else len(order))


def _invoked(argv: list[str]) -> Optional[str]:
    """The command ``argv`` names, when the whole tree is not needed to run it.

    The global options are flags, so the command is the first word that is not
    one; help for the whole app, completion (the shell's words are in the
    environment) and an unknown word (the error lists the commands) need the whole tree.
    """
    if any(k.startswith(("_CKSOLVE_COMPLETE", "_TYPER_COMPLETE")) for k in os.environ):
        return None
    for word in argv:
        if word == "--help":  # the app's help, eager: it shows every command, whatever follows
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


#: options of every command in ``CK_COMMANDS`` that may also come before the command's name
_CK_GLOBALS = ("--ck", "--arch-specs")


def _ck_first(argv: list[str]) -> list[str]:
    """``argv`` with a ``--ck REF`` / ``--arch-specs FILE`` given before the command's name moved just after it
    (``cksolve --ck 60b27664 count ...``; a group's: after its command's, ``names expand``): they are the
    command's options; one after the name still wins."""
    moved, rest = [], []
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        word = argv[i]
        if word in _CK_GLOBALS and i + 1 < len(argv):
            moved += argv[i:i + 2]
            i += 2
            continue
        if word.partition("=")[0] in _CK_GLOBALS:
            moved.append(word)
        else:
            rest.append(word)
        i += 1
    if not moved or i >= len(argv) or argv[i] not in CK_COMMANDS:
        return argv  # no such option, or a command without it: click's own line names it
    at = i + 1  # after the command's name; a group's options are its commands' (names expand)
    if COMMANDS.info(argv[i])["group"] and at < len(argv) and not argv[at].startswith("-"):
        at += 1
    return [*rest, *argv[i:at], *moved, *argv[at:]]


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning every user error into one line and exit 2."""
    argv = _ck_first(sys.argv[1:] if argv is None else list(argv))
    name = _invoked(argv)
    load_families(None if name is None else [name])
    run_command(typer.main.get_command(app if name is None else _only(name)), argv)


def _only(name: str) -> typer.Typer:
    """The app with ``name`` its only command (a copy: ``app`` keeps every command it registered): typer reads
    the signature of each command it builds, and the family's other commands are never reached
    (``enumerate -r full``: 16 M of its 1,807 M instructions, measured)."""
    only = copy.copy(app)
    only.registered_commands = [c for c in app.registered_commands if c.name == name]
    return only


def run() -> None:
    """The ``cksolve`` process: one command, then exit -- with the cyclic garbage collector off.

    What a command builds (tables, solutions, configs, names) is acyclic and
    lives until the process ends, so collections only walk it: measured, they
    cost 0.03-0.1 s of CPU in ``enumerate`` of full, full-tests and tiny,
    and peak memory is the same without them for enumerate, emit and minimize.
    :func:`main`, which tests and other long-lived callers use, leaves the
    collector alone.
    """
    gc.disable()
    main()
