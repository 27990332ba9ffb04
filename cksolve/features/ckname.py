"""A kernel as CK's ML tooling sees it: its dispatcher name, and what CK's parser reads back.

The short names' grammar and ``dispatcher_name`` are ``space.shortnames``' (re-exported here).

CK benchmarks kernels under the dispatcher's short names
(``grouped_conv_forward_bf16_2d_128x64x64_compv3_intrawave_dsb``) and recovers
the kernel features from them with a regular expression. The name omits the
wave split, warp tile, vectors and epilogue, and the parser maps the tile's
three numbers to block_size, gemm_m_per_block and gemm_n_per_block. A name
with a suffix its grammar does not expect (``_gm8``, ``_2stage``) or a pipeline
it does not list (wavelet) goes to its fallback, which keeps only the first
``_compv<n>``, ``_mem`` or ``_async`` found anywhere in the name as the
pipeline; the engine's defaults fill in the rest. Reproducing that reading is
what lets ``--semantics ck`` feed CK's trained models what they were trained on.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..space.memos import MEMOS
from ..space.shortnames import dispatcher_name, read_short, short_grammar
from .spec import ENGINE

__all__ = ["CkReading", "dispatcher_name", "read_name", "ck_fields", "read_short"]


class CkReading(NamedTuple):
    """The kernel fields CK's parser recovers from a name (its own field names)."""

    block_size: int
    gemm_m_per_block: int
    gemm_n_per_block: int
    pipeline: str
    wave_mode: str
    has_dsb: int
    has_si: int


@MEMOS.cached("features.ckname._ck_grammar", maxsize=1)
def _ck_grammar() -> re.Pattern:
    """CK's parser's reading: any variant, any ndim, the pipelines its list names, no ``_gm``/``_2stage``."""
    return short_grammar("[a-z_]+", r"\d+", "|".join(ENGINE["name_pipelines"]), False)


def read_name(name: str) -> CkReading | None:
    """What CK's parser reads from ``name``; None when the name does not match its grammar."""
    m = _ck_grammar().match(name)
    if m is None:
        return None
    g = m.group
    return CkReading(int(g("m")), int(g("n")), int(g("k")), g("pipeline"), g("scheduler") or "intrawave",
                     int(g("dsb") is not None), int(g("si") is not None))


@MEMOS.cached("features.ckname._fallback", maxsize=1)
def _fallback() -> re.Pattern:
    return re.compile(ENGINE["fallback_pipeline"])


def ck_fields(name: str) -> CkReading:
    """The kernel fields CK's engine computes with for ``name``: the grammar's reading, or for a name
    the grammar cannot read the fallback's pipeline (if it finds one) and the engine's defaults."""
    r = read_name(name)
    if r is not None:
        return r
    d = ENGINE["defaults"]
    m = _fallback().search(name)
    return CkReading(d["block_size"], d["gemm_m_per_block"], d["gemm_n_per_block"],
                     m.group(1) if m else d["pipeline"], d["wave_mode"], d["has_dsb"], d["has_si"])
