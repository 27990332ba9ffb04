"""The ``cksolve`` console entry point: a quiet, prompt exit on SIGINT / SIGTERM from the first moment.

The handlers are set before the CLI (typer, rich, OR-Tools) is even imported,
so an interrupt at any moment ends the command with one line on stderr and
exit 128 + signal, never a traceback. The handler exits on the spot rather
than raising (an exception raised inside the import of a C extension becomes
an ImportError and a traceback); the only thing such an exit could leave is an
output's temporary, which it removes first (``cksolve.outputs``). ``emit``
installs its own handlers while it writes (``cksolve.emit.interrupt``).
"""

import _signal  # the C module, loaded by the interpreter itself: the handlers go in before any other import

_NAMES = {_signal.SIGINT: "SIGINT", _signal.SIGTERM: "SIGTERM"}


def _stop(signum, frame):
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # one line, however many Ctrl-C follow
    _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
    import os  # deferred: loaded already by the interpreter; here so that nothing precedes the handlers
    import sys  # deferred: as os above

    files = sys.modules.get("cksolve.outputs")  # never import in a handler: it may run inside an import
    if files is not None:
        files.remove_live_temporaries()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        os.write(2, f"cksolve: interrupted by {_NAMES.get(signum, signum)}\n".encode())
    except OSError:  # stderr closed (2>&-): the exit code still tells
        pass
    os._exit(128 + signum)


def install() -> None:
    """The quiet handlers for SIGINT and SIGTERM (done when this module is imported, and again by main)."""
    for s in _NAMES:
        _signal.signal(s, _stop)


install()  # at import: the console script and ``python -m cksolve`` import this module first

import gc  # noqa: E402  (after the handlers: an interrupt during these imports is already quiet)
import sys  # noqa: E402

__all__ = ["main", "install"]


def main() -> None:
    install()
    gc.disable()  # before the imports too: collections during them cost ~5 ms of every command, measured
    from .cli import run  # deferred: signal handlers first, then the command (cli.run says why the gc is off)

    try:
        run()
    finally:
        # the interpreter collects once more at exit, collector off or not, walking every object the
        # command built: frozen, they are skipped (14 ms of `enumerate -r default`'s 0.15 s, measured);
        # exit itself is unchanged (atexit, flushes, closes)
        gc.freeze()
