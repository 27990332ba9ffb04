"""Loading the built-in rule sets' data files with one clear error when they are broken.

Users' rule-set files are read by :mod:`.file` (through ``space.textfile``, the bounded UTF-8 reader).
"""

from __future__ import annotations

import tomllib
from importlib import resources

from .base import RuleSetError

__all__ = ["load_toml"]


def load_toml(package: str, filename: str) -> dict:
    text = resources.files(package).joinpath(filename).read_text(encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleSetError(f"{filename}: malformed rule data: {exc}") from None

