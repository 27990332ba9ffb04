"""Loading rule-set data files with one clear error when they are broken."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from .base import RuleSetError

__all__ = ["load_toml", "load_toml_path"]


def load_toml(package: str, filename: str) -> dict:
    text = resources.files(package).joinpath(filename).read_text(encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleSetError(f"{filename}: malformed rule data: {exc}") from None


def load_toml_path(path: Path) -> dict:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RuleSetError(f"{path}: cannot read rule-set file: {exc.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleSetError(f"{path}: malformed rule-set file: {exc}") from None
