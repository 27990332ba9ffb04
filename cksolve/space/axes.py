"""The axes of the configuration space and their finite domains.

The domains live in ``axes.toml`` so that widening one (a new tile size, a new
pipeline) is a data change that every backend, the docs and ``check`` pick up.
"""

from __future__ import annotations

from dataclasses import dataclass

from .datafile import DataFileError, load
from .pipelines import PIPELINES
from .variants import VARIANTS

__all__ = ["Axis", "AXES", "GEMM_AXES", "DEPTHWISE_AXES", "SELECTION_AXES", "kind_axes", "kind_defaults",
           "value_text"]

_VALUE = (str, int, bool)
_SCHEMA = {"*": {"kind": str, "domain?": [_VALUE], "domain_from?": str, "doc": str,
                 "default?": (str, int, bool, dict)}}


@dataclass(frozen=True)
class Axis:
    name: str
    kind: str  # "common", "gemm" or "depthwise"
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
        if any(d is not None and d not in domain for d in defaults) or axis.kind not in ("common", "gemm", "depthwise"):
            raise DataFileError(f"axes.toml [{name}]: kind must be common, gemm or depthwise and the default "
                                "in the domain")
        out[name] = axis
    return out


#: Domains kept with the rest of their values' facts, in their own tables.
_DOMAINS = {"pipelines.toml": tuple(PIPELINES), "variants.toml": tuple(VARIANTS)}


AXES: dict[str, Axis] = _load()

#: Axes that select a (variant, dtype, ndim) combination; every rule set is
#: solved once per combination and per arch.
SELECTION_AXES = ("variant", "dtype", "ndim")

GEMM_AXES = tuple(n for n, a in AXES.items() if a.kind in ("common", "gemm"))
DEPTHWISE_AXES = tuple(n for n, a in AXES.items() if a.kind in ("common", "depthwise"))


def kind_axes(kind: str) -> tuple[str, ...]:
    """Every axis of a config of the kind ("gemm" or "depthwise")."""
    return GEMM_AXES if kind == "gemm" else DEPTHWISE_AXES


def kind_defaults(kind: str) -> dict:
    """``{axis: default}`` of a config of ``kind``: what the config classes' defaults must equal."""
    return {n: AXES[n].default_for(kind) for n in kind_axes(kind) if AXES[n].default_for(kind) is not None}
