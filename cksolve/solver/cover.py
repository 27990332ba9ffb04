"""Minimum set cover with CP-SAT, with a deterministic tie-break.

Used by the ``tiny`` rule set (:mod:`cksolve.derived.subsets`): pick the
fewest configs whose coverage sets (feature category, pipeline/scheduler pair)
together cover a universe.

The answer is defined independently of the solver's search, so it is the same
on every run and every machine:

1. *phase 1* minimises the number of chosen items (status reported);
2. *phase 2* fixes that number and, among all minimum covers, picks the one
   whose sorted index tuple is lexicographically smallest -- i.e. it prefers
   earlier items (callers pass items in canonical name order).

Items with the same (universe-restricted) set are interchangeable; the
lexicographically smallest cover only ever uses the first of them, so the
model has one variable per *distinct* set. Phase 2 is one solve with weights
``2**(m-1-j)`` (maximised, so including an earlier set outweighs every later
one together) when the ``m`` distinct sets fit in 60 bits; otherwise it fixes
the sets one by one in order, keeping each one whenever a minimum cover with
it still exists. Both phases run with one worker and a fixed seed.
"""

from __future__ import annotations

from typing import Hashable, Iterable, Sequence

from ortools.sat.python import cp_model

from .cpsat import deterministic_solver as _solver

__all__ = ["minimum_cover", "CoverError"]

_LEX_BITS = 60


class CoverError(ValueError):
    """The items cannot cover the universe."""


def _model(sets: Sequence[frozenset], universe: Sequence[Hashable]):
    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"x{j}") for j in range(len(sets))]
    for e in universe:
        model.AddBoolOr([x[j] for j, s in enumerate(sets) if e in s])
    return model, x


def minimum_cover(items: Sequence[frozenset[str]], universe: Iterable[str] | None = None,
                  time_limit: float = 30.0) -> tuple[tuple[int, ...], str]:
    """Indices of a minimum subfamily of ``items`` covering ``universe``, and the solver status.

    ``universe`` defaults to the union of the items. The status is CP-SAT's
    status name, ``"OPTIMAL"`` when both phases proved optimality (the only
    outcome on inputs of the size cksolve builds); anything else means the
    time limit was hit and the cover returned is feasible but maybe not
    minimum. Raises :class:`CoverError` if some element is in no item.
    """
    items = [frozenset(s) for s in items]
    universe = sorted(set().union(*items) if universe is None else set(universe), key=repr)
    if not universe:
        return (), "OPTIMAL"
    wanted = frozenset(universe)
    missing = wanted - frozenset().union(*items) if items else wanted
    if missing:
        raise CoverError(f"no item covers {sorted(missing, key=repr)}")

    # one candidate per distinct non-empty restricted set: its first item
    first: dict[frozenset, int] = {}
    for i, s in enumerate(items):
        r = s & wanted
        if r and r not in first:
            first[r] = i
    sets = list(first)  # in order of first occurrence
    index = list(first.values())
    m = len(sets)

    # phase 1: fewest sets
    model, x = _model(sets, universe)
    model.Minimize(sum(x))
    solver = _solver(time_limit)
    status = solver.Solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):  # pragma: no cover - guarded by `missing`
        raise CoverError(f"CP-SAT found no cover ({solver.StatusName(status)})")
    statuses = [solver.StatusName(status)]
    size = round(solver.ObjectiveValue())

    # phase 2: among covers of that size, the lexicographically smallest
    model, x = _model(sets, universe)
    model.Add(sum(x) == size)
    if m <= _LEX_BITS:
        model.Maximize(sum((1 << (m - 1 - j)) * x[j] for j in range(m)))
        solver = _solver(time_limit)
        status = solver.Solve(model)
        statuses.append(solver.StatusName(status))
        chosen = [j for j in range(m) if solver.Value(x[j])]
    else:
        chosen = []
        for j in range(m):
            trial = model.Clone()
            trial.Add(trial.GetBoolVarFromProtoIndex(x[j].Index()) == 1)
            solver = _solver(time_limit)
            status = solver.Solve(trial)
            keep = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
            model.Add(x[j] == (1 if keep else 0))
            if keep:
                chosen.append(j)
        statuses.append("OPTIMAL")
    worst = next((s for s in statuses if s != "OPTIMAL"), "OPTIMAL")
    return tuple(sorted(index[j] for j in chosen)), worst
