"""Loading the built-in rule sets' data files with one clear error when they are broken.

Users' rule-set files are read by :mod:`.file` (through ``space.textfile``, the bounded UTF-8 reader).
"""

from __future__ import annotations

from ..space.datafile import Any, load
from .rule_set import RuleSetError

__all__ = ["load_toml"]


def load_toml(package: str, filename: str, schema=Any) -> dict:
    """A built-in rule set's data file through the one data-file loader; its errors are ``RuleSetError``."""
    return load(package, filename, schema, error=RuleSetError)

