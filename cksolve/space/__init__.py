"""The configuration space's face: the vocabulary every layer above speaks (re-export only).

    from cksolve.space import AXES, Combo, KernelConfig, parse_name

    config = parse_name("grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16")
    config.name()                      # the same name back
    AXES["tile_m"].domain              # an axis's values (axes.toml)

Axes and their domains, the two kinds of kernel config (``KernelKind`` values ``GEMM`` and
``DEPTHWISE``: axes, config class, name grammar, tile shape), names in both directions, a
(arch, variant, dtype, ndim) combination, the constraint forms and the process's one
memo owner. The modules behind it are internal.
"""

from .axes import AXES
from .combo import Combo, kind_of
from .config import DepthwiseConfig, KernelConfig, config_fields
from .constraints import Check, Constraint, Table
from .kinds import DEPTHWISE, GEMM, KINDS, KernelKind, kernel_kind
from .memos import MEMOS
from .naming import NameError_, parse_name
from .pipelines import PIPELINES
from .variants import VARIANTS

__all__ = [
    "AXES",
    "KernelConfig",
    "DepthwiseConfig",
    "config_fields",
    "KernelKind",
    "GEMM",
    "DEPTHWISE",
    "KINDS",
    "kernel_kind",
    "parse_name",
    "NameError_",
    "Combo",
    "kind_of",
    "Constraint",
    "Table",
    "Check",
    "PIPELINES",
    "VARIANTS",
    "MEMOS",
]
