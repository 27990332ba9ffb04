"""Devices (``devices.toml``): the parts of each arch, with the facts of each part (CUs, clock, matrix
FLOPs, bandwidth, LDS, registers), and each arch's default part -- the one place a device's numbers live.

An arch is an instruction set; a device is a product built on one (gfx942: MI300X with 304 CUs,
MI300A with 228, MI325X). What depends on the part (the performance model of ``cksolve.scoring``,
``minimize``'s analytic score) reads a device here; what CK's ML selector fixed per arch (its hardware
profile, the ``hw_*`` features) stays with the arch (``facts.toml`` ``hw_profile``).
"""

from __future__ import annotations

from typing import NamedTuple

from ..errors import CksolveError
from ..space.datafile import load
from ..space.memos import MEMOS

__all__ = ["Device", "device", "DEVICES", "DEFAULT_DEVICE"]

_NUM = (int, float)
_DEVICES = {"defaults": {"*": str},
            "device": {"*": {"arch": str, "cus": int, "clock_mhz": int, "matrix": {"*": int}, "hbm_tbps": _NUM,
                             "lds_kb": int, "simds": int, "waves_per_simd": int, "vgprs": int, "max_vgprs": int,
                             "source": str}}}


class Device(NamedTuple):
    name: str
    arch: str
    cus: int
    clock_mhz: int
    matrix: dict  # dtype -> dense matrix FLOPs per clock per CU
    hbm_tbps: float
    lds_kb: int
    simds: int
    waves_per_simd: int
    vgprs: int
    max_vgprs: int
    source: str


@MEMOS.cached("arch.devices._raw", maxsize=1)
def _raw() -> dict:
    return load(__package__, "devices.toml", _DEVICES)


DEVICES: tuple[str, ...] = tuple(_raw()["device"])
#: arch -> its default device
DEFAULT_DEVICE: dict = dict(_raw()["defaults"])


def device(arch: str, name: str | None = None) -> Device:
    """The device ``name`` (case-insensitive), or the arch's default; it must be a part of ``arch``."""
    table = _raw()["device"]
    if name is None:
        name = DEFAULT_DEVICE.get(arch)
        if name is None:
            raise CksolveError(f"arch {arch} has no default device (no public specification); valid {{opt:device}} "
                               f"values: {', '.join(DEVICES)}")
    found = next((k for k in table if k.lower() == name.lower()), None)
    if found is None:
        raise CksolveError(f"unknown {{opt:device}} {name!r}; valid: {', '.join(DEVICES)}")
    d = Device(found, **table[found])
    if d.arch != arch:
        raise CksolveError(f"{{opt:device}} {found} is a {d.arch} part, not {arch}")
    return d
