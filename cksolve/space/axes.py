"""The axes of the configuration space and their finite domains.

The domains live in ``axes.toml`` so that widening one (a new tile size, a new
pipeline) is a data change that every backend, the docs and ``check`` pick up.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

from .pipelines import PIPELINES
from .variants import VARIANTS

__all__ = ["Axis", "AXES", "GEMM_AXES", "DEPTHWISE_AXES", "SELECTION_AXES", "kind_axes", "value_text"]


@dataclass(frozen=True)
class Axis:
    name: str
    kind: str  # "common", "gemm" or "depthwise"
    domain: tuple
    doc: str


def value_text(v) -> str:
    """An axis value as reports and tables print it: booleans as rule-set files spell them (``true``/``false``)."""
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _load() -> dict[str, Axis]:
    text = resources.files(__package__).joinpath("axes.toml").read_text(encoding="utf-8")
    raw = tomllib.loads(text)
    return {
        name: Axis(name, spec["kind"], tuple(spec["domain"]) if "domain" in spec else _DOMAINS[spec["domain_from"]],
                   spec["doc"])
        for name, spec in raw.items()
    }


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
