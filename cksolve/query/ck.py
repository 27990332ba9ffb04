"""Which CK version answers: resolve ``--ck REF`` / ``--arch-specs FILE`` once, and make it the active one.

Everything below (arch facts, rules, solves, names) follows the active version without being told;
``diff`` between versions opens each side's version itself (``RULE_SET@REF``).
"""

from __future__ import annotations

from pathlib import Path

from ..arch.specs_file import read_arch_specs
from ..arch.versions import CkVersion, activate, active, bundled, listing, resolve, using

__all__ = ["ck_version", "use_ck", "active_ck", "bundled_versions", "bundled_listing", "using_ck", "CkVersion"]


def ck_version(ref: str | None = None, arch_specs: str | Path | None = None) -> CkVersion:
    """The version ``ref`` names (a commit prefix, an alias, ``develop``; None: the newest bundled), or the
    one a CK ``arch_specs.json`` describes (it wins over ``ref``). CksolveError naming a bad ref or file."""
    if arch_specs is not None:
        return read_arch_specs(arch_specs)
    return resolve(ref)


def use_ck(ref: str | None = None, arch_specs: str | Path | None = None) -> CkVersion:
    """Resolve as :func:`ck_version` does and make it the version that answers from now on."""
    version = ck_version(ref, arch_specs)
    activate(version)
    return version


def active_ck() -> CkVersion:
    """The version that answers now (the newest bundled unless one was chosen)."""
    return active()


def bundled_versions() -> tuple[CkVersion, ...]:
    """The bundled versions, oldest first."""
    return bundled()


def bundled_listing() -> str:
    """The bundled versions with their aliases, as ``--ck``'s help names them: ``60b27664 (2026-06), ...``."""
    return listing()


using_ck = using
