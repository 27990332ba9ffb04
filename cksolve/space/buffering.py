"""LDS buffering that a pipeline fixes itself, as constraints.

CK Tile's compv4 and comp_async pipelines static_assert a double LDS buffer,
and compv1/v2, basic_v1/v2, basic_async_v1 and wavelet hard-code a single one
(CK's ``deduce_block_per_cu``, unified_grouped_conv_codegen.py). A config that
says otherwise is either a compile error or a second name for the
single-buffer kernel -- the aliasing that capped CK's ML selector (its
LEARNINGS_GROUPED_CONV.md). CK's rule sets never produce either, so these are
kept apart from the space constraints every solve uses; ``pipeline-variants``
reads them (and the exact feature semantics ``pipelines.double_buffered``).
"""

from __future__ import annotations

from .pipelines import ALWAYS_DOUBLE_LDS, ALWAYS_SINGLE_LDS
from .constraints import Table

__all__ = ["BUFFERING_RULES"]

_SOURCE = "unified_grouped_conv_codegen.py deduce_block_per_cu (pipeline LDS allocation)"

BUFFERING_RULES = (
    Table(
        "pipeline.double_lds_required", ("pipeline", "double_smem_buffer"),
        frozenset((p, False) for p in ALWAYS_DOUBLE_LDS),
        "pipeline {pipeline} always double-buffers LDS (static_assert); a single buffer does not compile",
        _SOURCE, forbid=True,
        doc="compv4 and comp_async need the double LDS buffer.",
    ),
    Table(
        "pipeline.single_lds_fixed", ("pipeline", "double_smem_buffer"),
        frozenset((p, True) for p in ALWAYS_SINGLE_LDS),
        "pipeline {pipeline} hard-codes a single LDS buffer; the dsb flag would only rename the same kernel",
        _SOURCE, forbid=True,
        doc="Single-buffer pipelines ignore the flag: with it set they are an alias, not a kernel.",
    ),
)

