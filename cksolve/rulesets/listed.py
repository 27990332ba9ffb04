"""A rule set that is exactly a list of kernels (a names file, an optimiser's answer).

Its constraint per combination is one allowed table over every axis of the
kernel kind, so a listed kernel is a member exactly when the arch keeps it;
combinations with no listed kernel get an empty table (no kernels), which also
keeps depthwise kernels out when only GEMM kernels are listed.
"""

from __future__ import annotations

import json
from typing import Iterable, Sequence

from ..space.axes import kind_axes
from ..space.constraints import Constraint, scope_values
from ..space.kinds import KINDS
from .rule_set import Combo, RuleSet, configs_table, kind_of

__all__ = ["ListedRuleSet"]


class ListedRuleSet(RuleSet):
    def __init__(self, name: str, configs: Iterable, source: str = ""):
        self.name = name
        self.source = source or name
        self._by_combo: dict[tuple, list] = {}
        for c in configs:
            self._by_combo.setdefault((c.variant, c.dtype, c.ndim), []).append(c)

    def constraints(self, combo: Combo) -> Sequence[Constraint]:
        kind = kind_of(combo.variant)
        configs = self._by_combo.get((combo.variant, combo.dtype, combo.ndim), [])
        return (configs_table(f"rules.{self.name}.kernels", kind, configs,
                              f"{self.name} does not list this kernel", self.source),)

    def names(self) -> list[str]:
        return sorted(c.name() for cs in self._by_combo.values() for c in cs)


def rule_set_file(configs: Iterable, description: str) -> str:
    """A rule-set file (see ``file.py``) that lists exactly ``configs``: one table per kernel kind.

    Both kinds always get a table, an empty one when no kernel of the kind is listed,
    so that the file never admits a whole kind by leaving it unconstrained.
    """
    def value(v) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else json.dumps(v)

    configs = sorted(configs, key=lambda c: c.name())
    lines = [f"description = {json.dumps(description)}", ""]
    for kind in KINDS:
        axes = kind_axes(kind)
        lines += ["[[table]]", f'name = "listed.{kind}"', f"scope = [{', '.join(json.dumps(a) for a in axes)}]",
                  "rows = ["]
        lines += [f"  [{', '.join(value(v) for v in scope_values(c, axes))}],  # {c.name()}"
                  for c in configs if c.kind == kind]
        lines += ["]", ""]
    return "\n".join(lines)
