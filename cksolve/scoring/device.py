"""The performance model's device facts (``arch/devices.toml``, read by ``arch.devices``); its factor table
is ``factorfile``'s."""

from __future__ import annotations

from ..arch.devices import DEFAULT_DEVICE, DEVICES, Device, device

__all__ = ["Device", "device", "DEVICES", "DEFAULT_DEVICE"]
