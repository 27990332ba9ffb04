"""Feature rows: per kernel, or per (problem, kernel) pair that can run.

Pairs come from the workload's applicability (``coverage.Decisions``), so a candidate
pool is exactly the kernels CK Tile's run-time checks accept for the problem,
not a list rebuilt from tiles or from benchmark files. Blocks are computed
once where they can be: the problem block per problem, the kernel block per
kernel, the interactions per (problem, tile); a row only joins them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ..arch.facts import common_facts
from ..errors import CksolveError
from ..solver import bounded_configs
from ..space.config import KernelConfig, config_fields
from ..space.kinds import GEMM
from ..rulesets import Combo, RuleSet, kind_of
from ..workload import Problem, Workspace
from ..workload.coverage import Decisions
from .ckname import dispatcher_name, read_name
from .engine import (SEMANTICS, hardware_block, interactions, kernel_block, kernel_shape, problem_block,
                     problem_gemm)
from .pairs import PairRows
from .spec import FEATURE_NAMES, KERNEL_NAMES

__all__ = ["FeatureTable", "features", "iter_features", "PAIR_COLUMNS", "KERNEL_COLUMNS"]

#: Columns of a (problem, kernel) row: the model's features in its order, then where the row comes from.
PAIR_COLUMNS: tuple[str, ...] = (*FEATURE_NAMES, "problem_row", "kernel")
#: Columns of a kernel row: the kernel block, the name, and cksolve's config (prefixed: ``pipeline`` is both).
KERNEL_COLUMNS: tuple[str, ...] = (*KERNEL_NAMES, "kernel", *(f"config_{f}" for f in config_fields(KernelConfig)))


@dataclass(frozen=True)
class FeatureTable:
    """Rows as tuples under ``columns`` (``pandas.DataFrame(t.rows, columns=t.columns)``).

    ``unread``: kernels whose dispatcher name CK's parser cannot read; under
    ``ck`` semantics their kernel columns are CK's engine defaults.
    """

    columns: tuple[str, ...]
    rows: list[tuple]
    semantics: str
    unread: tuple[str, ...] = field(default=())

    def dicts(self) -> list[dict]:
        return [dict(zip(self.columns, r)) for r in self.rows]

    def __len__(self) -> int:
        return len(self.rows)


def _combos(combo: Combo | Iterable[Combo]) -> list[Combo]:
    combos = [combo] if isinstance(combo, Combo) else list(combo)
    for c in combos:
        if kind_of(c.variant) != GEMM.name:
            raise CksolveError(f"variant {c.variant}: CK's feature engine describes implicit-GEMM kernels; "
                               f"depthwise kernels have no GEMM tile")
    return combos


class _Kernels:
    """Kernel shapes and blocks, computed once per kernel."""

    def __init__(self, semantics: str):
        self.semantics = semantics
        self.memo: dict = {}
        self.unread: set[str] = set()

    def get(self, combo: Combo, config: KernelConfig):
        got = self.memo.get(config)
        if got is None:
            shape = kernel_shape(config, self.semantics, combo.arch)
            block = kernel_block(shape, common_facts().element_size[combo.dtype])
            got = self.memo[config] = (shape, block, config.name())
            if self.semantics == "ck" and read_name(dispatcher_name(config)) is None:
                self.unread.add(got[2])
        return got


def features(rule_set: RuleSet, combo: Combo | Iterable[Combo], problems: Sequence[Problem] | None = None,
             semantics: str = "ck", workspace: Workspace | None = None) -> FeatureTable:
    """Feature rows of the rule set's kernels for ``combo`` (one or several combinations).

    Without ``problems``: one row per kernel (``KERNEL_COLUMNS``), combinations in
    the given order, kernels by name. With them: one row per (problem, kernel)
    pair where the kernel is in one of the combinations and can run the problem
    (``PAIR_COLUMNS``): problems in order, then kernels by name. ``workspace``
    keeps solved pools between calls.
    """
    if semantics not in SEMANTICS:
        raise CksolveError(f"unknown semantics {semantics!r}; valid: {', '.join(SEMANTICS)}")
    combos = _combos(combo)
    kernels = _Kernels(semantics)
    if semantics == "ck" or problems is not None:
        for arch in dict.fromkeys(c.arch for c in combos):
            hardware_block(arch)  # fails on an arch without a CK profile, whether or not it has kernels
    if problems is None:
        rows = []
        for c in combos:
            for config in sorted(bounded_configs(rule_set, c), key=lambda k: k.name()):
                _, block, name = kernels.get(c, config)
                rows.append((*block, name, *config))
        return FeatureTable(KERNEL_COLUMNS, rows, semantics, tuple(sorted(kernels.unread)))
    return _pairs(combos, problems, kernels, workspace or Workspace(rule_set))


def _pairs(combos, problems, kernels: _Kernels, ws: Workspace) -> FeatureTable:
    rows = list(_pair_rows(combos, problems, kernels, ws))
    return FeatureTable(PAIR_COLUMNS, rows, kernels.semantics, tuple(sorted(kernels.unread)))


def iter_features(rule_set: RuleSet, combo: Combo | Iterable[Combo], problems: Sequence[Problem] | None = None,
                  semantics: str = "ck", workspace: Workspace | None = None):
    """``features`` as (columns, rows one at a time, unread): the rows are made as they are consumed, so a
    writer's memory does not grow with them; ``unread()`` is complete once the rows are."""
    if problems is None:
        table = features(rule_set, combo, None, semantics, workspace)
        return table.columns, iter(table.rows), lambda: table.unread
    if semantics not in SEMANTICS:
        raise CksolveError(f"unknown semantics {semantics!r}; valid: {', '.join(SEMANTICS)}")
    combos = _combos(combo)
    kernels = _Kernels(semantics)
    for arch in dict.fromkeys(c.arch for c in combos):
        hardware_block(arch)  # fails before the first row on an arch without a CK profile
    ws = workspace or Workspace(rule_set)
    rows = PairRows(_pair_rows(combos, problems, kernels, ws), combos, problems, kernels, ws)
    return PAIR_COLUMNS, rows, lambda: tuple(sorted(kernels.unread))


def _pair_rows(combos, problems, kernels: _Kernels, ws: Workspace):
    wanted = set(combos)
    targets = list(dict.fromkeys((c.arch, c.dtype) for c in combos))
    hw = {arch: hardware_block(arch, kernels.semantics) for arch, _ in targets}
    # the column engine decides every problem of a target at once (repeated rows once, per verdict class)
    decisions = [Decisions.of_problems(ws, problems, arch, [dtype]) for arch, dtype in targets]
    for index, problem in enumerate(problems):
        gemm = problem_gemm(problem, kernels.semantics)
        for (arch, dtype), d in zip(targets, decisions):
            head = problem_block(problem, common_facts().element_size[dtype])
            tail = hw[arch]
            num_cus = tail[0]
            inter: dict[tuple, tuple] = {}
            found = d.found(int(d.inverse[index]), dtype)
            for c, config in found:
                if c not in wanted:
                    continue
                shape, block, name = kernels.get(c, config)
                key = (shape.tile_m, shape.tile_n, shape.tile_k, shape.groups_to_merge)
                mid = inter.get(key)
                if mid is None:
                    mid = inter[key] = interactions(gemm, shape, num_cus)
                yield (*head, *block, *mid, *tail, index, name)
