"""The one loader of cksolve's packaged data files (``*.toml`` beside the modules that read them).

Every table of facts (axes, pipelines, variants, values, arch facts, rule-set data, applicability
rules, features) is read here, and each is checked against a small schema at import, so a
misspelt key or a wrong type in a data file fails with the file, the table and the key instead of
a ``KeyError`` far from it. Users' files (rule-set files, builder configs) are not read here: they
have their own readers with their own error messages.

A schema is a value:

* a type (``str``, ``int``, ``bool``, ``float``) or a tuple of types;
* ``[item]``: a list whose every element matches ``item``;
* ``{key: schema}``: a table with exactly these keys; a key ending in ``?`` is optional;
  the key ``"*"`` matches every key not named otherwise (a table of tables, one per value);
* ``Any``: anything (a table whose shape its reader checks).
"""

from __future__ import annotations

import os
import sys
import tomllib
from typing import Any

from ..errors import CksolveError

__all__ = ["DataFileError", "load", "validate", "Any"]


class DataFileError(CksolveError):
    """A packaged data file is malformed (a broken installation or a bad edit)."""


def load(package: str, filename: str, schema=Any, error: type[Exception] = DataFileError) -> dict:
    """``filename`` of ``package`` parsed and checked against ``schema``; ``error`` says what is wrong."""
    # beside the package's __init__, as setuptools installs package data; importlib.resources would
    # find the same file through zip-import machinery that costs ~8 ms of every command to import
    path = os.path.join(os.path.dirname(sys.modules[package].__file__), filename)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{filename}: cannot read the data file: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{filename}: malformed data file: {exc}") from None
    problem = validate(data, schema)
    if problem:
        raise error(f"{filename}: {problem}")
    return data


def validate(value, schema, where: str = "") -> str:
    """The first mismatch between ``value`` and ``schema`` as text ("" when it matches)."""
    at = where or "top level"
    if schema is Any:
        return ""
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return f"{at}: expected a table, got {type(value).__name__}"
        keys = {k.rstrip("?"): k.endswith("?") for k in schema if k != "*"}
        for key, optional in keys.items():
            if key not in value and not optional:
                return f"{at}: missing key {key!r}"
        for key, item in value.items():
            sub = schema.get(key, schema.get(f"{key}?", schema.get("*")))
            if sub is None:
                return f"{at}: unknown key {key!r} (expected one of {', '.join(sorted(keys))})"
            problem = validate(item, sub, f"{where}.{key}" if where else f"[{key}]")
            if problem:
                return problem
        return ""
    if isinstance(schema, list):
        if not isinstance(value, list):
            return f"{at}: expected a list, got {type(value).__name__}"
        for i, item in enumerate(value):
            problem = validate(item, schema[0], f"{at}[{i}]")
            if problem:
                return problem
        return ""
    types = schema if isinstance(schema, tuple) else (schema,)
    # TOML booleans are not integers here, whatever Python's bool says
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        return f"{at}: expected {' or '.join(t.__name__ for t in types)}, got {value!r}"
    return ""
