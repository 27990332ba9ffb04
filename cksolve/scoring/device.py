"""The performance model's device facts (``arch/devices.toml``, read by ``arch.devices``) and its factor
table (``factors.toml``), loaded and checked once."""

from __future__ import annotations

from ..arch.devices import DEFAULT_DEVICE, DEVICES, Device, device
from ..space.datafile import Any, load
from ..space.memos import MEMOS

__all__ = ["Device", "device", "DEVICES", "DEFAULT_DEVICE", "factors"]


@MEMOS.cached("scoring.device.factors", maxsize=1)
def factors() -> dict:
    return load(__package__, "factors.toml", Any)
