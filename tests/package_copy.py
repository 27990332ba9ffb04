"""A copy of the package with one data table extended, and its ``cksolve`` run: how the tests prove that a
new pipeline or arch is one table (``test_new_pipeline.py``, ``test_new_arch.py``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_with(into: Path, table: str, extra: str) -> Path:
    """A copy of ``cksolve/`` under ``into`` whose data file ``table`` (relative to the package) ends with
    ``extra``; no other file changes. Returns the copy's root (what ``run`` takes)."""
    shutil.copytree(ROOT / "cksolve", into / "cksolve", ignore=shutil.ignore_patterns("__pycache__"))
    path = into / "cksolve" / table
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return into


def run(package_root: Path, *args: str, module: str = "cksolve") -> subprocess.CompletedProcess:
    """``python -m module args`` with ``package_root``'s cksolve first on the path."""
    env = {**os.environ, "PYTHONPATH": str(package_root), "PYTHONHASHSEED": "0"}
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=env,
                          cwd=package_root)
