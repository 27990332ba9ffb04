"""The typer app: its name and help, the global options (``--strict``, ``--version``).

Every command family registers its commands on :data:`app` when ``cksolve.cli``
imports it (the invoked command's family only, or all of them for the whole help);
the exit-code plumbing around it is ``cli.errors``.
"""

from __future__ import annotations


import typer

from .. import __version__
from ..outputs import write_stdout
from .options import STRICT_ENV, set_strict

__all__ = ["app"]

app = typer.Typer(
    name="cksolve",
    help="Declarative configuration space for CK Tile grouped-convolution kernels.",
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(shown: bool) -> None:
    if shown:
        write_stdout(f"cksolve {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _global_options(
    strict: bool = typer.Option(False, "--strict", help="Errors instead of warnings for CK Builder .conf entries "
                                                        f"the Builder would drop (same as {STRICT_ENV}=1)."),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                 help="Print the version and exit."),
) -> None:
    """Declarative configuration space for CK Tile grouped-convolution kernels."""
    set_strict(strict)
