"""Building the model for one (arch, variant, dtype, ndim): axes, domains, constraints.

The model is built here and solved elsewhere (``direct``, ``cpsat``,
``pyconstraint``), as in OR-Tools' own examples: every backend sees the same
variables, domains and constraint values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from ..arch.constraints import constraints_for
from ..space.axes import AXES, DEPTHWISE_AXES, GEMM_AXES
from ..space.config import DepthwiseConfig, KernelConfig
from ..space.constraints import Constraint
from ..space.rulesets import Combo, RuleSet, kind_of

__all__ = ["Model", "build_model", "config_class", "kind_axes"]


def kind_axes(kind: str) -> tuple[str, ...]:
    return GEMM_AXES if kind == "gemm" else DEPTHWISE_AXES


def config_class(kind: str):
    return KernelConfig if kind == "gemm" else DepthwiseConfig


@dataclass(frozen=True)
class Model:
    combo: Combo
    kind: str
    axes: tuple[str, ...]
    domains: Mapping[str, tuple]
    constraints: tuple[Constraint, ...]

    def make_config(self, values: Mapping[str, object]):
        return config_class(self.kind)(**{a: values[a] for a in self.axes})


def build_model(combo: Combo, rule_set: RuleSet | None = None, extra: Iterable[Constraint] = ()) -> Model:
    """Arch constraints for the combo's kernel kind, plus the rule set's, plus ``extra``."""
    kind = kind_of(combo.variant)
    axes = kind_axes(kind)
    domains = {a: AXES[a].domain for a in axes}
    domains["variant"] = (combo.variant,)
    domains["dtype"] = (combo.dtype,)
    domains["ndim"] = (combo.ndim,)
    constraints = list(constraints_for(combo.arch, kind))
    if rule_set is not None:
        constraints.extend(rule_set.constraints(combo))
    constraints.extend(extra)
    constraints = tuple(c for c in constraints if c.applies_to == kind)
    return Model(combo, kind, axes, domains, constraints)
