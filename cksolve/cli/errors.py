"""Exit-code plumbing: every user error one line and exit 2, a closed pipe exit 0, an interrupt 130.

Bad input never produces a traceback. Typer's usage errors, the library's
``CksolveError`` (worded for the command line: the flag named, ``for_flag``)
and an output that cannot be written all end the same way; stdout is flushed
here, inside the handlers, so a full disk is a line and not a traceback at exit.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

from typer.exceptions import Abort, Exit, TyperException

from ..errors import CksolveError, shorten

__all__ = ["run_command"]


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


def _finish_output() -> None:
    """Flush stdout inside ``main`` so that a full disk (/dev/full) is an error line, not a traceback at exit."""
    if sys.stdout is None:
        raise CksolveError("cannot write output: stdout is closed")
    sys.stdout.flush()


def _output_error(exc: OSError) -> str:
    if exc.filename is not None:  # not stdout: a file the library did not wrap
        return f"{shorten(str(exc.filename), quote=False)}: {exc.strerror or exc}"
    return f"cannot write output: {exc.strerror or exc}"


def run_command(command, argv: list[str]) -> None:
    """Run the click command on ``argv`` and exit: 0, the command's code, 2 with one line, 130 on an interrupt."""
    try:
        empty = _empty_option(command, argv)
        if empty is not None:
            raise CksolveError(f"empty value for {empty}")
        if sys.stdout is None:
            raise CksolveError("cannot write output: stdout is closed")
        if hasattr(sys.stdout, "reconfigure"):  # a non-UTF-8 locale escapes what it cannot print
            sys.stdout.reconfigure(errors="backslashreplace")
        rv = command.main(args=argv, prog_name="cksolve", standalone_mode=False)
        _finish_output()
    except Exit as exc:
        _exit_after_flush(exc.exit_code)
    except Abort:
        sys.stderr.write("cksolve: aborted\n")
        sys.exit(130)
    except TyperException as exc:  # usage errors: unknown option, missing argument, ...
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.stdout.write(exc.format_message() + "\n")
            sys.exit(0)
        sys.stderr.write(f"cksolve: error: {' '.join(exc.format_message().split())}\n")
        sys.exit(2)
    except CksolveError as exc:
        sys.stderr.write(f"cksolve: error: {' '.join(exc.for_flag().split())}\n")
        sys.exit(2)
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(0)
    except OSError as exc:  # stdout on a full disk, or closed under us
        _quiet_stdout()
        sys.stderr.write(f"cksolve: error: {_output_error(exc)}\n")
        sys.exit(2)
    except KeyboardInterrupt:
        sys.stderr.write("cksolve: interrupted\n")
        sys.exit(130)
    sys.exit(rv if isinstance(rv, int) else 0)


def _exit_after_flush(code: int) -> None:
    try:
        _finish_output()
    except (OSError, CksolveError) as exc:
        _quiet_stdout()
        message = _output_error(exc) if isinstance(exc, OSError) else str(exc)
        sys.stderr.write(f"cksolve: error: {message}\n")
        sys.exit(2)
    sys.exit(code)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's own flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
