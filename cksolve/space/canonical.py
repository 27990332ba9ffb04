"""Space constraints: what makes a point of the raw domains a well-formed config.

They hold for every arch and every rule set. Stream-K's strategy and
persistence only exist when stream-K is on: without that rule two configs that
differ only in an unused axis would share a kernel name. A layout tag spells
the spatial dims of the tensors (values.toml ``ndims``): without that rule the
whole space would hold ``ndhwgc`` kernels of rank 2, named for 3D tensors and
built for 2D ones. A layout tag also belongs to a kernel kind (values.toml
``kinds``): CK builds implicit-GEMM kernels with NHWGC-family tensors and its
depthwise kernel is two-dimensional NGCHW, so without that rule the whole space
would hold GEMM kernels tagged ``ngchw`` and 1D or 3D depthwise kernels, named
for tensors their code does not take.
"""

from __future__ import annotations

from dataclasses import replace

from .constraints import Table
from .datafile import DataFileError
from .values import value_facts
from .variants import VARIANTS

__all__ = ["SPACE_CONSTRAINTS", "space_constraints"]

_LAYOUT_NDIM = Table(
    "space.layout_ndim", ("layout", "ndim"),
    frozenset((layout, n) for layout, ndims in value_facts("layout", "ndims").items() for n in ndims),
    "layout {layout} does not name {ndim}D tensors",
    "unified_grouped_conv_codegen.py GroupedConvKernelConfig.name / DepthwiseConvKernelConfig.name "
    "(layout tag, then ndim_spatial)",
    doc="A layout tag goes with the spatial ranks it spells (values.toml ndims: nhwgc, CK's default tag, "
        "with every rank; ndhwgc with 3D; ngchw with 2D).",
)

_KINDS = tuple(dict.fromkeys(v.kind for v in VARIANTS.values()))


def _checked_layout_kinds() -> dict:
    """values.toml's ``kinds`` of every layout, each one a kernel kind of variants.toml."""
    layout_kinds = value_facts("layout", "kinds")
    for layout, kinds in layout_kinds.items():
        if not set(kinds) <= set(_KINDS):
            raise DataFileError(f"values.toml [layout.{layout}]: kinds {kinds} are not kernel kinds {list(_KINDS)} "
                                "(variants.toml kind)")
    return layout_kinds


_LAYOUT_KINDS = _checked_layout_kinds()


def _layout_kind(kind: str) -> Table:
    return Table(
        "space.layout_kind", ("layout",),
        frozenset((layout,) for layout, kinds in _LAYOUT_KINDS.items() if kind in kinds),
        f"layout {{layout}} is not a layout of {kind} kernels",
        "unified_grouped_conv_codegen.py GroupedConvKernelConfig.layout (nhwgc; the builder's 3D files ndhwgc) / "
        "grouped_config_rules_full.py get_configs, depthwise block (layout ngchw, 2D only)",
        applies_to=kind,
        doc="A layout tag belongs to one kernel kind (values.toml kinds: nhwgc and ndhwgc tag implicit-GEMM "
            "kernels, ngchw depthwise ones).",
    )


SPACE_CONSTRAINTS = (
    Table(
        "space.streamk_options", ("streamk", "streamk_strategy", "streamk_persistent"),
        frozenset({(False, "tree", False), (True, "tree", False), (True, "tree", True),
                   (True, "linear", False), (True, "linear", True)}),
        "stream-K options (strategy={streamk_strategy}, persistent={streamk_persistent}) are set "
        "but stream-K is off",
        "unified_grouped_conv_codegen.py GroupedConvKernelConfig.name (suffix only with stream-K)",
        doc="Stream-K strategy and persistence exist only with stream-K on (else names would collide).",
    ),
    # layout and ndim are common axes: the rule holds for both kernel kinds
    *(replace(_LAYOUT_NDIM, applies_to=kind) for kind in _KINDS),
    *(_layout_kind(kind) for kind in _KINDS),
)


def space_constraints(kind: str) -> tuple:
    return tuple(c for c in SPACE_CONSTRAINTS if c.applies_to == kind)
