"""Minimum set cover with a deterministic tie-break: an exact search, and CP-SAT to certify it.

Used by the ``tiny`` rule set (:mod:`cksolve.derived.subsets`): pick the
fewest configs whose coverage sets (feature category, pipeline/scheduler pair)
together cover a universe.

The answer is defined independently of any solver's search, so it is the same
on every run and every machine: among the covers of minimum size, the one
whose sorted index tuple is lexicographically smallest -- i.e. it prefers
earlier items (callers pass items in canonical name order). Items with the
same (universe-restricted) set are interchangeable; the lexicographically
smallest cover only ever uses the first of them, so both solvers work on the
*distinct* sets.

:func:`minimum_cover` is an exact branch and bound in plain Python over bit
masks: iterative deepening on the size, and at each size a depth-first search
that tries sets in index order, so the first cover it meets is the
lexicographically smallest of that size. ``tiny``'s instances have at most 11
elements and 11 distinct sets (covers of at most 8), where this takes
microseconds and, unlike CP-SAT, costs no import of OR-Tools (0.4-0.5 s, it
loads numpy and pandas) in the main job.

:func:`minimum_cover_cpsat` is the same contract stated as a CP-SAT model
(phase 1 minimises the count; phase 2 fixes it and maximises weights
``2**(m-1-j)``, so including an earlier set outweighs every later one
together, or fixes the sets one by one beyond 60 sets). The tests run both on
every combination of every architecture and require equal answers, which
certifies the search as optimal with CP-SAT's proof.
"""

from __future__ import annotations

from typing import Iterable, Sequence

__all__ = ["minimum_cover", "minimum_cover_cpsat", "CoverError"]

_LEX_BITS = 60


class CoverError(ValueError):
    """The items cannot cover the universe."""


def _distinct_sets(items: Sequence[frozenset], universe: Iterable | None) -> tuple[list, list[frozenset], list[int]]:
    """(universe in a fixed order, distinct non-empty restricted sets, the first item of each).

    Raises :class:`CoverError` if some element is in no item.
    """
    items = [frozenset(s) for s in items]
    elements = sorted(set().union(*items) if universe is None else set(universe), key=repr)
    wanted = frozenset(elements)
    missing = wanted - frozenset().union(*items) if items else wanted
    if missing:
        raise CoverError(f"no item covers {sorted(missing, key=repr)}")
    first: dict[frozenset, int] = {}
    for i, s in enumerate(items):
        r = s & wanted
        if r and r not in first:
            first[r] = i
    return elements, list(first), list(first.values())  # in order of first occurrence


def minimum_cover(items: Sequence[frozenset[str]], universe: Iterable[str] | None = None) -> tuple[tuple[int, ...], str]:
    """Indices of a minimum subfamily of ``items`` covering ``universe``, and ``"OPTIMAL"``.

    ``universe`` defaults to the union of the items. The status is always
    ``"OPTIMAL"`` (the search is exact); it is returned so that callers and
    :func:`minimum_cover_cpsat` share one signature. Raises
    :class:`CoverError` if some element is in no item.
    """
    elements, sets, index = _distinct_sets(items, universe)
    if not elements:
        return (), "OPTIMAL"
    bit = {e: 1 << i for i, e in enumerate(elements)}
    masks = [sum(map(bit.__getitem__, s)) for s in sets]
    full = (1 << len(elements)) - 1
    # reach[j]: what sets j, j+1, ... can still cover (a branch that needs more is dead)
    reach = [0] * (len(masks) + 1)
    for j in range(len(masks) - 1, -1, -1):
        reach[j] = reach[j + 1] | masks[j]
    for size in range(1, len(masks) + 1):
        found = _first_cover(masks, reach, full, 0, size, 0)
        if found is not None:
            return tuple(sorted(index[j] for j in found)), "OPTIMAL"
    raise AssertionError("unreachable: every element is in some set")  # pragma: no cover


def _first_cover(masks: list[int], reach: list[int], full: int, start: int, left: int, covered: int) -> list | None:
    """The lexicographically first ``left`` sets from ``start`` on that complete ``covered``, or None.

    Called with sizes in increasing order, so no smaller cover exists: a set
    that adds nothing to those already chosen is never part of the answer (it
    could be dropped), and the missing elements must fit in ``left`` sets of
    the largest remaining gain.
    """
    missing = full & ~covered
    if reach[start] & missing != missing:
        return None
    best_gain = max((m & missing).bit_count() for m in masks[start:])
    if best_gain * left < missing.bit_count():
        return None
    for j in range(start, len(masks) - left + 1):
        if reach[j] & missing != missing:
            return None  # reach only shrinks as j grows
        gain = masks[j] & missing
        if not gain:
            continue
        if gain == missing:
            if left == 1:
                return [j]
            continue  # a smaller cover would exist; sizes are tried in increasing order
        if left > 1:
            rest = _first_cover(masks, reach, full, j + 1, left - 1, covered | gain)
            if rest is not None:
                return [j, *rest]
    return None


def minimum_cover_cpsat(items: Sequence[frozenset[str]], universe: Iterable[str] | None = None,
                        time_limit: float = 30.0) -> tuple[tuple[int, ...], str]:
    """The same answer as :func:`minimum_cover`, from CP-SAT (the certificate the tests use).

    The status is CP-SAT's status name: ``"OPTIMAL"`` when both phases proved
    optimality; anything else means the time limit was hit and the cover is
    feasible but maybe not minimum.
    """
    # deferred: OR-Tools costs 0.4-0.5 s to import and only the certificate needs it
    from ortools.sat.python import cp_model  # deferred (see above)

    from ..solver.cpsat import deterministic_solver  # deferred: it loads OR-Tools

    elements, sets, index = _distinct_sets(items, universe)
    if not elements:
        return (), "OPTIMAL"
    m = len(sets)

    def model_of():
        model = cp_model.CpModel()
        x = [model.NewBoolVar(f"x{j}") for j in range(m)]
        for e in elements:
            model.AddBoolOr([x[j] for j, s in enumerate(sets) if e in s])
        return model, x

    # phase 1: fewest sets
    model, x = model_of()
    model.Minimize(sum(x))
    solver = deterministic_solver(time_limit)
    status = solver.Solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):  # pragma: no cover - guarded by _distinct_sets
        raise CoverError(f"CP-SAT found no cover ({solver.StatusName(status)})")
    statuses = [solver.StatusName(status)]
    size = round(solver.ObjectiveValue())

    # phase 2: among covers of that size, the lexicographically smallest
    model, x = model_of()
    model.Add(sum(x) == size)
    if m <= _LEX_BITS:
        model.Maximize(sum((1 << (m - 1 - j)) * x[j] for j in range(m)))
        solver = deterministic_solver(time_limit)
        status = solver.Solve(model)
        statuses.append(solver.StatusName(status))
        chosen = [j for j in range(m) if solver.Value(x[j])]
    else:
        chosen = []
        for j in range(m):
            trial = model.Clone()
            trial.Add(trial.GetBoolVarFromProtoIndex(x[j].Index()) == 1)
            status = deterministic_solver(time_limit).Solve(trial)
            keep = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
            model.Add(x[j] == (1 if keep else 0))
            if keep:
                chosen.append(j)
        statuses.append("OPTIMAL")
    worst = next((s for s in statuses if s != "OPTIMAL"), "OPTIMAL")
    return tuple(sorted(index[j] for j in chosen)), worst
