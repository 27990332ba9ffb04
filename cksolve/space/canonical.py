"""Space constraints: what makes a point of the raw domains a well-formed config.

They hold for every arch and every rule set. Today there is one: stream-K's
strategy and persistence only exist when stream-K is on. Without it two
configs that differ only in an unused axis would share a kernel name.
"""

from __future__ import annotations

from .constraints import Table

__all__ = ["SPACE_CONSTRAINTS", "space_constraints"]

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
)


def space_constraints(kind: str) -> tuple:
    return tuple(c for c in SPACE_CONSTRAINTS if c.applies_to == kind)
