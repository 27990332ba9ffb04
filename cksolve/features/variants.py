"""The valid (pipeline, scheduler, double LDS buffer, split image) combinations, derived.

CK keeps this table by hand (``PIPELINE_VARIANTS``, "empirically verified" from
benchmark CSVs) and it has drifted. Here a combination is valid when some
kernel of the whole space has it and meets every space, arch and LDS-buffering
constraint: a witness search per combination, so the answer follows the
constraints wherever they change.
"""

from __future__ import annotations

from itertools import product
from typing import Iterable, NamedTuple

from ..solver import build_model, get_backend
from ..space.axes import AXES
from ..space.buffering import BUFFERING_RULES
from ..space.kinds import GEMM
from ..rulesets import Combo, kind_of

__all__ = ["PipelineVariant", "pipeline_variants", "VARIANT_AXES"]

#: The solver that searches a witness per combination: a backtracking search stops at the first one.
WITNESS_BACKEND = "python-constraint"
#: The axes of a pipeline variant, in CK's tuple order (pipeline, wave mode, dsb, si).
VARIANT_AXES = ("pipeline", "scheduler", "double_smem_buffer", "split_image")


class PipelineVariant(NamedTuple):
    arch: str
    variant: str
    pipeline: str
    scheduler: str
    double_smem_buffer: bool
    split_image: bool
    witness: str  # a kernel of the space that has the combination (some dtype and ndim)


def pipeline_variants(archs: Iterable[str], variants: Iterable[str], dtypes: Iterable[str],
                      ndims: Iterable[int]) -> list[PipelineVariant]:
    """Per (arch, variant): every combination valid for at least one of the dtypes and ndims.

    Order: arch and variant as given, then the axes' domain order (pipelines as in axes.toml).
    """
    dtypes, ndims = tuple(dtypes), tuple(ndims)
    candidates = list(product(*(AXES[a].domain for a in VARIANT_AXES)))
    find_one = get_backend(WITNESS_BACKEND).find_one
    out = []
    for arch in archs:
        for variant in variants:
            if kind_of(variant) != GEMM.name:
                continue
            models = [build_model(Combo(arch, variant, d, n), None, BUFFERING_RULES) for d in dtypes for n in ndims]
            for values in candidates:
                pins = dict(zip(VARIANT_AXES, values))
                witness = next((w for w in (find_one(m, pins) for m in models) if w is not None), None)
                if witness is not None:
                    out.append(PipelineVariant(arch, variant, *values, witness.name()))
    return out
