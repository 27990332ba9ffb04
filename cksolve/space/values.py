"""Per-value facts: one table per value of dtype, ndim, layout, scheduler, epilogue,
specialization and stream-K strategy, in ``values.toml``.

CK spells a value differently in a kernel name, in kernel code, in the dispatcher's key and in
its messages; those spellings (and facts such as a dtype's element size) used to be small dicts
in the renderer, the name grammar, the run-time checks and the arch facts. Now they are read from
here, and each kind's values are checked against its axis domain at import, so a new value is a
domain entry in ``axes.toml`` and a table here.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

from .axes import AXES
from .datafile import DataFileError, load

__all__ = ["VALUES", "value_facts", "values_with"]

_STR, _INT, _BOOL = str, int, bool
#: The facts each kind's values carry (every value of a kind carries all of them).
_SCHEMA = {
    "dtype": {"*": {"cpp": _STR, "dispatch": _STR, "element_size": _INT, "accumulator": _STR, "half": _BOOL,
                    "builder": _STR}},
    "ndim": {"*": {"layouts": [_STR]}},
    "layout": {"*": {"key": _STR, "ndims": [_INT], "kinds": [_STR]}},
    "scheduler": {"*": {"cpp": _STR, "key": _STR}},
    "epilogue": {"*": {"cshuffle": _BOOL}},
    "specialization": {"*": {"cpp": _STR, "name": _STR, "needs": _STR}},
    "streamk_strategy": {"*": {"cpp": _STR, "name": _STR}},
}


def _load() -> Mapping[str, Mapping[Any, Mapping[str, Any]]]:
    raw = load(__package__, "values.toml", _SCHEMA)
    out = {}
    for kind, tables in raw.items():
        domain = AXES[kind].domain
        # TOML keys are strings; an integer axis (ndim) keys its values by number
        values = {(int(k) if isinstance(domain[0], int) else k): MappingProxyType(v) for k, v in tables.items()}
        if set(values) != set(domain):
            raise DataFileError(f"values.toml [{kind}]: values {sorted(map(str, values))} are not the axis "
                                f"domain {list(map(str, domain))} of axes.toml")
        out[kind] = MappingProxyType({v: values[v] for v in domain})  # in domain order
    return MappingProxyType(out)


#: kind -> value -> facts, values in axis-domain order.
VALUES: Mapping[str, Mapping[Any, Mapping[str, Any]]] = _load()


def value_facts(kind: str, fact: str) -> dict:
    """``{value: fact}`` for every value of ``kind`` (e.g. ``value_facts("dtype", "cpp")``)."""
    return {v: facts[fact] for v, facts in VALUES[kind].items()}


def values_with(kind: str, flag: str) -> frozenset:
    """The values of ``kind`` whose boolean fact ``flag`` is true."""
    return frozenset(v for v, facts in VALUES[kind].items() if facts[flag])
