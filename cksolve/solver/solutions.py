"""What a solve returns: independent components, each core rows extended by leaves.

Counting multiplies the components' sizes, and a component's size sums, over
its core rows, the product of its leaves' option counts: no config is formed.
``configs`` expands everything into config tuples.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from functools import partial
from itertools import product
from math import prod
from operator import itemgetter
from typing import Callable

from ..space.config import config_fields
from .model import Model, config_class
from .relations import key_getter

__all__ = ["Component", "Leaf", "SolutionSet"]


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

    def expand(self) -> list[tuple]:
        """Every full row (over ``axes``)."""
        if self.counted is not None:
            return self.joined().expand()
        rows = self.rows
        for leaf in self.leaves:
            options = leaf.options
            rows = [r + o for r, k in zip(rows, map(key_getter(leaf.key), rows)) for o in options[k]]
        return rows if isinstance(rows, list) else list(rows)


@dataclass(frozen=True)
class SolutionSet:
    """The solutions of one model, as a product of independent components."""

    model: Model
    fixed: dict
    components: tuple[Component, ...]
    empty: bool = False

    def count(self) -> int:
        if self.empty:
            return 0
        return prod(c.count() for c in self.components)

    def __len__(self) -> int:
        return self.count()

    def configs(self) -> list:
        """Every solution as a config (built as tuples: 30+ fields, 40k configs).

        The cyclic garbage collector is paused meanwhile: the configs are
        acyclic tuples, and the collections their allocation triggers walk every
        long-lived cached table (measured: 0.25 s -> 0.15 s for all of full).
        """
        if self.empty:
            return []
        if not gc.isenabled():
            return self._configs()
        gc.disable()
        try:
            return self._configs()
        finally:
            gc.enable()

    def _configs(self) -> list:
        cls = config_class(self.model.kind)
        fixed_axes = tuple(self.fixed)
        components = [c.joined() for c in self.components]
        offsets, flat_axes = {}, list(fixed_axes)
        for comp in components:
            flat_axes.extend(comp.axes)
        for i, a in enumerate(flat_axes):
            offsets[a] = i
        pick = itemgetter(*(offsets[f] for f in config_fields(cls)))
        make = partial(tuple.__new__, cls)
        base = tuple(self.fixed[a] for a in fixed_axes)
        rows = [c.expand() for c in components]
        if len(rows) == 1:
            full = [base + r for r in rows[0]] if base else rows[0]
        else:
            full = [base + sum(parts, ()) for parts in product(*rows)]
        return list(map(make, map(pick, full)))
