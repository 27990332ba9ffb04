"""What a solve returns: independent components, each core rows extended by leaves.

Counting multiplies the components' sizes, and a component's size sums, over
its core rows, the product of its leaves' option counts: no config is formed.
``configs`` expands everything into config tuples.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property, partial
from bisect import bisect_right
from itertools import accumulate, product
from math import prod
from operator import itemgetter
from typing import Callable

from ...space.config import config_fields
from ...space.memos import MEMOS
from ..model import Model, config_class
from .relations import key_getter

__all__ = ["Component", "Leaf", "SolutionSet", "gc_paused", "interned", "SAME_COMPONENTS"]


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while tens of thousands of acyclic tuples are made.

    Configs, their names and their memo entries are acyclic, but allocating
    them triggers collections that walk every long-lived cached table
    (measured on ``full``: forming the configs 0.25 s -> 0.15 s, naming and
    sorting them 0.12 s -> 0.05 s). Nested uses are fine: only the outermost
    one re-enables the collector.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@dataclass(frozen=True)
class Leaf:
    """Axes that depend on the core only through ``key`` (positions in a core row).

    ``options`` maps the key of every core row to the non-empty tuple of value
    rows (over ``axes``) allowed with it. It is a memo shared across solves, so
    it may also hold other keys (with ``()`` where nothing is allowed).
    """

    axes: tuple[str, ...]
    key: tuple[int, ...]
    options: dict


@dataclass(frozen=True)
class Component:
    """Connected free axes: core rows, each extended by every option of every leaf.

    Once the coupled core (tile, waves, warp tile, pipeline, ...) is fixed, a
    table whose other axes nothing else reads -- specialization, vectors, the
    feature flags -- is independent of the rest; its options are a leaf keyed
    by the core values it depends on. Counting sums the products of option
    counts over core rows and never forms a config.
    """

    axes: tuple[str, ...]
    rows: tuple[tuple, ...]
    leaves: tuple[Leaf, ...] = ()
    #: set instead of rows when the component was too large to join (``counting.count_join``) ...
    counted: int | None = None
    #: ... and how to join it anyway, should it be listed
    join: Callable[[], "Component"] | None = field(default=None, compare=False, repr=False)
    #: ... and its exact solution tree (``conditioning.Part``), which samples it uniformly
    tree: object = field(default=None, compare=False, repr=False)

    def joined(self) -> "Component":
        """This component with its rows (joined now if it was only counted)."""
        return self if self.counted is None else self.join()

    def count(self) -> int:
        if self.counted is not None:
            return self.counted
        if not self.leaves:
            return len(self.rows)
        counts = [list(map(len, map(leaf.options.__getitem__, map(key_getter(leaf.key), self.rows))))
                  for leaf in self.leaves]
        if len(counts) == 1:
            return sum(counts[0])
        return sum(map(prod, zip(*counts)))

    @cached_property
    def sampling(self) -> tuple:
        """(rows in sorted order, cumulative numbers of configs per row, per leaf its options sorted): what
        uniform sampling draws from, independent of the hash order rows were joined in."""
        return self.sampling_tables()

    def sampling_tables(self) -> tuple:
        """``sampling``, made afresh and not kept (``batch_decode`` keeps its own arrays made from it)."""
        rows = sorted(self.rows)
        leaves = []
        weights = [1] * len(rows)
        for leaf in self.leaves:
            get = key_getter(leaf.key)
            options = {}
            for i, row in enumerate(rows):
                k = get(row)
                opts = options.get(k)
                if opts is None:
                    opts = options[k] = tuple(sorted(leaf.options[k]))
                weights[i] *= len(opts)
            leaves.append((get, leaf.axes, options))
        return tuple(rows), tuple(accumulate(weights)), tuple(leaves)

    @cached_property
    def size(self) -> int:
        """``count()``, computed once (a draw asks it per config)."""
        return self.count()

    def decode(self, r: int, out: dict) -> None:
        """The ``r``-th config of the component (0 <= r < size, in the fixed order of ``sampling``) into
        ``out`` (axis -> value): a uniform ``r`` gives a uniform draw."""
        if self.counted is not None:
            self.tree.decode(r, out)
            return
        rows, cumulative, leaves = self.sampling
        if not leaves:
            out.update(zip(self.axes, rows[r]))
            return
        i = bisect_right(cumulative, r)
        if i:
            r -= cumulative[i - 1]
        row = rows[i]
        out.update(zip(self.axes, row))
        for get, axes, options in leaves:
            opts = options[get(row)]
            r, j = divmod(r, len(opts))
            out.update(zip(axes, opts[j]))

    @cached_property
    def core(self) -> tuple[tuple[str, ...], frozenset]:
        """The core axes and the set of core rows (membership tests)."""
        n = len(self.axes) - sum(len(leaf.axes) for leaf in self.leaves)
        return self.axes[:n], frozenset(self.rows)

    def expand(self, prefix: tuple = (), leaves: tuple | None = None) -> list[tuple]:
        """Every full row (over ``axes``; over the core axes then ``leaves``' axes when given: the leaves in
        another order), each after ``prefix`` (joined to the core rows, not to every row)."""
        if self.counted is not None:
            return self.joined().expand(prefix, leaves)
        rows = [prefix + r for r in self.rows] if prefix else self.rows
        n = len(prefix)
        for leaf in self.leaves if leaves is None else leaves:
            options = leaf.options
            key = key_getter(tuple(i + n for i in leaf.key))
            rows = [r + o for r, k in zip(rows, map(key, rows)) for o in options[k]]
        return rows if isinstance(rows, list) else list(rows)

    def narrow_first(self) -> tuple:
        """The leaves in the order that forms the fewest partial rows when expanding: fewest options first."""
        if len(self.leaves) < 2 or self.counted is not None:
            return self.leaves
        fan = [sum(map(len, map(leaf.options.__getitem__, map(key_getter(leaf.key), self.rows))))
               for leaf in self.leaves]
        return tuple(leaf for _, _, leaf in sorted(zip(fan, range(len(fan)), self.leaves)))


#: (axes, rows, leaves' axes, keys and options memos) -> the first component made of them
SAME_COMPONENTS = MEMOS.memo("solutions.same_components")


def interned(comp: Component) -> Component:
    """``comp``, or the equal component made before it (same axes, rows and leaves, whose options are the same
    memos): archs whose rules reach a component by different relations then hold the same one, and their equal
    solution sets share their names (``direct.solve``). The memo holds the options, so their ids stay theirs."""
    if comp.counted is not None:
        return comp
    key = (comp.axes, comp.rows, tuple((leaf.axes, leaf.key, id(leaf.options)) for leaf in comp.leaves))
    return SAME_COMPONENTS.setdefault(key, comp)


@dataclass(frozen=True)
class SolutionSet:
    """The solutions of one model, as a product of independent components.

    ``memo`` holds what is derived from the solutions (their name order) and
    is shared by every solution set of equal solutions -- combinations that
    differ only where no constraint reads, or archs with the same facts -- so
    that work is done once.
    """

    model: Model
    fixed: dict
    components: tuple[Component, ...]
    empty: bool = False
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    def count(self) -> int:
        if self.empty:
            return 0
        return prod(c.size for c in self.components)  # each component counted once (a listing counts first)

    def __len__(self) -> int:
        return self.count()

    def rows_among(self, scope: tuple[str, ...], rows, fixed: dict) -> list[tuple]:
        """The ``rows`` (complete assignments over ``scope``) that are solutions, ``fixed`` being this set's
        fixed values: a membership test per component, no config formed."""
        if self.empty:
            return []
        at = {a: i for i, a in enumerate(scope)}
        fixed_of = key_getter(tuple(map(at.__getitem__, fixed)))
        want = tuple(fixed.values())
        kept = [r for r in rows if fixed_of(r) == want]
        for comp in self.components:
            core_axes, core_rows = comp.core
            core_of = key_getter(tuple(map(at.__getitem__, core_axes)))
            tests = [(key_getter(leaf.key), key_getter(tuple(map(at.__getitem__, leaf.axes))), leaf.options)
                     for leaf in comp.leaves]
            out = []
            for r in kept:
                core = core_of(r)
                if core in core_rows and all(own(r) in options.get(key(core), ()) for key, own, options in tests):
                    out.append(r)
            kept = out
        return kept

    def configs(self) -> list:
        """Every solution as a config (built as tuples: 30+ fields, 40k configs), GC paused (see ``gc_paused``)."""
        if self.empty:
            return []
        with gc_paused():
            return self._configs()

    def value_rows(self) -> list:
        """Every solution as a plain tuple of its config's values in field order: what naming and sorting
        read, made for less than configs (a config is made from one when asked)."""
        if self.empty:
            return []
        with gc_paused():
            pick, full = self._picked(any_order=True)
            return list(map(pick, full))

    def _configs(self) -> list:
        pick, full = self._picked()
        make = partial(tuple.__new__, config_class(self.model.kind))
        return list(map(make, map(pick, full)))

    def _picked(self, any_order: bool = False) -> tuple:
        """(pick, rows): every solution as a row over the fixed then the components' axes, and ``pick`` taking
        a row to its config's values in field order. ``any_order``: the rows in whatever order is cheapest to
        form (one component's leaves expanded narrowest first), for callers that sort them."""
        cls = config_class(self.model.kind)
        fixed_axes = tuple(self.fixed)
        components = [c.joined() for c in self.components]
        leaves = components[0].narrow_first() if any_order and len(components) == 1 else None
        offsets, flat_axes = {}, list(fixed_axes)
        for comp in components:
            if leaves is None:
                flat_axes.extend(comp.axes)
            else:
                flat_axes.extend(comp.axes[:len(comp.axes) - sum(len(leaf.axes) for leaf in leaves)])
                for leaf in leaves:
                    flat_axes.extend(leaf.axes)
        for i, a in enumerate(flat_axes):
            offsets[a] = i
        pick = itemgetter(*(offsets[f] for f in config_fields(cls)))
        base = tuple(self.fixed[a] for a in fixed_axes)
        if len(components) == 1:
            return pick, components[0].expand(base, leaves)
        rows = [c.expand() for c in components]
        return pick, [base + sum(parts, ()) for parts in product(*rows)]
