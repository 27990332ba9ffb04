"""``search`` by a performance model: the best distinct tile shapes, optionally re-ranked by another scorer.

The analytic performance model (``scoring.analytic``) reads nearly every axis,
so the search is best-first over the axes it reads most (``PRIMARY``: tile,
wave split, warp tile, pipeline, scheduler, double buffer, merged groups), and
the model itself says how good the other axes it reads (``SECONDARY``: the rest
of ``analytic.COLUMNS``) can make a primary tuple -- no list of preferred values:

1. the primary tuples consistent with every constraint whose axes are all
   primary (or fixed) are enumerated, geometry first; the secondary
   combinations consistent with every constraint over secondary (and fixed)
   axes too;
2. each primary tuple gets an upper bound from the model
   (``analytic.bound_batch``): each of its terms that reads a secondary axis
   takes the best of that axis's values in those combinations, so no
   completion of the tuple scores above it, whatever the factors are;
3. tuples are visited best bound first; a visited tuple's completions (the
   secondary combinations the constraints over primary and secondary axes
   allow) are scored exactly and queued best first, interleaved with the
   bounds; a queued completion is tested by the solver (a valid config with
   those values); the first valid one is the tuple's best, exactly;
4. one line per tile shape (tile_m x tile_n x tile_k): the best config found
   for it and how many configs share that config's score-relevant values;
   shapes tied with the K-th are all found, and ties go by name (the command
   notes ties among the K).

So the search equals brute force over every valid config's estimate
(``tests/test_search_exact.py`` checks it on small rule sets, with factor tables
perturbed at random too). With a re-ranking scorer (``--model``,
``--measurements``) the analytic search fills a pool of ``pool`` tile shapes and
the other scorer orders the pool; the command says so. Bounded: at most
``PROBE_LIMIT`` solver probes and ``EXPAND_LIMIT`` tuples' completions scored;
a search stopped by a limit says which in its status (FEASIBLE with results,
UNKNOWN without). On a terminal, steps 1 to 3 tell the progress bar n of N
(``progress.phase``): the listing by parts (``PARTS``), the bound by blocks of
rows (``BOUND_BLOCK``), the visit by solver probes.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from itertools import product

import numpy as np

from ..errors import CksolveError
from ..progress import phase
from ..scoring import get_scorer
from ..scoring.analytic import COLUMNS, Choices, bound_batch, estimate_batch, problem_terms
from ..solver.backends import pinned
from ..solver.engine.direct import solve, transient
from ..solver.sampling.uniform import decode

__all__ = ["RankedResult", "ranked_search", "PRIMARY"]

PRIMARY = ("wave_m", "wave_n", "wave_k", "warp_tile_m", "warp_tile_n", "warp_tile_k", "tile_m", "tile_n", "tile_k",
           "groups_to_merge", "pipeline", "double_smem_buffer", "scheduler")
#: the other axes the model reads: their best values come from the model (``analytic.bound_batch``), not a list
SECONDARY = tuple(c for c in COLUMNS if c not in PRIMARY)
#: solver probes at most (then status FEASIBLE or UNKNOWN, saying so)
PROBE_LIMIT = 400
#: primary tuples whose completions are scored at most (each: one batch of the model over its completions)
EXPAND_LIMIT = 20_000
#: the listing tells its progress by parts: the tuples of the first primary axes whose domains' product
#: reaches this (a part pruned whole counts as done at once)
PARTS = 100
#: rows the model bounds at a time (the bound's progress: one phase per block)
BOUND_BLOCK = 1 << 16
#: seconds at least between two phases of the listing (each redraws the bar)
TELL_EVERY = 0.1


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


def _secondary(model, domains: dict, known: set) -> tuple[tuple, list, list]:
    """(axes, combos, mixed): the secondary axes of the model, every combination of their pruned values that
    the constraints over them (and fixed axes) allow, and the constraints over primary and secondary axes
    together (checked per primary tuple)."""
    axes = tuple(a for a in SECONDARY if a in model.axes)
    fixed = {a: d[0] for a, d in domains.items() if len(d) == 1}
    mine = set(axes)
    own, mixed = [], []
    for c in model.constraints:
        scope = set(c.scope)
        if scope & mine and scope <= mine | set(fixed):
            own.append(c)
        elif scope & mine and scope <= mine | known:
            mixed.append(c)
    combos = []
    memo: dict = {}
    for values in product(*(domains[a] for a in axes)):
        v = {**fixed, **dict(zip(axes, values))}
        if all(_holds(memo, c, tuple(v[a] for a in c.scope)) for c in own):
            combos.append(values)
    return axes, combos, mixed


def _holds(memo: dict, c, values: tuple) -> bool:
    key = (id(c), values)
    got = memo.get(key)
    if got is None:
        got = memo[key] = c.holds(values)
    return got


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
    sizes = [len(domains[a]) for a in order]
    depth, parts = 0, 1
    while depth < len(order) and parts < PARTS:
        parts *= sizes[depth]
        depth += 1
    index = [{v: k for k, v in enumerate(domains[a])} for a in order[:depth]]
    label = "listing tile shapes: part"
    phase(label, 0, parts)
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
        if i == depth:  # a part starts (the first ``depth`` axes have values): tell it
            tell()
        if i == len(order):
            yield tuple(values[a] for a in order)
            return
        axis = order[i]
        for v in domains[axis]:
            values[axis] = v
            if ok(i):
                yield from go(i + 1)
        values.pop(axis, None)

    next_tell = [0.0]

    def tell():
        now = time.monotonic()
        if now >= next_tell[0]:  # at most every TELL_EVERY seconds: a phase redraws the bar
            next_tell[0] = now + TELL_EVERY
            part = 0
            for i, a in enumerate(order[:depth]):
                part = part * sizes[i] + index[i][values[a]]
            phase(label, part + 1, parts)

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
    if any(not d for d in domains.values()):
        return [], "INFEASIBLE"
    order = _order(domains)
    fixed = {x: d[0] for x, d in domains.items() if len(d) == 1 and x in model.axes}
    axes, combos, mixed = _secondary(model, domains, set(order) | set(fixed))
    if not combos:
        return [], "INFEASIBLE"
    tuples = list(_tuples(model, domains))
    if not tuples:
        return [], "INFEASIBLE"
    terms = problem_terms(problem.facts())
    model_args = (dev, dtype, a.family, a.warp_size, fx)
    size = len(tuples)
    columns = dict(zip(order, (np.array(col) for col in zip(*tuples))))
    for c in COLUMNS:  # an axis the model lacks: one value
        if c not in columns and c not in axes:
            columns[c] = np.full(size, domains.get(c, (0,))[0])
    # each secondary axis: the values some allowed combination has; the model takes each term's best of them
    choices = {x: Choices(dict.fromkeys(v[i] for v in combos)) for i, x in enumerate(axes)}
    bounds = np.empty(size)
    for start in range(0, size, BOUND_BLOCK):  # by blocks: the bound (elementwise) tells its progress
        phase("bounding tile shapes", start, size)
        block = slice(start, start + BOUND_BLOCK)
        bounds[block] = bound_batch(terms, {**{x: col[block] for x, col in columns.items()}, **choices}, *model_args)
    ranked = np.argsort(-bounds, kind="stable")  # best bound first, ties in enumeration order
    second = {x: np.array([v[i] for v in combos]) for i, x in enumerate(axes)}
    memo: dict = {}

    def completions(t: tuple) -> list:
        """(score, combination) of ``t``'s secondary combinations the mixed constraints allow, best first."""
        v = {**fixed, **dict(zip(order, t))}

        def allowed(s: tuple) -> bool:
            w = {**v, **dict(zip(axes, s))}  # once per combination, not once per constraint
            return all(_holds(memo, c, tuple(w[x] for x in c.scope)) for c in mixed)

        keep = [i for i, s in enumerate(combos) if not mixed or allowed(s)]
        if not keep:
            return []
        idx = np.array(keep)
        cols = {**{x: np.full(len(idx), t[i]) for i, x in enumerate(order)},
                **{x: np.full(len(idx), columns[x][0]) for x in columns if x not in order},
                **{x: col[idx] for x, col in second.items()}}
        got = estimate_batch(terms, cols, *model_args)["tflops"]
        best = np.argsort(-got, kind="stable")
        return [(float(got[j]), combos[keep[j]]) for j in best]

    want = max(top, pool) if rescorer is not None else top
    found: dict[tuple, RankedResult] = {}
    heap: list = []  # (-score, tuple position, completion number, completions): one live completion per tuple
    probes = expanded = 0
    status = "OPTIMAL"
    pos = 0
    ti, tn_, tk_ = order.index("tile_m"), order.index("tile_n"), order.index("tile_k")
    shape_of = lambda t: (t[ti], t[tn_], t[tk_])  # noqa: E731
    with transient():  # the pinned solves' memos go when the search ends: O(K) memory, not O(K) solves
        while pos < size or heap:
            ahead = max(float(bounds[ranked[pos]]) if pos < size else -np.inf, -heap[0][0] if heap else -np.inf)
            if len(found) >= want and ahead < min(r.score for r in found.values()):
                break  # (ties with the last score go on: equal scores go by name)
            if heap and -heap[0][0] >= ahead:  # a completion scored exactly: is it valid?
                neg, k, j, comp = heapq.heappop(heap)
                t = tuples[k]
                if shape_of(t) in found:
                    continue
                if probes >= PROBE_LIMIT:
                    status = f"stopped after {PROBE_LIMIT} solver probes"
                    break
                pins = {**fixed, **dict(zip(order, t)), **dict(zip(axes, comp[j][1]))}
                phase(f"solving the best tile shapes (probe {probes + 1:,}): found", min(len(found), want), want)
                probes += 1
                sol = solve(pinned(model, pins))
                if sol.count():
                    found[shape_of(t)] = RankedResult(combo, decode(sol, 0), -neg, -neg, sol.count())
                elif j + 1 < len(comp):
                    heapq.heappush(heap, (-comp[j + 1][0], k, j + 1, comp))
                continue
            k = int(ranked[pos])
            pos += 1
            if shape_of(tuples[k]) in found:
                continue
            if expanded >= EXPAND_LIMIT:
                status = f"stopped after scoring the completions of {EXPAND_LIMIT:,} tile tuples"
                break
            expanded += 1
            comp = completions(tuples[k])
            if comp:
                heapq.heappush(heap, (-comp[0][0], k, 0, comp))
    results = sorted(found.values(), key=lambda r: (-r.score, r.name))
    if rescorer is not None and results:
        scores = rescorer.score([(problem, r.config) for r in results], arch, dtype)
        results = sorted((RankedResult(r.combo, r.config, s, r.analytic, r.configs) for r, s in zip(results, scores)),
                         key=lambda r: (-r.score, r.name))
    if status != "OPTIMAL":  # a limit: what was found is valid, but a better shape may be left unvisited
        short = len(results) < want
        return results[:top], (f"{'UNKNOWN' if not results else 'FEASIBLE'} ({status}"
                               f"{f' with {len(results)} of {want} shapes found' if short else ''}; "
                               "a rule set (-r) or --where narrows the search)")
    if not results:
        return [], "INFEASIBLE"
    return results[:top], status
