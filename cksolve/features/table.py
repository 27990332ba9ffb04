"""Feature rows: per kernel, or per (problem, kernel) pair that can run.

Pairs come from the workload's applicability (``coverage.Decisions``), so a candidate
pool is exactly the kernels CK Tile's run-time checks accept for the problem,
not a list rebuilt from tiles or from benchmark files. The rows are made by
``rows.RowMaker``, one per (arch, dtype), as every feature row is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Iterable, Sequence

from ..errors import CksolveError
from ..progress import phase
from ..solver import bounded_configs
from ..space.config import KernelConfig, config_fields
from ..space.kinds import GEMM
from ..rulesets import Combo, RuleSet, kind_of, takes_rule_set
from ..workload import Problem, Workspace
from ..workload.coverage import Decisions
from .engine import SEMANTICS, hardware_block
from .pairs import PairRows
from .rows import RowMaker
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


class _Makers:
    """A row maker per (arch, dtype) of the combinations (``rows.RowMaker``), and the kernels' names."""

    def __init__(self, semantics: str, hardware: bool = True):
        self.semantics, self.hardware = semantics, hardware
        self.makers: dict[tuple[str, str], RowMaker] = {}
        self.names: dict = {}

    def get(self, arch: str, dtype: str) -> RowMaker:
        maker = self.makers.get((arch, dtype))
        if maker is None:
            maker = self.makers[(arch, dtype)] = RowMaker(arch, dtype, self.semantics, self.hardware)
        return maker

    def name(self, config: KernelConfig) -> str:
        got = self.names.get(config)
        if got is None:
            got = self.names[config] = config.name()
        return got

    @property
    def unread(self) -> tuple[str, ...]:
        return tuple(sorted(set().union(*(m.unread for m in self.makers.values()))))


@takes_rule_set
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
    makers = _Makers(semantics, hardware=semantics == "ck" or problems is not None)
    if makers.hardware:
        for arch in dict.fromkeys(c.arch for c in combos):
            hardware_block(arch)  # fails on an arch without a CK profile, whether or not it has kernels
    if problems is None:
        rows = []
        for c in combos:
            maker = makers.get(c.arch, c.dtype)
            for config in sorted(bounded_configs(rule_set, c), key=lambda k: k.name()):
                rows.append((*maker.kernel(config).block, makers.name(config), *config))
        return FeatureTable(KERNEL_COLUMNS, rows, semantics, makers.unread)
    rows = list(_pair_rows(combos, problems, makers, workspace or Workspace(rule_set)))
    return FeatureTable(PAIR_COLUMNS, rows, semantics, makers.unread)


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
    makers = _Makers(semantics)
    for arch in dict.fromkeys(c.arch for c in combos):
        hardware_block(arch)  # fails before the first row on an arch without a CK profile
    ws = workspace or Workspace(rule_set)
    rows = PairRows(_pair_rows(combos, problems, makers, ws), combos, problems, makers, ws)
    return PAIR_COLUMNS, rows, lambda: makers.unread


def _pair_rows(combos, problems, makers: _Makers, ws: Workspace):
    wanted = set(combos)
    targets = list(dict.fromkeys((c.arch, c.dtype) for c in combos))
    rows_of = [makers.get(arch, dtype) for arch, dtype in targets]
    # the column engine decides every problem of a target at once (repeated rows once, per verdict class)
    decisions = [Decisions.of_problems(ws, problems, arch, [dtype]) for arch, dtype in targets]
    pools: dict[int, tuple] = {}  # the engine's (combo, config) lists -> (the maker's pool, names)

    def pool_of(maker, found) -> tuple:
        configs = [config for c, config in found if c in wanted]
        return maker.pool(configs), [makers.name(c) for c in configs]

    pool_makers = [partial(pool_of, maker) for maker in rows_of]
    step = max(1, len(problems) // 1000)  # the progress bar told every step problems: at most a thousand redraws
    for index, problem in enumerate(problems):
        if index % step == 0:
            phase("writing feature rows: problem", index + 1, len(problems))
        for (arch, dtype), d, maker, make in zip(targets, decisions, rows_of, pool_makers):
            pool, names = d.per_found(int(d.inverse[index]), dtype, pools, make)
            yield from maker.rows(problem, pool, [(index, name) for name in names])
