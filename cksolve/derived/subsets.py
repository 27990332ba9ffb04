"""Rule sets ``full-tests`` and ``tiny``: coverage-defined subsets of ``full``.

CK (``grouped_config_rules_full_tests.py`` @54f25023) selects these by
*position* in its emission order, before the arch filter, over whatever a
request groups together (e.g. depthwise kernels are picked inside a forward
request). The same combination can therefore get different kernels depending
on how it was asked for, and a config the arch filter drops leaves a hole.
cksolve defines both per (arch, variant, dtype, ndim) combination by a
contract over the *valid* ``full`` configs of that combination, in canonical
(kernel name) order:

``full-tests``
    1. for every feature category (:func:`category`, CK's ``_classify_config``
       order) the configs at positions 0, 5, 10, ... of that category in name
       order -- "every 5th", and always at least the first;
    2. then, for every (pipeline, scheduler) pair present in ``full`` for the
       combination that step 1 did not cover, the first config in name order
       with that pair.
``tiny``
    1. a minimum-size subset of ``full-tests`` covering every category and
       every (pipeline, scheduler) pair present in ``full-tests`` (a minimum
       set cover, solved exactly in :mod:`cksolve.derived.cover` and certified
       against CP-SAT by the tests; ties go to the lexicographically smallest
       set of name ranks, i.e. earlier names);
    2. padded to ``min(10, |full-tests|)`` configs: first, in name order,
       configs that bring a tile shape not yet present (GEMM: tile m x n x k;
       depthwise: tile h x w), then the rest in name order.

       The size is CK's own aim for tiny (ten configs, or all there are). CK
       reaches it before its arch filter, which then drops some, so CK's
       accepted tiny can be smaller (2-4 configs in some combinations) with the
       same coverage; here the padding is counted over valid configs, and the
       minimum-cover part alone is never larger than CK's tiny where the
       coverages are equal (``benchmarks/compare_subsets.py``, tested).

Depthwise kernels have no pipeline or scheduler, so for them only the
category counts (depthwise combinations hold only depthwise configs, so their
cover is one config).

Each rule set is ``full``'s constraints plus one allowed table over every axis
of the kernel kind whose rows are the selected configs, so ``count``,
``check``, ``diff`` and ``emit`` work unchanged and ``check`` still says which
``full`` rule a foreign config breaks. The selections are computed once per
combination from :func:`cksolve.solver.enumerate_combo` and memoised in the
process memo owner ``MEMOS``, so ``MEMOS.clear()`` forgets them with the solves they
rest on.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import Callable, Sequence

from ..arch.arch_constraints import constraints_for
from ..rulesets import get_rule_set
from ..rulesets.rule_set import RuleSet, configs_table
from ..solver import enumerate_combo
from ..space.combo import Combo, kind_of
from ..space.constraints import Constraint
from ..space.kinds import DEPTHWISE, kernel_kind
from ..space.memos import MEMOS
from .cover import minimum_cover

__all__ = [
    "CATEGORIES", "STRIDE", "TINY_SIZE", "category", "pair", "coverage", "coverage_of",
    "full_configs", "full_tests_selection", "tiny_selection", "TinySelection",
    "FullTestsRuleSet", "TinyRuleSet",
]

_SRC = "grouped_config_rules_full_tests.py (CK 54f25023), redefined per combination by coverage"

#: Feature categories in CK's ``_classify_config`` priority order (first match wins).
CATEGORIES = ("depthwise", "streamk", "split_image", "merged_groups", "two_stage", "explicit_gemm", "regular")
#: full-tests keeps positions 0, STRIDE, 2*STRIDE, ... of each category.
STRIDE = 5
#: tiny is padded up to this many configs (or all of full-tests if fewer).
TINY_SIZE = 10


def category(config) -> str:
    """CK's ``_classify_config`` feature (without the dtype: a combination has one dtype)."""
    if config.kind == DEPTHWISE.name:
        return "depthwise"
    if config.streamk:
        return "streamk"
    if config.split_image:
        return "split_image"
    if config.groups_to_merge > 1:  # wins over two_stage
        return "merged_groups"
    if config.two_stage:  # wins over explicit_gemm
        return "two_stage"
    if config.explicit_gemm:
        return "explicit_gemm"
    return "regular"


def pair(config) -> tuple[str, str] | None:
    """The (pipeline, scheduler) of a GEMM config; None for depthwise (not applicable)."""
    return None if config.kind == DEPTHWISE.name else (config.pipeline, config.scheduler)


def coverage(config) -> frozenset[str]:
    """What one config covers: ``category:<c>`` and, for GEMM, ``pair:<pipeline>/<scheduler>``."""
    p = pair(config)
    out = {f"category:{category(config)}"}
    if p is not None:
        out.add(f"pair:{p[0]}/{p[1]}")
    return frozenset(out)


def coverage_of(configs) -> frozenset[str]:
    """The coverage of a set of configs: its categories and its (pipeline, scheduler) pairs."""
    return frozenset().union(*(coverage(c) for c in configs))


def _tile_shape(config) -> tuple:
    return kernel_kind(config.kind).tile_of(config)


def _basis(combo: Combo) -> tuple:
    """What ``full``'s answer for the combo is made of -- its constraints and the arch's, which follow the
    active CK version: the selections' memos key on it, so another version selects again."""
    return constraints_for(combo.arch, kind_of(combo.variant)), tuple(get_rule_set("full").constraints(combo))


def full_configs(combo: Combo) -> tuple:
    """``full``'s valid configs for the combo, in name order (computed once per combo and CK version)."""
    return _full_configs(combo, _basis(combo))


@MEMOS.cached("subsets.full_configs")
def _full_configs(combo: Combo, basis: tuple) -> tuple:
    return tuple(enumerate_combo(get_rule_set("full"), combo))


def full_tests_selection(combo: Combo) -> tuple:
    """The full-tests configs of the combo, in name order (see the module docstring)."""
    return _full_tests_selection(combo, _basis(combo))


@MEMOS.cached("subsets.full_tests_selection")
def _full_tests_selection(combo: Combo, basis: tuple) -> tuple:
    full = _full_configs(combo, basis)
    positions = range(len(full))
    cats = _categories(full)
    chosen = set()
    for cat in dict.fromkeys(cats):  # positions 0, STRIDE, 2*STRIDE, ... of each category in name order
        chosen.update(list(compress(positions, map(cat.__eq__, cats)))[::STRIDE])
    if full and full[0].kind != DEPTHWISE.name:  # the first config (name order) of each pair not yet covered
        pairs = list(map(_PAIR_FIELDS, full))
        covered = {pairs[i] for i in chosen}
        first = dict(zip(reversed(pairs), reversed(positions)))  # the earliest position wins
        chosen.update(i for p, i in first.items() if p not in covered)
    return tuple(full[i] for i in sorted(chosen))


# The fields category() and pair() read, fetched in C: full-tests looks at all 41k full configs.
_CATEGORY_FIELDS = attrgetter("streamk", "split_image", "groups_to_merge", "two_stage", "explicit_gemm")
_PAIR_FIELDS = attrgetter("pipeline", "scheduler")


def _categories(configs: Sequence) -> list[str]:
    """:func:`category` of each config (one kind per combination), called once per distinct field values."""
    if not configs or configs[0].kind == DEPTHWISE.name:
        return [category(c) for c in configs[:1]] * len(configs)
    keys = list(map(_CATEGORY_FIELDS, configs))
    of = {k: category(c) for k, c in dict(zip(keys, configs)).items()}
    return list(map(of.__getitem__, keys))


@dataclass(frozen=True)
class TinySelection:
    configs: tuple          # the tiny configs, in name order
    cover: tuple            # the minimum-cover part, in name order
    padding: tuple          # what padding added, in the order it was added
    status: str             # status of the cover ("OPTIMAL": the search is exact)
    universe: frozenset     # what the cover had to cover (= coverage of full-tests)


def tiny_selection(combo: Combo) -> TinySelection:
    """The tiny configs of the combo: minimum cover of full-tests, then padding."""
    return _tiny_selection(combo, _basis(combo))


@MEMOS.cached("subsets.tiny_selection")
def _tiny_selection(combo: Combo, basis: tuple) -> TinySelection:
    ft = _full_tests_selection(combo, basis)
    items = [coverage(c) for c in ft]
    universe = frozenset().union(*items)
    idx, status = minimum_cover(items, universe)
    chosen = list(idx)
    taken = set(idx)
    target = min(TINY_SIZE, len(ft))
    shapes = {_tile_shape(ft[i]) for i in chosen}
    padding: list[int] = []
    for new_shapes_only in (True, False):
        for i, c in enumerate(ft):
            if len(chosen) >= target:
                break
            if i in taken or (new_shapes_only and _tile_shape(c) in shapes):
                continue
            chosen.append(i)
            taken.add(i)
            padding.append(i)
            shapes.add(_tile_shape(c))
    return TinySelection(
        configs=tuple(ft[i] for i in sorted(chosen)),
        cover=tuple(ft[i] for i in idx),
        padding=tuple(ft[i] for i in padding),
        status=status,
        universe=universe,
    )


def _selection_table(rule_set: str, combo: Combo, configs: Sequence):
    return configs_table(
        f"rules.{rule_set}.selection", kind_of(combo.variant), configs,
        f"{rule_set}: this config is not one of the {len(configs)} configs {rule_set} selects from full "
        f"for {combo.key}",
        _SRC, doc=f"One allowed row per config the {rule_set} contract selects from full for the combination.",
    )


class _SubsetRuleSet(RuleSet):
    #: (combo, its basis) -> the configs the rule set selects from full, in name order
    selection: Callable[[Combo, tuple], Sequence]

    def constraints(self, combo: Combo) -> Sequence[Constraint]:
        return _constraints(self.name, type(self).selection, combo, _basis(combo))  # the basis, once per call


@MEMOS.cached("subsets.constraints")
def _constraints(name: str, selection: Callable[[Combo, tuple], Sequence], combo: Combo, basis: tuple) -> tuple:
    """Keyed by the basis too: another CK version selects again. ``basis[1]`` is full's constraints."""
    return (*basis[1], _selection_table(name, combo, selection(combo, basis)))


def _tiny_configs(combo: Combo, basis: tuple) -> tuple:
    return _tiny_selection(combo, basis).configs


class FullTestsRuleSet(_SubsetRuleSet):
    name = "full-tests"
    selection = staticmethod(_full_tests_selection)


class TinyRuleSet(_SubsetRuleSet):
    name = "tiny"
    selection = staticmethod(_tiny_configs)
