"""The progress bar of the long workload steps: ``cksolve.progress`` (one low module every command can use)."""

from __future__ import annotations

from ..progress import DELAY, Progress, phase

__all__ = ["DELAY", "Progress", "phase"]
