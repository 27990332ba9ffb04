"""``search`` by a performance model: the best distinct tile shapes, optionally re-ranked by another scorer.

The analytic performance model (``scoring.analytic``) reads nearly every axis,
so the search is best-first over the axes it reads most (``PRIMARY``: tile,
wave split, warp tile, pipeline, scheduler, double buffer, merged groups):

1. the primary tuples consistent with every constraint whose axes are all
   primary (or fixed) are enumerated, geometry first;
2. each gets an upper bound: its score with the other scored axes (vectors,
   epilogue, specialization, split image, two-stage, stream-K) at their best
   values in the pruned domains;
3. tuples are visited best bound first; a tuple is feasible when the solver
   finds a valid config with it (first with the other axes at their best
   values: then its score is the bound, exact; else any config, scored and put
   back in order);
4. one line per tile shape (tile_m x tile_n x tile_k): the best config found
   for it and how many configs share that config's score-relevant values;
   shapes tied with the K-th are all found, and ties go by name.

With a re-ranking scorer (``--model``, ``--measurements``) the analytic search
fills a pool of ``pool`` tile shapes and the other scorer orders the pool; the
command says so. Bounded: at most ``PROBE_LIMIT`` solver probes (then status FEASIBLE).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ..errors import CksolveError
from ..progress import phase
from ..scoring import get_scorer
from ..scoring.analytic import COLUMNS, problem_terms, estimate, estimate_batch
from ..solver.backends import pinned
from ..solver.direct import solve, transient
from ..solver.sampling import decode

__all__ = ["RankedResult", "ranked_search", "PRIMARY"]

PRIMARY = ("wave_m", "wave_n", "wave_k", "warp_tile_m", "warp_tile_n", "warp_tile_k", "tile_m", "tile_n", "tile_k",
           "groups_to_merge", "pipeline", "double_smem_buffer", "scheduler")
#: the other axes the model reads, with the value order that scores best first
SECONDARY = ("vector_a", "vector_b", "vector_c", "epilogue", "specialization", "split_image", "two_stage", "streamk")
PROBE_LIMIT = 400


@dataclass(frozen=True)
class RankedResult:
    combo: object
    config: object
    score: float  # the ranking scorer's
    analytic: float  # the analytic model's estimate (TFLOPS)
    configs: int  # valid configs with the same score-relevant values

    @property
    def name(self) -> str:
        return self.config.name()

    @property
    def tile(self) -> str:
        c = self.config
        return f"{c.tile_m}x{c.tile_n}x{c.tile_k}"

    def as_dict(self) -> dict:
        return {"arch": self.combo.arch, "variant": self.combo.variant, "dtype": self.combo.dtype,
                "ndim": self.combo.ndim, "tile": self.tile, "name": self.name, "score": round(self.score, 6),
                "analytic": round(self.analytic, 6), "configs": self.configs}


def _best_secondary(domains: dict) -> dict:
    def best(axis, order):
        d = domains.get(axis, ())
        return next((v for v in order if v in d), d[0] if d else None)

    out = {a: max(domains[a]) for a in ("vector_a", "vector_b", "vector_c") if domains.get(a)}
    out["epilogue"] = best("epilogue", ("cshuffle", "default"))
    spec = domains.get("specialization", ("default",))
    out["specialization"] = next((s for s in spec if s != "default"), spec[0] if spec else "default")
    out["split_image"] = best("split_image", (False, True))
    out["two_stage"] = best("two_stage", (False, True))
    return {k: v for k, v in out.items() if v is not None}


def _order(domains: dict) -> list:
    return [a for a in PRIMARY if a in domains]


def _tuples(model, domains: dict):
    """Primary tuples (values of ``_order(domains)``) consistent with every constraint over primary and fixed
    axes (backtracking; each constraint is checked once its last axis has a value)."""
    fixed = {a: d[0] for a, d in domains.items() if len(d) == 1}
    order = _order(domains)
    known = set(order) | set(fixed)
    checks: dict[int, list] = {}
    for j, c in enumerate(model.constraints):
        if set(c.scope) <= known:
            last = max((order.index(a) for a in c.scope if a in order), default=-1)
            checks.setdefault(last, []).append((j, c))
    values = dict(fixed)
    for _j, c in checks.get(-1, []):
        if not c.holds(tuple(values[a] for a in c.scope)):
            return

    memo: dict = {}  # (constraint position, its scope's values) -> holds: most checks repeat

    def ok(i) -> bool:
        for j, c in checks.get(i, ()):
            key = (j, tuple(values[a] for a in c.scope))
            got = memo.get(key)
            if got is None:
                got = memo[key] = c.holds(key[1])
            if not got:
                return False
        return True

    def go(i):
        if i == len(order):
            yield tuple(values[a] for a in order)
            return
        axis = order[i]
        for v in domains[axis]:
            values[axis] = v
            if ok(i):
                yield from go(i + 1)
        values.pop(axis, None)

    yield from go(0)


def ranked_search(problem, combo, model, domains: dict, arch: str, dtype: str, top: int, pool: int,
                  device: str | None = None, rescorer=None, factors=None) -> tuple[list[RankedResult], str]:
    """(results, status): see the module docstring; ``domains``: the model's, pruned; ``factors``: a factors
    file (None: the arch's default factors, ``scoring.factorfile``)."""
    if pool < 1:
        raise CksolveError(f"{{opt:pool}} {pool} must be at least 1")
    analytic = get_scorer("analytic", device=device, factors=factors)
    dev = analytic.device_for(arch)
    fx = analytic.factors_for(arch)
    from ..arch.facts import arch_facts  # deferred: the arch's family and warp size for the model

    a = arch_facts(arch)
    facts = problem.facts()
    if any(not d for d in domains.values()):
        return [], "INFEASIBLE"
    second = _best_secondary(domains)
    streamks = domains.get("streamk", (False,))

    order = _order(domains)
    phase("listing tile shapes")
    tuples = list(_tuples(model, domains))
    if not tuples:
        return [], "INFEASIBLE"
    terms = problem_terms(facts)
    phase(f"bounding {len(tuples):,} tile shapes")
    columns = dict(zip(order, (np.array(col) for col in zip(*tuples))))
    size = len(tuples)
    for c in COLUMNS:
        if c not in columns and c != "streamk":
            columns[c] = np.full(size, second.get(c, domains.get(c, (0,))[0]))
    bounds = np.max([estimate_batch(terms, {**columns, "streamk": np.full(size, s)}, dev, dtype, a.family,
                                    a.warp_size, fx)["tflops"] for s in streamks], axis=0)
    ranked = np.argsort(-bounds, kind="stable")  # best bound first, ties in enumeration order
    fixed = {x: d[0] for x, d in domains.items() if len(d) == 1 and x in model.axes}
    want = max(top, pool) if rescorer is not None else top
    found: dict[tuple, RankedResult] = {}
    resolved: list = []  # (-exact score, position, result): tuples scored by a representative config
    probes = 0
    status = "OPTIMAL"
    pos = 0
    ti, tn_, tk_ = order.index("tile_m"), order.index("tile_n"), order.index("tile_k")
    with transient():  # the pinned solves' memos go when the search ends: O(K) memory, not O(K) solves
        while pos < size or resolved:
            if len(found) >= want:  # go on through the ties of the last score: equal scores go by name
                last = min(r.score for r in found.values())
                ahead = max(float(bounds[ranked[pos]]) if pos < size else -np.inf,
                            -resolved[0][0] if resolved else -np.inf)
                if ahead < last:
                    break
            if resolved and (pos >= size or -resolved[0][0] >= bounds[ranked[pos]]):
                _neg, _k, result = heapq.heappop(resolved)
                shape = (result.config.tile_m, result.config.tile_n, result.config.tile_k)
                if shape not in found:
                    found[shape] = result
                continue
            k = int(ranked[pos])
            pos += 1
            t = tuples[k]
            shape = (t[ti], t[tn_], t[tk_])
            if shape in found:
                continue
            if probes >= PROBE_LIMIT:
                status = "FEASIBLE"
                break
            pins = {**fixed, **dict(zip(order, t))}
            phase(f"solving the best tile shapes (probe {probes + 1:,}): found", min(len(found), want), want)
            probes += 1
            best = solve(pinned(model, {**pins, **second}))
            if best.count():
                b = float(bounds[k])
                found[shape] = RankedResult(combo, decode(best, 0), b, b, best.count())
                continue
            probes += 1
            anyc = solve(pinned(model, pins))
            if not anyc.count():
                continue
            config = decode(anyc, 0)
            exact = estimate(facts, config, dev, dtype, a.family, a.warp_size, fx)["tflops"]
            same = {x: getattr(config, x) for x in (*PRIMARY, *SECONDARY) if x in model.axes}
            n = solve(pinned(model, same)).count()
            heapq.heappush(resolved, (-exact, k, RankedResult(combo, config, exact, exact, n)))
    results = sorted(found.values(), key=lambda r: (-r.score, r.name))
    if rescorer is not None and results:
        scores = rescorer.score([(problem, r.config) for r in results], arch, dtype)
        results = sorted((RankedResult(r.combo, r.config, s, r.analytic, r.configs) for r, s in zip(results, scores)),
                         key=lambda r: (-r.score, r.name))
    if not results:
        return [], "INFEASIBLE" if status == "OPTIMAL" else "UNKNOWN"
    return results[:top], status
