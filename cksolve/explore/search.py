"""``search``: the best valid configs for one problem, over a rule set or the whole space.

By default (``objective="performance"``) the search ranks by the analytic
performance model (``scoring.analytic``, the arch's default device unless
``ranking`` names one): ``ranked.py``, one result per distinct tile shape.

``objective="padding"`` ranks by the older padding score instead; it is what
``backend="cpsat"`` searches, because the performance model (floating-point
rooflines, minima and maxima over every axis) is not compiled to CP-SAT: only
the padding score's two factor tables are. The rest of this docstring is that
search.

The padding score (``workload.score``) of a GEMM kernel reads seven axes:
(tile_m, tile_n, tile_k, groups_to_merge) through the tile, occupancy and reuse
terms, and (vector_a, vector_b, vector_c) through the vector term, and it is
the product of those two factors. So the search is exact best-first over score
tuples: both factors are tabulated over the (propagated) domains of their axes,
sorted, and their products visited in decreasing order with a heap; each tuple
is tested for feasibility (some valid config of the rule set that can run the
problem has these seven values) by the direct backend with the seven axes
pinned. The first K feasible tuples are the K best scores; every better tuple
was proved infeasible, so the status is OPTIMAL (gap 0). Each tuple is shown
with one config that has it (the first of its configs in the solver's order)
and how many configs share it.

``where`` expressions (as in rule-set files) add constraints.

``backend="cpsat"`` asks CP-SAT instead: the same model, with the two factor
tables and the score's exact integer key (``score_model``) as the
objective; the K best come from K solves, each excluding the tuples found
before. A solve stopped by ``time_limit`` reports FEASIBLE with the gap
between its score and the best its objective bound allows. Either way each
tuple is shown with the direct backend's first config of that tuple and its
count, so both backends print the same lines when they agree.
"""

from __future__ import annotations

import heapq
import os
from dataclasses import dataclass
from itertools import product
from types import SimpleNamespace
from typing import TYPE_CHECKING

from ..arch.facts import common_facts
from ..errors import CksolveError, did_you_mean, shorten
from ..progress import phase
from ..rulesets.rule_set import RuleSet
from ..rulesets.where import MAX_EXPRESSIONS, WhereError, where_check
from ..solver import build_model, decode, get_backend, pinned, prune_domains, solve
from ..solver.engine.direct import transient
from ..space.combo import Combo
from ..space.kinds import GEMM
from ..space.variants import VARIANTS
from ..rulesets import takes_rule_set

if TYPE_CHECKING:  # the workload layer loads numpy: imported in search itself (see there), here for the annotation
    from ..workload import Problem

__all__ = ["SearchResult", "search", "SEARCH_BACKENDS", "SEARCH_OBJECTIVES", "TIME_LIMIT", "RANK_POOL",
           "RANKING_KEYS", "tie_note", "cost_notes"]

#: The backends that search: exact best-first over score tuples (the default), CP-SAT optimisation.
SEARCH_BACKENDS = ("direct", "cpsat")
#: What search ranks by: the performance model (the default; direct backend only), the padding score.
SEARCH_OBJECTIVES = ("performance", "padding")
#: Seconds one CP-SAT solve may take before it stops with the best it has (status FEASIBLE).
TIME_LIMIT = 60.0
#: tile shapes the analytic search hands a re-ranking scorer (``search --pool``)
RANK_POOL = 50

_TILE_AXES = ("tile_m", "tile_n", "tile_k", "groups_to_merge")
_VECTOR_AXES = ("vector_a", "vector_b", "vector_c")
#: Feasibility tests a search makes at most before it stops with the best it has (status FEASIBLE).
PROBE_LIMIT = 20_000
#: Candidates visited at most (most are rejected by a rule over the score axes alone, without a solve).
SKIP_LIMIT = 2_000_000


@dataclass(frozen=True)
class SearchResult:
    """The best config a search found for one combination, its score and the score's terms."""

    combo: Combo
    config: object
    score: float
    terms: dict
    configs: int  # valid configs sharing the seven score axes' values

    @property
    def name(self) -> str:
        return self.config.name()

    def as_dict(self) -> dict:
        return {"arch": self.combo.arch, "variant": self.combo.variant, "dtype": self.combo.dtype,
                "ndim": self.combo.ndim, "name": self.name, "score": round(self.score, 6),
                **{k: round(v, 6) for k, v in self.terms.items()}, "configs": self.configs}


def tie_note(results: list) -> str:
    """A note when ``results`` (best first) hold fewer distinct scores than results ("" otherwise): which ranks
    tie, so a top K of equal scores is not read as a ranking."""
    scores = [r.score for r in results]
    if len(set(scores)) == len(scores):
        return ""
    groups: dict = {}
    for rank, score in enumerate(scores, 1):
        groups.setdefault(score, []).append(rank)
    tied = ["-".join(map(str, (g[0], g[-1]))) if g == list(range(g[0], g[-1] + 1)) else ",".join(map(str, g))
            for g in groups.values() if len(g) > 1]
    return (f"note: {len(set(scores))} distinct scores among the {len(scores)} results; ranks {', '.join(tied)} tie "
            "(equal estimates: the model does not tell them apart; ties are listed by name)")


def cost_notes(results: list, fx: dict, dtype: str) -> list[str]:
    """Notes naming the ranks whose config has a shape the model prices for the hardware (``factors.toml``:
    workgroups of more than ``waves.many_waves`` waves, vectors wider than ``vector.load_bytes``), with the
    price, so such a pick is read as the model's judgement and not as an unpriced default."""
    wv, vec = fx["waves"], fx["vector"]
    dtype_bytes = common_facts().element_size[dtype]
    many = [i for i, r in enumerate(results, 1)
            if r.config.wave_m * r.config.wave_n * r.config.wave_k > wv["many_waves"]]
    wide = [i for i, r in enumerate(results, 1)
            if max(r.config.vector_a, r.config.vector_b, r.config.vector_c) * dtype_bytes > vec["load_bytes"]]
    out = []
    if many:
        out.append(f"note: rank{'s' if len(many) > 1 else ''} {', '.join(map(str, many))}: workgroups of more than "
                   f"{wv['many_waves']:g} waves, priced at {wv['many_waves_rate']:g} of the rate "
                   "(waves.many_waves_rate: barriers and issue slots) and still ahead")
    if wide:
        out.append(f"note: rank{'s' if len(wide) > 1 else ''} {', '.join(map(str, wide))}: vectors wider than "
                   f"{vec['load_bytes']:g} bytes, priced at {vec['wide']:g} per operand (vector.wide: staging "
                   "registers) and still ahead")
    return out


def _models(problem, rule_set: RuleSet | None, arch: str, dtype: str, extra: tuple):
    f = problem.facts()
    variant = f.direction
    if variant not in VARIANTS:
        raise CksolveError(f"no GEMM variant for direction {variant}")
    combo = Combo(arch, variant, dtype, f.ndim)
    from ..workload import applicability_constraints  # deferred, as in search: the workload layer loads numpy

    rules = applicability_constraints(f, arch, dtype, GEMM.name)
    return combo, build_model(combo, rule_set, (*rules, *extra))


#: The keys of ``search``'s ``ranking``.
RANKING_KEYS = ("device", "rescorer", "pool", "factors")


#: each ranking key's accepted values: (a test of the value, what the error line says it must be)
_RANKING_TYPES = {
    "device": (lambda v: isinstance(v, str), "a device name (see `cksolve archs`)"),
    "rescorer": (lambda v: callable(getattr(v, "score", None)), "a scorer (scoring.get_scorer)"),
    "pool": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "factors": (lambda v: isinstance(v, (str, os.PathLike)), "a path to a factors file"),
}


def _check_ranking(ranking) -> None:
    """``search``'s ``ranking``: a dict of known keys, each value of its type (None: the default) -- one error
    line, not an AttributeError inside the ranking."""
    if ranking is None:
        return
    if not isinstance(ranking, dict):
        raise TypeError(f"ranking must be a dict ({', '.join(RANKING_KEYS)}), not {type(ranking).__name__}")
    for key, value in ranking.items():
        if key not in RANKING_KEYS:
            raise CksolveError(f"unknown ranking key {shorten(key)}; valid: {', '.join(RANKING_KEYS)}"
                               f"{did_you_mean(key, RANKING_KEYS)}")
        ok, what = _RANKING_TYPES[key]
        if value is not None and not ok(value):
            raise CksolveError(f"ranking {key} must be {what}, not {type(value).__name__} {shorten(value)}")


@takes_rule_set
def search(problem: Problem | str, arch: str, dtype: str, rule_set: RuleSet | None = None, top: int = 1,
           where: tuple[str, ...] = (), backend: str | None = None,
           time_limit: float = TIME_LIMIT, ranking: dict | None = None,
           objective: str | None = None) -> tuple[list, str]:
    """(the ``top`` best configs, status) for the problem (a ``Problem`` or a FIELD=VALUE spec), over ``rule_set``
    (None: the whole space).

    ``objective`` is one of ``SEARCH_OBJECTIVES`` (None: "padding" for the cpsat backend, else
    "performance"). By the performance model the results are ``ranked.RankedResult``s, one per tile shape
    (``ranking``: {device, rescorer, pool, factors}, each optional); by the padding score ``SearchResult``s.

    The status is OPTIMAL, INFEASIBLE (no config), FEASIBLE (the best-first search passed its limits; CP-SAT
    ran out of ``time_limit`` and says its gap, "FEASIBLE (gap 0.25)": the best score might be that much
    higher) or UNKNOWN (CP-SAT ran out of time before finding any); ``backend`` is one of
    ``SEARCH_BACKENDS`` (None: the first)."""
    # The workload layer (problems, run-time rules, scores) is imported here, not at the top: every command
    # imports this face, and the workload layer's numpy costs the others 50 ms of start-up.
    from ..workload import as_problem  # deferred: see the comment above

    if top < 1:
        raise CksolveError(f"{{opt:top}} {top} must be at least 1")
    backend = backend or SEARCH_BACKENDS[0]
    if backend not in SEARCH_BACKENDS:
        get_backend(backend)  # an unknown name: the registry's error
        raise CksolveError(f"the {backend} backend cannot search (it has no objective); search with "
                           f"{' or '.join(SEARCH_BACKENDS)}")
    if not time_limit > 0:
        raise CksolveError(f"{{opt:time_limit}} {time_limit} must be positive")
    objective = objective or ("padding" if backend == "cpsat" else "performance")
    if objective not in SEARCH_OBJECTIVES:
        raise CksolveError(f"unknown search objective {objective!r}; valid: {', '.join(SEARCH_OBJECTIVES)}")
    if objective == "performance" and backend == "cpsat":
        raise CksolveError("the cpsat backend searches by the padding score only (the performance model is not "
                           "compiled to CP-SAT); search by the performance model with the direct backend")
    _check_ranking(ranking)
    if ranking is not None and objective != "performance":
        raise CksolveError("a device, model or measurements rank by the performance model: not with the "
                           "padding score (the cpsat backend)")
    problem = as_problem(problem)
    extra = []
    if len(where) > MAX_EXPRESSIONS:
        raise CksolveError(f"{len(where)} {{opt:where}} conditions, more than {MAX_EXPRESSIONS}")
    for i, text in enumerate(where):
        try:
            extra.append(where_check(f"search.where[{i}]", text, "search where", f"where[{i}]"))
        except WhereError as exc:
            raise CksolveError(f"{{opt:where}} {shorten(text)} at column {exc.column}: {exc.what}") from None
    phase(f"building the model of {rule_set.name if rule_set is not None else 'the whole space'}")
    combo, model = _models(problem, rule_set, arch, dtype, tuple(extra))
    for text, check in zip(where, extra):
        foreign = [a for a in check.scope if a not in model.axes]
        if foreign:  # an axis of another kernel kind (depthwise): the search ranks GEMM configs only
            raise CksolveError(f"{{opt:where}} {text!r}: {', '.join(foreign)} is not an axis of the "
                               f"{model.kind} configs search ranks")
    domains = prune_domains(model.constraints, {a: tuple(model.domains[a]) for a in model.axes})
    if objective == "performance":
        from .ranked import ranked_search  # deferred: numpy and the scorers load for this search only

        return ranked_search(problem, combo, model, domains, arch, dtype, top,
                             **{"pool": RANK_POOL, **(ranking or {})})
    if any(not d for d in domains.values()):
        return [], "INFEASIBLE"
    f = problem.facts()
    tiles = _factor(f, arch, dtype, domains, _TILE_AXES, ("tile", "occupancy", "reuse"))
    vectors = _factor(f, arch, dtype, domains, _VECTOR_AXES, ("vector",))

    if backend == "cpsat":
        return _cpsat(combo, model, tiles, vectors, top, time_limit)
    score_axes = set(_TILE_AXES) | set(_VECTOR_AXES)
    local = [c for c in model.constraints if len(c.scope) > 1 and set(c.scope) <= score_axes]
    skipped = 0
    found: list[SearchResult] = []
    heap = [(-(tiles[0][0] * vectors[0][0]), 0, 0)]
    seen = {(0, 0)}
    probes = 0
    while heap and len(found) < top:
        if probes >= PROBE_LIMIT:
            return found, "FEASIBLE"
        _neg, i, j = heapq.heappop(heap)
        for ni, nj in ((i + 1, j), (i, j + 1)):
            if ni < len(tiles) and nj < len(vectors) and (ni, nj) not in seen:
                seen.add((ni, nj))
                heapq.heappush(heap, (-(tiles[ni][0] * vectors[nj][0]), ni, nj))
        pins = {**dict(zip(_TILE_AXES, tiles[i][1])), **dict(zip(_VECTOR_AXES, vectors[j][1]))}
        skipped += 1
        if skipped > SKIP_LIMIT:
            return found, "FEASIBLE"
        if not all(c.holds(tuple(pins[a] for a in c.scope)) for c in local):
            continue  # a rule over score axes only (merged groups and vector A, say): no solve needed
        probes += 1
        result = _result(combo, model, tiles[i], vectors[j])
        if result is not None:
            found.append(result)
    return found, "OPTIMAL" if found else "INFEASIBLE"


def _result(combo: Combo, model, tile: tuple, vector: tuple) -> SearchResult | None:
    """The tuple of ``tile`` and ``vector`` (rows of ``_factor``) with its first config and count, if any."""
    pins = {**dict(zip(_TILE_AXES, tile[1])), **dict(zip(_VECTOR_AXES, vector[1]))}
    with transient():  # memoised, each pinned solve's rows stayed for the process: O(K) memory, not O(K) solves
        solutions = solve(pinned(model, pins))
        n = solutions.count()
        if not n:
            return None
        config = decode(solutions, 0)  # its first config: what the direct backend's find_one returns
    return SearchResult(combo, config, tile[0] * vector[0], {**tile[2], **vector[2]}, n)


def _cpsat(combo: Combo, model, tiles: list, vectors: list, top: int, time_limit: float):
    """The CP-SAT search: K solves of the score model, each excluding the tuples found before."""
    from .score_model import Factor, ScoreModel, search_solver  # deferred: OR-Tools takes 0.5 s to import

    factors = (Factor(_TILE_AXES, tuple(t[:2] for t in tiles)), Factor(_VECTOR_AXES, tuple(v[:2] for v in vectors)))
    sm = ScoreModel(model, factors)
    if sm.empty:
        return [], "INFEASIBLE"
    found: list[SearchResult] = []
    gap = 0.0
    while len(found) < top:
        solver = search_solver(time_limit)
        status = solver.StatusName(solver.Solve(sm.cp))
        if status not in ("OPTIMAL", "FEASIBLE"):
            if status != "INFEASIBLE":  # stopped before any solution: what is left is unknown
                gap = float("inf")
            break
        key = solver.Value(sm.key)
        i, j = sm.positions(key)
        result = _result(combo, model, tiles[i], vectors[j])
        assert result is not None, "CP-SAT found a score tuple the direct backend has no config for"
        found.append(result)
        if status == "OPTIMAL":
            sm.cp.Add(sm.key > key)  # every key below it is infeasible or found
        else:
            gap = max(gap, sm.best_score(solver.BestObjectiveBound()) / result.score - 1)
            sm.cp.Add(sm.key != key)
    if not found:
        return [], "INFEASIBLE" if gap == 0 else "UNKNOWN"
    return found, "OPTIMAL" if gap == 0 else f"FEASIBLE (gap {gap:.4g})"


def _factor(f, arch: str, dtype: str, domains: dict, axes: tuple, names: tuple) -> list:
    """(product of the named score terms, values, terms) for every tuple of ``axes``' domains, best first
    (ties in domain order)."""
    base = {"kind": "gemm", "dtype": dtype, "tile_m": 16, "tile_n": 16, "tile_k": 16, "groups_to_merge": 1,
            "vector_a": 1, "vector_b": 1, "vector_c": 1}
    from ..workload.score import score_terms  # deferred, as in search

    out = []
    for k, values in enumerate(product(*(domains[a] for a in axes))):
        terms = score_terms(f, SimpleNamespace(**{**base, **dict(zip(axes, values))}), arch)
        mine = {t: terms[t] for t in names}
        value = 1.0
        for t in names:
            value *= mine[t]
        out.append((value, values, mine, k))
    out.sort(key=lambda o: (-o[0], o[3]))
    return [o[:3] for o in out]
