"""GEMM pipelines as data: one table per pipeline in ``pipelines.toml``.

CK adds pipelines often (compv5, compv6, wavelet, comp_async in a few months).
Each one used to touch the axes, the LDS-buffering sets of ``config``, three arch
rules, the LDS limits in the arch facts and four tables of the renderer; now
every one of those reads the pipeline's entry here, so a new pipeline is one
table (and a template only if its tail handling is new).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from .datafile import load

__all__ = ["Pipeline", "PIPELINES", "LDS_BUFFERING", "TAILS", "pipelines_with", "double_buffered", "ALWAYS_DOUBLE_LDS",
           "ALWAYS_SINGLE_LDS"]

#: lds_buffering values: always double-buffered, never, or as the config's double_smem_buffer says.
LDS_BUFFERING = ("double", "single", "configurable")
#: tail handlers the GEMM kernel template knows (a new one needs a template change).
TAILS = ("std", "v1", "wavelet")


@dataclass(frozen=True)
class Pipeline:
    """One pipeline of pipelines.toml: its CK enum and classes, and the facts the rules read."""

    name: str
    ck_enum: str
    pipeline_class: str
    base_class: str
    tail: str
    lds_buffering: str
    lds_capacity: int
    key: str
    policy: str = ""                      # grouped-conv LDS policy template argument; "" = the pipeline's own
    extra_args: tuple[str, ...] = ()      # further template arguments after the policy
    intrawave_only: bool = False
    filter_intrawave_only: bool = False
    backward: bool = False
    rejected_variants: tuple[str, ...] = ()
    full_load_coverage: bool = False
    async_copy: bool = False



_SCHEMA = {"*": {"ck_enum": str, "pipeline_class": str, "base_class": str, "tail": str, "lds_buffering": str,
                 "lds_capacity": int, "key": str, "policy?": str, "extra_args?": [str], "intrawave_only?": bool,
                 "filter_intrawave_only?": bool, "backward?": bool, "rejected_variants?": [str],
                 "full_load_coverage?": bool, "async_copy?": bool}}


def _load() -> Mapping[str, Pipeline]:
    raw = load(__package__, "pipelines.toml", _SCHEMA)
    out = {}
    for name, spec in raw.items():
        spec = {k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()}
        try:
            p = Pipeline(name=name, **spec)
        except TypeError as exc:  # a missing or unknown field: say which pipeline
            raise ValueError(f"pipelines.toml [{name}]: {exc}") from None
        if p.lds_buffering not in LDS_BUFFERING or p.tail not in TAILS:
            raise ValueError(f"pipelines.toml [{name}]: lds_buffering must be one of {LDS_BUFFERING}, "
                             f"tail one of {TAILS}")
        out[name] = p
    return MappingProxyType(out)


#: Every pipeline, in the order of the ``pipeline`` axis domain.
PIPELINES: Mapping[str, Pipeline] = _load()


def pipelines_with(flag: str) -> frozenset[str]:
    """Names of the pipelines whose boolean fact ``flag`` is true."""
    return frozenset(n for n, p in PIPELINES.items() if getattr(p, flag))


def double_buffered(pipeline: str, double_smem_buffer: bool) -> bool:
    """Whether a kernel really double-buffers LDS: as its pipeline fixes it, else as its flag says.

    A pipeline outside the table (``evaluate`` reports it) goes by the flag too.
    """
    known = PIPELINES.get(pipeline)
    buffering = known.lds_buffering if known is not None else "configurable"
    return double_smem_buffer if buffering == "configurable" else buffering == "double"


#: Pipelines that fix their LDS buffering themselves (``lds_buffering`` "double" / "single").
ALWAYS_DOUBLE_LDS = frozenset(n for n, p in PIPELINES.items() if p.lds_buffering == "double")
ALWAYS_SINGLE_LDS = frozenset(n for n, p in PIPELINES.items() if p.lds_buffering == "single")
