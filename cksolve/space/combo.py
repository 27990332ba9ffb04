"""Combinations and kernel kinds: the unit every rule set, arch rule and solve is stated over.

They live at the bottom of the package because everything above speaks in them:
the arch layer, the rule sets, the solver and the workload layer.
``ConstraintSource`` is what the solver takes instead of a rule set: anything
that names itself and gives constraints per combination.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, Sequence

from .constraints import Constraint
from .kinds import GEMM
from .variants import VARIANTS

__all__ = ["Combo", "ConstraintSource", "kind_of"]


class Combo(NamedTuple):
    arch: str
    variant: str
    dtype: str
    ndim: int

    @property
    def key(self) -> str:
        return f"{self.arch}/{self.variant}/{self.dtype}/{self.ndim}d"


def kind_of(variant: str) -> str:
    """The config kind of a variant (variants.toml); an unknown variant is taken as GEMM, for evaluate to reject."""
    known = VARIANTS.get(variant)
    return known.kind if known is not None else GEMM.name


class ConstraintSource(Protocol):
    """Extra constraints per combination (a rule set is one); ``name`` labels them in reports."""

    name: str

    def constraints(self, combo: Combo) -> Sequence[Constraint]: ...
