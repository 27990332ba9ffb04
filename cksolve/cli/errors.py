"""Exit-code plumbing: every user error one line and exit 2, a closed pipe exit 0, an interrupt 130.

A closed stderr (``2>&-``) changes nothing but the missing line: the exit
code is the same.

Bad input never produces a traceback. Typer's usage errors, the library's
``CksolveError`` (worded for the command line: the flag named, ``for_flag``)
and an output that cannot be written all end the same way; stdout is flushed
here, inside the handlers, so a full disk is a line and not a traceback at exit.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Optional

from typer.exceptions import Abort, Exit, TyperException

from ..errors import CksolveError, shorten
from ..outputs import StdoutClosed, flush_stdout, write_stdout

__all__ = ["run_command", "say", "to_stderr"]

#: library parameters whose flag is not ``--`` + the parameter's name
FLAGS = {"out_dir": "--out"}


def _empty_option(command, argv: list[str]) -> Optional[str]:
    """The first option given an empty value (``--out ''``, ``--arch=``): click would read it as
    "." or "everything", so it is refused before parsing."""
    commands = getattr(command, "commands", {})
    at = next((i for i, arg in enumerate(argv) if arg in commands), None)  # after global options (--strict)
    if at is None:
        return None
    takes = {o for p in commands[argv[at]].params if getattr(p, "opts", None) and not getattr(p, "is_flag", True)
             for o in p.opts + p.secondary_opts}
    for i, arg in enumerate(argv[at + 1:], at + 1):
        if arg == "--":
            return None
        name, eq, value = arg.partition("=")
        if eq and name in takes and not value:
            return name
        if arg in takes and i + 1 < len(argv) and argv[i + 1] == "":
            return arg
    return None


def to_stderr(text: str) -> None:
    """``text`` on stderr; nothing when stderr is closed (``2>&-``) or fails: the exit code still tells."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass


#: The longest run of characters without a space an error line keeps (a value, a path), and the longest line
#: (the rule: one line of about 200 characters); a longer line keeps its head and its tail (where the
#: did-you-mean and the way out are) around an ellipsis saying how much was cut.
RUN_CAP, LINE_CAP = 120, 400
_TAIL = 60
_RUN = re.compile(r"\S{%d,}" % (RUN_CAP + 1))


def capped(line: str) -> str:
    """``line`` cut to stay one readable line, whatever a command put in it: each run of more than
    ``RUN_CAP`` non-space characters (an echoed value or path) cut to ``RUN_CAP`` and its length, then the whole
    line to ``LINE_CAP`` characters, its head and its last ``_TAIL``. The one place every stderr line passes
    (``say``)."""
    line = _RUN.sub(lambda m: f"{m.group()[:RUN_CAP]}... ({len(m.group()):,} characters)", line)
    if len(line) > LINE_CAP:
        mark = ""
        for _ in range(2):  # the marker's length depends on the count it gives
            head = LINE_CAP - _TAIL - len(mark)
            mark = f" … ({len(line) - head - _TAIL:,} characters cut) … "
        head = LINE_CAP - _TAIL - len(mark)
        line = f"{line[:head]}{mark}{line[len(line) - _TAIL:]}"
    return line


def say(line: str) -> None:
    """One line on stderr, ``cksolve: `` first, capped (``capped``)."""
    to_stderr(f"cksolve: {capped(line)}\n")


def _fail(message: str, code: int = 2) -> None:
    say(message)
    sys.exit(code)


def _output_error(exc: OSError) -> str:
    if exc.filename is not None:  # not stdout: a file the library did not wrap
        return f"{shorten(str(exc.filename), quote=False)}: {exc.strerror or exc}"
    return f"cannot write output: {exc.strerror or exc}"


def run_command(command, argv: list[str]) -> None:
    """Run the click command on ``argv`` and exit: 0, the command's code, 2 with one line, 130 on an interrupt.

    stdout is flushed before the exit, inside these handlers: a full disk is a
    line and exit 2 whatever the command's own code, a closed pipe exit 0.
    """
    code = 0
    try:
        empty = _empty_option(command, argv)
        if empty is not None:
            raise CksolveError(f"empty value for {empty}")
        if sys.stdout is None:
            raise CksolveError("cannot write output: stdout is closed")
        if hasattr(sys.stdout, "reconfigure"):  # a non-UTF-8 locale escapes what it cannot print
            sys.stdout.reconfigure(errors="backslashreplace")
        try:
            rv = command.main(args=argv, prog_name="cksolve", standalone_mode=False)
            code = rv if isinstance(rv, int) else 0
        except Exit as exc:
            code = exc.exit_code
        flush_stdout()
    except Abort:
        _fail("aborted", 130)
    except TyperException as exc:  # usage errors: unknown option, missing argument, ...
        if type(exc).__name__ == "NoArgsIsHelpError":
            write_stdout(exc.format_message() + "\n", flush=True)
            sys.exit(0)
        _fail(f"error: {' '.join(exc.format_message().split())}")
    except CksolveError as exc:
        _quiet_stdout_on_failure()
        _fail(f"error: {' '.join(exc.for_flag(FLAGS).split())}")
    except (StdoutClosed, BrokenPipeError):
        _quiet_stdout()
        sys.exit(0)
    except OSError as exc:  # stdout on a full disk, or closed under us
        _quiet_stdout()
        _fail(f"error: {_output_error(exc)}")
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    sys.exit(code)


def _quiet_stdout_on_failure() -> None:
    """After an error, what stdout still holds must not fail the interpreter's flush at exit (a full disk)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        _quiet_stdout()


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's own flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
