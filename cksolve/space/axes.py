"""The axes of the configuration space and their finite domains.

The domains live in ``axes.toml`` so that widening one (a new tile size, a new
pipeline) is a data change that every backend, the docs and ``check`` pick up.
"""

from __future__ import annotations

from dataclasses import dataclass

from .datafile import DataFileError, load
from .pipelines import PIPELINES
from .variants import VARIANTS

__all__ = ["Axis", "AXES", "GEMM_AXES", "DEPTHWISE_AXES", "SELECTION_AXES", "KIND_NAMES", "kind_axes",
           "kind_defaults", "kind_fields", "kind_tile", "value_text"]

_VALUE = (str, int, bool)
_SCHEMA = {"*": {"kind": str, "domain?": [_VALUE], "domain_from?": str, "doc": str,
                 "default?": (str, int, bool, dict)}}
_KINDS_SCHEMA = {"*": {"doc": str, "fields": [str], "tile": [str]}}
#: kinds.toml: per kind of kernel config, its doc, its config class's field order and its tile fields.
_KINDS: dict[str, dict] = load(__package__, "kinds.toml", _KINDS_SCHEMA)
#: The kinds of kernel config ("gemm", "depthwise"), in kinds.toml's order.
KIND_NAMES: tuple[str, ...] = tuple(_KINDS)


@dataclass(frozen=True)
class Axis:
    """One axis of axes.toml: its config kind, finite domain and meaning."""

    name: str
    kind: str  # "common" or one of KIND_NAMES
    domain: tuple
    doc: str
    default: object = None  # a value, or {kind: value}; None: every config spells the axis out

    def default_for(self, kind: str):
        """The value a config of ``kind`` takes when not given (None: none)."""
        return self.default.get(kind) if isinstance(self.default, dict) else self.default


def value_text(v) -> str:
    """An axis value as reports and tables print it: booleans as rule-set files spell them (``true``/``false``)."""
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _load() -> dict[str, Axis]:
    out = {}
    for name, spec in load(__package__, "axes.toml", _SCHEMA).items():
        domain = tuple(spec["domain"]) if "domain" in spec else _DOMAINS[spec["domain_from"]]
        axis = Axis(name, spec["kind"], domain, spec["doc"], spec.get("default"))
        defaults = axis.default.values() if isinstance(axis.default, dict) else (axis.default,)
        if any(d is not None and d not in domain for d in defaults) or axis.kind not in ("common", *KIND_NAMES):
            raise DataFileError(f"axes.toml [{name}]: kind must be common or one of {', '.join(KIND_NAMES)} "
                                "and the default in the domain")
        out[name] = axis
    return out


#: Domains kept with the rest of their values' facts, in their own tables.
_DOMAINS = {"pipelines.toml": tuple(PIPELINES), "variants.toml": tuple(VARIANTS)}


AXES: dict[str, Axis] = _load()

#: Axes that select a (variant, dtype, ndim) combination; every rule set is
#: solved once per combination and per arch.
SELECTION_AXES = ("variant", "dtype", "ndim")

#: Every axis of a config of each kind, in axes.toml's order.
_KIND_AXES = {k: tuple(n for n, a in AXES.items() if a.kind in ("common", k)) for k in KIND_NAMES}
GEMM_AXES = _KIND_AXES["gemm"]
DEPTHWISE_AXES = _KIND_AXES["depthwise"]


def kind_axes(kind: str) -> tuple[str, ...]:
    """Every axis of a config of the kind (one of ``KIND_NAMES``), in axes.toml's order."""
    return _KIND_AXES[kind]


def kind_fields(kind: str) -> tuple[str, ...]:
    """The kind's axes in its config class's field order (kinds.toml ``fields``)."""
    return tuple(_KINDS[kind]["fields"])


def kind_tile(kind: str) -> tuple[str, ...]:
    """The fields of the kind's tile shape (kinds.toml ``tile``)."""
    return tuple(_KINDS[kind]["tile"])


def kind_defaults(kind: str) -> dict:
    """``{axis: default}`` of a config of ``kind``: the defaults its config class takes (axes.toml)."""
    return {n: AXES[n].default_for(kind) for n in kind_axes(kind) if AXES[n].default_for(kind) is not None}


for _kind in KIND_NAMES:  # kinds.toml states each kind's axes once more, in order: it must name the same ones
    if sorted(kind_fields(_kind)) != sorted(_KIND_AXES[_kind]) or not set(kind_tile(_kind)) <= set(_KIND_AXES[_kind]):
        raise DataFileError(f"kinds.toml [{_kind}]: fields must be the kind's axes in axes.toml, each once, and "
                            f"tile some of them; axes.toml has {', '.join(_KIND_AXES[_kind])}")
