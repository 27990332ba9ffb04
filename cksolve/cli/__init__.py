"""The ``cksolve`` command: the typer app (``app``), the shared options (``options``), the exit-code
plumbing (``errors``) and one module per command family, each parsing options, calling a face
(``cksolve.query``, ``.workload``, ``.features``, ``.audit``, ``.explore``; ``cksolve.emit`` for emit) and printing.

Bad input never produces a traceback: every user error becomes one line on
stderr and exit code 2. Output files are written whole or not at all
(``cksolve.outputs``).
"""

from __future__ import annotations

import gc
import sys
from typing import Optional

import typer

from . import audit, checking, diff, emit, features, listing, minimize, report, space, workloads  # noqa: F401  (they register)
from .app import app
from .errors import run_command

__all__ = ["app", "main", "run"]

#: the order ``cksolve --help`` lists the commands in (the families register in import order)
ORDER = ("enumerate", "count", "check", "explain", "diff", "emit", "cmake-dir", "rule-sets", "archs", "applicable",
         "coverage", "minimize", "features", "pipeline-variants", "audit", "sample", "search", "report")
app.registered_commands.sort(key=lambda c: ORDER.index(c.name) if c.name in ORDER else len(ORDER))


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning every user error into one line and exit 2."""
    command = typer.main.get_command(app)
    run_command(command, sys.argv[1:] if argv is None else list(argv))


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
