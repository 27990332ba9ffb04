"""Every --arch says what it takes, in the same words: the arch names or a product name (MI300X), which every
--arch accepts (``options.arch_spellings``)."""

from __future__ import annotations

from typer.main import get_command

import cksolve.cli as cli


def _arch_options(command, path=()):
    for p in command.params:
        if "--arch" in getattr(p, "opts", ()):
            yield " ".join(path), p
    for name, sub in getattr(command, "commands", {}).items():
        yield from _arch_options(sub, (*path, name))


def test_every_arch_option_names_products():
    cli.load_families()
    found = dict(_arch_options(get_command(cli.app)))
    assert {"plan", "calibrate", "select", "evaluate", "count"} <= set(found), sorted(found)
    missing = sorted(name for name, p in found.items() if "product (MI300X)" not in (p.help or ""))
    assert not missing, missing
    assert all(p.callback is not None for p in found.values())
