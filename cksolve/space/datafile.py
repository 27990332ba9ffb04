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
    return _check(value, schema, where, ())


def _where(where: str, path: tuple) -> str:
    """The place ``path`` (keys and list positions below ``where``) names, as an error says it."""
    for step in path:
        if isinstance(step, int):
            where = f"{where or 'top level'}[{step}]"
        else:
            where = f"{where}.{step}" if where else f"[{step}]"
    return where or "top level"


def _check(value, schema, where: str, path: tuple) -> str:
    """``validate`` below ``path``; the place is written only for a mismatch (a data file has thousands of
    leaves: every command that loads one pays for the walk)."""
    if schema is Any:
        return ""
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return f"{_where(where, path)}: expected a table, got {type(value).__name__}"
        keys = {k.rstrip("?"): k.endswith("?") for k in schema if k != "*"}
        for key, optional in keys.items():
            if key not in value and not optional:
                return f"{_where(where, path)}: missing key {key!r}"
        for key, item in value.items():
            sub = schema.get(key, schema.get(f"{key}?", schema.get("*")))
            if sub is None:
                return f"{_where(where, path)}: unknown key {key!r} (expected one of {', '.join(sorted(keys))})"
            problem = _check(item, sub, where, (*path, key))
            if problem:
                return problem
        return ""
    if isinstance(schema, list):
        if not isinstance(value, list):
            return f"{_where(where, path)}: expected a list, got {type(value).__name__}"
        item_schema = schema[0]
        if isinstance(item_schema, (type, tuple)):  # a list of leaves (most of a file): checked in one pass
            types = item_schema if isinstance(item_schema, tuple) else (item_schema,)
            strict = bool not in types
            if all(isinstance(x, types) and not (strict and isinstance(x, bool)) for x in value):
                return ""
        for i, item in enumerate(value):
            problem = _check(item, item_schema, where, (*path, i))
            if problem:
                return problem
        return ""
    types = schema if isinstance(schema, tuple) else (schema,)
    # TOML booleans are not integers here, whatever Python's bool says
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        return f"{_where(where, path)}: expected {' or '.join(t.__name__ for t in types)}, got {value!r}"
    return ""
