"""Valid configs near one config, by the model: candidates are tested against the constraints, never listed.

Two neighborhoods, both over the axes the model leaves a choice on (the
selection axes are fixed):

* ``hamming``: configs that differ in 1 to ``radius`` axes, each to any value
  of its domain;
* ``adjacent``: configs that differ in 1 to ``radius`` *ordered* axes (integer
  domains: tiles, waves, warp tiles, vectors, merged groups, ...), each by one
  step to the next smaller or larger value of its domain -- what a local search
  or a tuner steps along.

A candidate changes the axes ``S``. Every constraint that reads none of ``S``
gives the same verdict as on the config itself, so a candidate is valid when
the constraints reading ``S`` hold on it and every constraint the config
itself breaks reads some axis of ``S`` (sets of axes that cannot repair the
config are skipped whole). That is a few constraints per candidate, and
radius 1 is a few hundred candidates: no solve, no listing, whatever the size
of the space (the whole arch space included).

The answer is every valid config at distance 1..radius, in (distance, name)
order.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Iterator, NamedTuple

from ...space.config import config_fields
from .evaluate import UNEVALUABLE
from ..model import Model, config_class

__all__ = ["Neighbor", "neighbors", "METHODS", "MAX_RADIUS", "ordered_axes"]

#: The neighborhoods: any value of up to ``radius`` axes, or one step along up to ``radius`` ordered axes.
METHODS = ("hamming", "adjacent")
#: The most axes a query changes: candidates grow as (axes x values)^radius (gfx942, whole space: radius 3
#: answers in about 1 s, radius 4 in 40 s), so a larger radius is refused rather than left to run.
MAX_RADIUS = 3


class Neighbor(NamedTuple):
    """A valid config near another: its name, how many axes differ, the config, and the changed values."""

    name: str
    distance: int
    config: object
    changed: tuple[tuple[str, object], ...]  # (axis, value in this config), in the config's field order

    def as_dict(self) -> dict:
        return {"name": self.name, "distance": self.distance, "changed": dict(self.changed)}


def ordered_axes(model: Model) -> tuple[str, ...]:
    """The model's free axes whose values are ordered numbers (integers, not flags)."""
    return tuple(a for a in _free(model) if all(type(v) is int for v in model.domains[a]))


def _free(model: Model) -> tuple[str, ...]:
    return tuple(a for a in model.axes if len(model.domains[a]) > 1)


def _moves(model: Model, config_values: dict, axis: str, method: str) -> tuple:
    """The values ``axis`` can move to from the config's."""
    domain = model.domains[axis]
    here = config_values[axis]
    if method == "hamming":
        return tuple(v for v in domain if v != here)
    ordered = sorted(domain)
    if here not in ordered:
        return ()
    i = ordered.index(here)
    return tuple(ordered[j] for j in (i - 1, i + 1) if 0 <= j < len(ordered))


def neighbors(model: Model, config, radius: int = 1, method: str = "hamming", enough: int | None = None,
               keep=None) -> list[Neighbor]:
    """Every valid config of ``model`` at distance 1..``radius`` from ``config`` (valid or not), in
    (distance, name) order; with ``enough``, stops after the first distance at which that many are found
    (the answer is still complete up to that distance). ``keep``: a further test on candidates."""
    if method not in METHODS:
        raise ValueError(f"unknown neighborhood {method!r}; valid: {', '.join(METHODS)}")
    cls = config_class(model.kind)
    fields = config_fields(cls)
    values = dict(zip(fields, config))
    axes = _free(model) if method == "hamming" else ordered_axes(model)
    reads = {a: [] for a in axes}
    broken = set()
    for k, c in enumerate(model.constraints):
        for a in set(c.scope):
            if a in reads:
                reads[a].append(k)
        if not _holds(c, values):
            broken.add(k)
    moves = {a: _moves(model, values, a, method) for a in axes}
    found: list[Neighbor] = []
    for d in range(1, radius + 1):
        level = []
        for changed, config_values in _candidates(model, values, axes, moves, reads, broken, d):
            cand = tuple.__new__(cls, [config_values[f] for f in fields])
            if keep is not None and not keep(cand):
                continue
            level.append(Neighbor(cand.name(), d, cand, tuple((f, config_values[f]) for f in fields
                                                                if f in changed)))
        level.sort(key=lambda n: n.name)
        found.extend(level)
        if enough is not None and len(found) >= enough:
            break
    return found


def _candidates(model: Model, values: dict, axes: tuple, moves: dict, reads: dict, broken: set,
                d: int) -> Iterator[tuple[frozenset, dict]]:
    """(changed axes, values) of every valid candidate changing exactly ``d`` axes."""
    constraints = model.constraints
    for subset in combinations(axes, d):
        if any(not moves[a] for a in subset):
            continue
        touched = set().union(*(reads[a] for a in subset))
        if not broken <= touched:  # a broken constraint reads none of these axes: still broken
            continue
        checks = [constraints[k] for k in sorted(touched)]
        for choice in product(*(moves[a] for a in subset)):
            cand = dict(values)
            cand.update(zip(subset, choice))
            if all(_holds(c, cand) for c in checks):
                yield frozenset(subset), cand


def _holds(constraint, values: dict) -> bool:
    try:
        return bool(constraint.holds(tuple(values[a] for a in constraint.scope)))
    except UNEVALUABLE:  # cannot be evaluated on these values: broken
        return False
