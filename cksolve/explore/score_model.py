"""The CP-SAT model of a search: the space's constraints, and the score as an exact integer objective.

The score is a product of factors, each a function of a few axes (the tile
factor of tile_m, tile_n, tile_k and groups_to_merge; the vector factor of the
three vector sizes). A factor arrives tabulated: its (value, axis values) rows,
best first, ties in a fixed order. The model gets, per factor, a table from its
axes to the row's *position* and to the *level* of its value (the rank of the
value among the factor's distinct values); an element constraint maps the
levels to the *rank* of their product among all distinct products (the
products are the floats the exact search multiplies, so equal scores share a
rank). The objective, minimised, is the key

    rank * (rows of all factors) + positions in mixed radix

so it orders configs by score, then by the factors' positions: the order in
which the exact best-first search visits them. It is exact (no rounding: only
ranks and positions are integers), the optimum is unique per score tuple, and
both searches report the same tuples in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from math import prod

from ..solver.cpsat import compile_model, deterministic_solver
from ..solver.model import Model

__all__ = ["Factor", "ScoreModel", "search_solver"]


def search_solver(time_limit: float):
    """The deterministic solver with one round of presolve, without probing or symmetry detection: on the
    whole space they took 14 of a solve's 15 s (the search itself is instant), and the answer is the same."""
    solver = deterministic_solver(time_limit)
    solver.parameters.cp_model_probing_level = 0
    solver.parameters.symmetry_level = 0
    solver.parameters.max_presolve_iterations = 1
    return solver


@dataclass(frozen=True)
class Factor:
    """One factor of the score: its axes and its (value, axis values) rows, best first."""

    axes: tuple[str, ...]
    rows: tuple[tuple[float, tuple], ...]


class ScoreModel:
    """``model``'s CP-SAT model with the key of the module docstring as ``key``, to minimise."""

    def __init__(self, model: Model, factors: tuple[Factor, ...]):
        self.compiled = compiled = compile_model(model)
        self.factors = factors
        self.sizes = tuple(len(f.rows) for f in factors)
        self.empty = compiled.empty
        if self.empty:
            return
        cp = self.cp = compiled.cp
        positions, levels, self._levels = [], [], []
        for f in factors:
            index = [compiled.index[a] for a in f.axes]
            live = [(k, value, values) for k, (value, values) in enumerate(f.rows)
                    if all(v in ix for ix, v in zip(index, values))]
            if not live:
                self.empty = True
                return
            values_desc = sorted({value for _k, value, _v in live}, reverse=True)
            level_of = {v: i for i, v in enumerate(values_desc)}
            pos = cp.NewIntVar(0, len(f.rows) - 1, f"position{len(positions)}")
            lev = cp.NewIntVar(0, len(values_desc) - 1, f"level{len(levels)}")
            cp.AddAllowedAssignments([compiled.vars[a] for a in f.axes] + [pos, lev],
                                     [(*(ix[v] for ix, v in zip(index, values)), k, level_of[value])
                                      for k, value, values in live])
            positions.append(pos)
            levels.append(lev)
            self._levels.append(values_desc)
        products = [prod(p) for p in product(*self._levels)]
        self.scores = sorted(set(products), reverse=True)  # rank -> score
        rank_of = {s: r for r, s in enumerate(self.scores)}
        cell = cp.NewIntVar(0, len(products) - 1, "levels")
        cp.Add(cell == _radix(levels, [len(v) for v in self._levels]))
        rank = cp.NewIntVar(0, len(self.scores) - 1, "rank")
        cp.AddElement(cell, [rank_of[p] for p in products], rank)
        self.span = prod(self.sizes)
        self.key = cp.NewIntVar(0, len(self.scores) * self.span - 1, "key")
        cp.Add(self.key == rank * self.span + _radix(positions, self.sizes))
        cp.Minimize(self.key)

    def positions(self, key: int) -> tuple[int, ...]:
        """Each factor's row position in the config of ``key``."""
        out = []
        rest = key % self.span
        for size in reversed(self.sizes):
            rest, p = divmod(rest, size)
            out.append(p)
        return tuple(reversed(out))

    def best_score(self, bound: float) -> float:
        """The highest score a key of at least ``bound`` (an objective bound) can have."""
        return self.scores[min(max(int(bound), 0) // self.span, len(self.scores) - 1)]


def _radix(variables: list, sizes: list):
    """The linear expression of ``variables`` as digits of a mixed radix (the last varies fastest)."""
    expr, weight = 0, 1
    for v, size in zip(reversed(variables), reversed(sizes)):
        expr += weight * v
        weight *= size
    return expr
