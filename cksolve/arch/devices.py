"""Devices (``devices.toml``): the parts of each arch, with the facts of each part (CUs, clock, matrix
FLOPs, bandwidth, LDS, registers), and each arch's default part -- the one place a device's numbers live.

An arch is an instruction set; a device is a product built on one (gfx942: MI300X with 304 CUs,
MI300A with 228, MI325X). What depends on the part (the performance model of ``cksolve.scoring``,
``minimize``'s padding score) reads a device here; what CK's ML selector fixed per arch (its hardware
profile, the ``hw_*`` features) stays with the arch (``facts.toml`` ``hw_profile``).
"""

from __future__ import annotations

from typing import NamedTuple

from ..errors import CksolveError, did_you_mean, shorten, valid_list
from ..space.datafile import load
from ..space.memos import MEMOS

__all__ = ["Device", "device", "DEVICES", "DEFAULT_DEVICE", "devices_of", "product_arch"]

_NUM = (int, float)
_DEVICES = {"defaults": {"*": str},
            "device": {"*": {"arch": str, "cus": int, "clock_mhz": int, "matrix": {"*": int}, "hbm_tbps": _NUM,
                             "lds_kb": int, "simds": int, "waves_per_simd": int, "vgprs": int, "max_vgprs": int,
                             "source": str, "stand_in?": bool}}}


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
    stand_in: bool = False  # not a product: made-up facts standing in for an arch without a public part


@MEMOS.cached("arch.devices._raw", maxsize=1)
def _raw() -> dict:
    return load(__package__, "devices.toml", _DEVICES)


DEVICES: tuple[str, ...] = tuple(_raw()["device"])
#: arch -> its default device
DEFAULT_DEVICE: dict = dict(_raw()["defaults"])


def devices_of(arch: str) -> tuple[str, ...]:
    """The devices of ``arch``, in ``devices.toml``'s order (its default among them)."""
    return tuple(name for name, d in _raw()["device"].items() if d["arch"] == arch)


def _devices_line(arch: str) -> str:
    names = devices_of(arch)
    return f"{arch}'s devices: {', '.join(names)}" if names else f"{arch} has no device in devices.toml"


def device(arch: str, name: str | None = None) -> Device:
    """The device ``name`` (case-insensitive), or the arch's default; it must be a part of ``arch``."""
    table = _raw()["device"]
    if name is None:
        name = DEFAULT_DEVICE.get(arch)
        if name is None:
            raise CksolveError(f"arch {arch} has no default device; valid {{opt:device}} values: {valid_list(DEVICES)}")
    found = next((k for k in table if k.lower() == name.lower()), None)
    if found is None:
        raise CksolveError(f"unknown {{opt:device}} {shorten(name)}; valid: {valid_list(DEVICES)}{did_you_mean(name, DEVICES)}")
    d = Device(found, **table[found])
    if d.arch != arch:
        raise CksolveError(f"{{opt:device}} {found} is a {d.arch} part, not {arch}; {_devices_line(arch)}")
    return d


#: the shortest prefix of a product name that may stand for it (``MI30`` for MI300X and MI300A)
MIN_PRODUCT_PREFIX = 3


def product_arch(text: str) -> tuple[str, tuple[str, ...]] | None:
    """The arch a product name stands for, with the products it matched: ``MI300X`` -> (gfx942, (MI300X,)),
    a prefix of at least 3 characters -> every product it starts (``MI30`` -> MI300X, MI300A), case-insensitive.
    None when it names no product (stand-ins are not products); CksolveError when its products are parts of
    several archs, naming them."""
    if not isinstance(text, str) or len(text) < MIN_PRODUCT_PREFIX or text.lower().startswith("gfx"):
        return None
    table = _raw()["device"]
    key = text.lower()
    products = [k for k, d in table.items() if not d.get("stand_in")]
    hits = [k for k in products if k.lower() == key] or [k for k in products if k.lower().startswith(key)]
    if not hits:
        return None
    archs = tuple(dict.fromkeys(table[k]["arch"] for k in hits))
    if len(archs) > 1:
        candidates = "; ".join(f"{a}: {', '.join(k for k in hits if table[k]['arch'] == a)}" for a in archs)
        raise CksolveError(f"ambiguous {{option}} {shorten(text)}: products of {len(archs)} archs ({candidates})",
                           option="arch")
    return archs[0], tuple(hits)
