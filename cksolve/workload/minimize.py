"""The smallest kernel set that keeps a workload covered and fast (CP-SAT).

The answer is defined before the search (``Instance`` and ``Request``): every
(problem, dtype) that the rule set covers keeps at least ``per_problem`` of its
applicable kernels (or all of them, if it has fewer), and at least one kept
kernel scores ``keep`` x the best score the rule set offers for it. The fewest
kernels win; ties go to the higher total score, then to names earlier in name
order. With ``max_kernels`` the count is bounded instead and the number of
problems that keep a good kernel is maximised (then the count minimised).

Kernels that are applicable to, and good for, exactly the same problems are
interchangeable for the count, so the model has one integer variable per such
class (how many of its members to keep); members are taken best score first,
then name order. Problems with the same classes are one constraint with a
weight. The solver sees arrays (``Grouped``: groups of alike problems x atoms of
alike kernels, built with numpy by ``grouping`` from a workload or by
``group_instance`` from the per-problem ``Instance``), so the model's size and
the time to build it follow the classes, not the 10^5 problems behind them.
The model is built in ``build_model`` and solved in ``solve``, OR-Tools style;
``check`` re-derives every claim through ``coverage``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import CksolveError
from ..progress import Progress

__all__ = ["Instance", "Grouped", "Request", "Result", "group_instance", "solve", "check"]

#: Scores are compared with this relative slack, so that keep = 1.0 keeps ties of the best.
EPS = 1e-9
#: Integer scale of scores in the tie-break objective (CP-SAT coefficients are integers).
SCORE_SCALE = 1000
#: Seconds the whole search may take when ``time_limit`` is not given (all stages together); then the best
#: set found is the answer, FEASIBLE with its gap. docs/minimize.md documents it.
DEFAULT_TIME_LIMIT = 60.0
#: The largest --max-kernels: more than any rule set has, and far inside CP-SAT's 64-bit integers.
MAX_KERNELS = 10 ** 9
#: Largest tie-break coefficient x kernels: CP-SAT's objective must stay well inside 64 bits.
_OBJECTIVE_LIMIT = 2 ** 52


@dataclass(frozen=True)
class Instance:
    """What the optimiser sees: problems x candidate kernels x scores."""

    kernels: tuple[str, ...]                    # sorted names
    labels: tuple[tuple[int, str], ...]         # per problem: (row, dtype)
    applicable: tuple[tuple[int, ...], ...]     # per problem: indices into kernels
    scores: tuple[tuple[float, ...], ...]       # per problem: score of each applicable kernel


@dataclass(frozen=True)
class Request:
    """What ``minimize`` is asked for; a value outside its range is refused here, naming the option."""

    keep: float = 0.9
    per_problem: int = 1
    max_kernels: int | None = None
    time_limit: float | None = None

    def __post_init__(self):
        if not 0.0 <= self.keep <= 1.0:  # also refuses nan
            raise CksolveError(f"{{opt:keep}} {self.keep} must be between 0 and 1")
        if self.per_problem < 1:
            raise CksolveError(f"{{opt:per_problem}} {self.per_problem} must be at least 1")
        if self.max_kernels is not None and self.max_kernels < 0:
            raise CksolveError(f"{{opt:max_kernels}} {self.max_kernels} must not be negative")
        if self.max_kernels is not None and self.max_kernels > MAX_KERNELS:
            raise CksolveError(f"{{opt:max_kernels}} {str(self.max_kernels)[:40]} is too large (at most {MAX_KERNELS})")
        if self.time_limit is not None and not self.time_limit > 0:
            raise CksolveError(f"{{opt:time_limit}} {self.time_limit} must be positive")

    @property
    def seconds(self) -> float:
        """The time limit in force: the one given, else ``DEFAULT_TIME_LIMIT``."""
        return DEFAULT_TIME_LIMIT if self.time_limit is None else self.time_limit


@dataclass(frozen=True)
class Result:
    kept: tuple[str, ...]
    status: str                  # OPTIMAL or FEASIBLE
    objective: int               # kernels kept (or, with max_kernels, problems with a good kernel)
    bound: float
    seconds: float
    good: int                    # problems that keep a good kernel
    covered: int                 # problems the rule set covers
    extra: dict = field(default_factory=dict)
    tie_break: str = "OPTIMAL"   # the stage that orders sets of that size by score, then name

    @property
    def gap(self) -> float:
        return abs(self.objective - self.bound) / max(1.0, abs(self.objective))


def _good(scores: Sequence[float], keep: float) -> set[int]:
    """Positions of the kernels that score at least keep x the best."""
    best = max(scores, default=0.0)
    return {i for i, s in enumerate(scores) if s >= keep * best - EPS * max(1.0, best)}


def good_mask(applicable, scores, keep: float):
    """``_good`` over a (problems, kernels) array: the same comparison, element by element."""

    best = np.where(applicable, scores, 0.0).max(axis=1, initial=0.0)
    return applicable & (scores >= (keep * best - EPS * np.maximum(1.0, best))[:, None]), best


@dataclass(frozen=True)
class Grouped:
    """What the model is built from: problems that look alike to it collapsed into groups, kernels that look
    alike into atoms. At 10^5 problems the per-problem form (``Instance``) is tens of millions of Python
    objects; these arrays are a few thousand rows whatever the workload's size.

    An atom is a set of kernels that run, and score alike on, every problem; a group is the (problem,
    dtype) pairs with the same applicable atoms and the same good atoms (at the request's ``keep``).
    """

    kernels: tuple[str, ...]                 # sorted names of the kernels that run some problem
    atoms: tuple[tuple[int, ...], ...]       # per atom: its kernels (indices into kernels)
    applicable: object                       # (groups, atoms) bools
    good: object                             # (groups, atoms) bools
    weight: object                           # (groups,) ints: the (problem, dtype) pairs a group stands for
    first: object                            # (groups,) ints: where its first pair is, in (row, dtype) order
    totals: object                           # (atoms,) floats: an atom kernel's score summed over every pair
    problems: int                            # (problem, dtype) pairs in all


def collapse(chunks, keep: float):
    """Rows with equal applicable and good bits as one group: (each group's weight, first position,
    applicable bits and good bits, the group of every input row, the atoms' total scores).

    ``chunks`` are blocks of input rows, (applicable, scores, weight, first position) each; only their bits,
    packed to bytes, are kept, and ``np.unique`` on those finds the groups.
    """

    packed, weights, firsts, totals, n = [], [], [], None, 0
    for app, sc, w, f in chunks:
        n = app.shape[1]
        good, _ = good_mask(app, sc, keep)
        t = (np.where(app, sc, 0.0) * w[:, None]).sum(axis=0)
        totals = t if totals is None else totals + t
        packed.append(np.packbits(np.hstack([app, good, np.ones((len(app), 1), bool)]), axis=1))
        weights.append(w)
        firsts.append(f)
    if not packed or not sum(map(len, packed)):
        none = np.zeros(0, np.int64)
        return none, none, np.zeros((0, n), bool), np.zeros((0, n), bool), none, \
            np.zeros(n) if totals is None else totals
    bits = np.ascontiguousarray(np.concatenate(packed))
    keys = bits.view(np.dtype((np.void, bits.shape[1]))).ravel()
    _, rep, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    rows = np.unpackbits(bits[rep], axis=1, count=2 * n).astype(bool)
    weight = np.bincount(inverse, weights=np.concatenate(weights), minlength=len(rep)).astype(np.int64)
    first = np.full(len(rep), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, inverse, np.concatenate(firsts))
    return weight, first, rows[:, :n], rows[:, n:], inverse, totals


def group_instance(inst: Instance, keep: float) -> Grouped:
    """``inst`` as a ``Grouped`` (each kernel its own atom)."""

    used = sorted({k for ks in inst.applicable for k in ks})
    column = {k: j for j, k in enumerate(used)}
    app = np.zeros((len(inst.applicable), len(used)), dtype=bool)
    sc = np.zeros(app.shape)
    for p, (ks, ss) in enumerate(zip(inst.applicable, inst.scores)):
        for k, s in zip(ks, ss):
            app[p, column[k]], sc[p, column[k]] = True, s
    n = len(inst.applicable)
    weights, firsts, app, good, _, totals = collapse([(app, sc, np.ones(n, np.int64), np.arange(n))], keep)
    names = tuple(inst.kernels[k] for k in used)
    order = sorted(range(len(used)), key=names.__getitem__)
    rank = {j: i for i, j in enumerate(order)}
    return Grouped(tuple(names[j] for j in order), tuple((rank[j],) for j in range(len(used))),
                   app, good, weights, firsts, totals, n)


def _classes(g: Grouped):
    """Kernel classes with equal (applicable, good) groups: (members best first, applicable groups x classes,
    good groups x classes, total of the best member), classes in the order of their first name."""

    live = np.flatnonzero(g.applicable.any(axis=0)) if g.applicable.size else np.zeros(0, np.intp)
    sig: dict[bytes, list[int]] = {}
    cols = np.packbits(np.vstack([g.applicable, g.good])[:, live], axis=0).T if len(live) else []
    for a, col in zip(live, cols):
        sig.setdefault(col.tobytes(), []).append(int(a))
    total = {k: float(g.totals[a]) for a in live for k in g.atoms[a]}
    classes = []
    for atoms in sig.values():
        members = sorted((k for a in atoms for k in g.atoms[a]), key=lambda k: (-total[k], g.kernels[k]))
        classes.append((min(g.kernels[k] for k in members), atoms, members))
    classes.sort(key=lambda c: c[0])
    cover = np.stack([g.applicable[:, c[1][0]] for c in classes], axis=1) if classes else \
        np.zeros((len(g.weight), 0), bool)
    good = np.stack([g.good[:, c[1][0]] for c in classes], axis=1) if classes else np.zeros_like(cover)
    members = [c[2] for c in classes]
    return members, cover, good, [total[m[0]] for m in members]


def build_model(g: Grouped, req: Request):
    """The CP-SAT model: class counts, coverage and quality constraints (no objective yet)."""
    from ortools.sat.python import cp_model  # deferred: loading CP-SAT costs ~0.4 s

    members, cover, good, totals = _classes(g)
    m = cp_model.CpModel()
    y = [m.NewIntVar(0, len(ms), f"class{i}") for i, ms in enumerate(members)]
    sizes = np.array([len(a) for a in g.atoms], dtype=np.int64)
    runs = g.applicable.astype(np.int64) @ sizes if len(sizes) else np.zeros(len(g.weight), np.int64)
    # Groups with the same covering classes, good classes and need are one constraint (with a weight: how
    # many problems it stands for), so ties and repeated shapes do not grow the model; constraints in the
    # order of their first problem.
    weight: dict[tuple, int] = {}
    for u in sorted(np.flatnonzero(runs > 0), key=lambda u: g.first[u]):
        key = (tuple(np.flatnonzero(cover[u]).tolist()), tuple(np.flatnonzero(good[u]).tolist()),
               min(req.per_problem, int(runs[u])))
        weight[key] = weight.get(key, 0) + int(g.weight[u])
    good_flags = []
    for n, ((cov, gd, need), w) in enumerate(weight.items()):
        m.Add(sum(y[i] for i in cov) >= need)
        if req.max_kernels is None:
            m.Add(sum(y[i] for i in gd) >= 1)
        else:
            flag = m.NewBoolVar(f"good{n}")
            m.Add(sum(y[i] for i in gd) >= 1).OnlyEnforceIf(flag)
            good_flags.append((w, flag))
    count = sum(y)
    if req.max_kernels is not None:
        m.Add(count <= req.max_kernels)
    m.problem_classes = len(weight)  # for the summary
    return m, y, (members, totals), good_flags, count


#: CP-SAT's linearization level for minimize's models: 2 adds the LP relaxation of every constraint. Set
#: cover with ties (measured scores at a few values) is where CP-SAT's default (1) left a 70% gap after 60 s
#: on 1,886 problems; with 2 the same model is OPTIMAL in under a second (benchmarks/bench_minimize.py).
LINEARIZATION = 2


def _solver(time_limit: float | None):
    """The project's CP-SAT solver: one worker and a fixed seed (same inputs, same answer), and Ctrl-C
    left to cksolve's own handler (CP-SAT's would reset it and end the process silently); with the LP
    relaxation of the covering constraints (``LINEARIZATION``)."""
    from ..solver.cpsat import deterministic_solver  # deferred: loading CP-SAT costs ~0.4 s

    solver = deterministic_solver(None if time_limit is None else float(time_limit))
    solver.parameters.linearization_level = LINEARIZATION
    return solver


def _run(solver, model) -> int:
    """``solver.Solve(model)`` where a signal can stop it.

    A Python signal handler runs only between bytecodes of the main thread, never
    inside CP-SAT's C++ search, so SIGINT/SIGTERM waited until the search ended.
    The search runs in a worker thread (CP-SAT releases the GIL) while the main
    thread waits in short joins, where handlers run: cksolve's handler ends the
    process at once; one that raises (KeyboardInterrupt) stops the search first.
    """
    if threading.current_thread() is not threading.main_thread():
        return solver.Solve(model)
    box: dict = {}

    def work():
        try:
            box["status"] = solver.Solve(model)
        except BaseException as exc:  # pragma: no cover - handed to the caller below
            box["error"] = exc

    worker = threading.Thread(target=work, name="cp-sat", daemon=True)
    worker.start()
    try:
        with Progress("solving (CP-SAT)") as bar:
            while worker.is_alive():
                worker.join(0.05)
                bar.tick()
    except BaseException:
        solver.StopSearch()
        worker.join(2.0)
        raise
    if "error" in box:
        raise box["error"]
    return box["status"]


def _stopped(status: int, req: Request, s) -> CksolveError:
    """Why no set came out: proven infeasible, or the time limit ran out first."""
    from ortools.sat.python import cp_model  # deferred: loading CP-SAT costs ~0.4 s

    if status == cp_model.INFEASIBLE:
        what = (f"no set of at most {req.max_kernels} kernels covers every covered problem"
                if req.max_kernels is not None else "no kernel set meets the request")
        return CksolveError(f"infeasible: {what} ({s.StatusName(status)})")
    return CksolveError(f"the solver found no kernel set within the time limit of {req.seconds:g} s "
                        f"({s.StatusName(status)}); raise {{opt:time_limit}}")


def solve(inst: "Instance | Grouped", req: Request) -> Result:
    """The answer for ``inst``: a ``Grouped`` (``plan`` builds one from a workload), or an ``Instance``."""
    from ortools.sat.python import cp_model  # deferred: loading CP-SAT costs ~0.4 s

    t0 = time.perf_counter()
    g = group_instance(inst, req.keep) if isinstance(inst, Instance) else inst
    limit = req.seconds
    m, y, (members, totals), good_flags, count = build_model(g, req)
    runs = g.applicable.any(axis=1) if g.applicable.size else np.zeros(len(g.weight), bool)
    covered = int(g.weight[runs].sum())
    good_total = sum(w * f for w, f in good_flags)
    # Stage 1: the primary objective.
    if req.max_kernels is None:
        m.Minimize(count)
    else:
        m.Maximize(good_total)
    s = _solver(limit)
    status = _run(s, m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise _stopped(status, req, s)
    primary, bound = int(round(s.ObjectiveValue())), s.BestObjectiveBound()
    first = "OPTIMAL" if status == cp_model.OPTIMAL else "FEASIBLE"
    # Stage 2 (with max_kernels): fewest kernels for that many good problems.
    if req.max_kernels is not None:
        m.Add(good_total >= primary)
        m.Minimize(count)
        s = _solver(_left(limit, t0))
        status = _run(s, m)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise _stopped(status, req, s)
    hint = [s.Value(v) for v in y]
    n_kept = sum(hint)
    # Stage 3: among sets of that size, the highest total score, then earlier names (bounded by the same limit).
    m.Add(count == n_kept)
    rank = {c: i for i, c in enumerate(sorted(range(len(members)), key=lambda i: g.kernels[members[i][0]]))}
    r = len(members) + 1
    scale = SCORE_SCALE
    biggest = max(totals, default=0.0) * SCORE_SCALE * r * max(1, len(g.kernels))
    if biggest > _OBJECTIVE_LIMIT:  # only for extreme scores; everyday ones keep SCORE_SCALE exactly
        scale = SCORE_SCALE * _OBJECTIVE_LIMIT / biggest
    weights = [int(round(scale * totals[i])) * r + (r - rank[i]) for i in range(len(members))]
    m.Maximize(sum(w * v for w, v in zip(weights, y)))
    for v, h in zip(y, hint):
        m.AddHint(v, h)
    s3 = _solver(_left(limit, t0))
    status3 = _run(s3, m)
    if status3 in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        counts = [s3.Value(v) for v in y]
    else:
        counts = hint
    tie_break = {cp_model.OPTIMAL: "OPTIMAL", cp_model.FEASIBLE: "FEASIBLE"}.get(status3, "not run")
    chosen = [k for ms, c in zip(members, counts) for k in ms[:c]]
    kept = tuple(sorted(g.kernels[k] for k in chosen))
    good = int(g.weight[runs & (g.good & kept_atoms(g, chosen)).any(axis=1)].sum()) if g.good.size else 0
    return Result(kept, first, primary, bound, time.perf_counter() - t0, good, covered,
                  extra={"problem_classes": m.problem_classes, "kernel_classes": len(members)}, tie_break=tie_break)


def _left(limit: float, t0: float) -> float:
    return max(0.1, limit - (time.perf_counter() - t0))


def kept_atoms(g: Grouped, chosen) -> object:
    """(atoms,) bools: the atoms with a kept kernel (the kernels of an atom are alike for every problem)."""

    chosen = set(chosen)
    return np.array([any(k in chosen for k in a) for a in g.atoms], dtype=bool)


def check(g: Grouped, req: Request, result: Result, groups, records, rows=None) -> list[str]:
    """Claims that do not hold, re-derived from ``records`` (coverage of the kept set, one per problem or
    distinct problem); ``groups`` holds the group of each record's problem, ``rows`` (if given) the row a
    record's ``row`` is first found at. Empty when all hold."""

    problems = []
    kept = set(result.kept)
    sizes = np.array([len(a) for a in g.atoms], dtype=np.int64)
    runs_of = (g.applicable.astype(np.int64) @ sizes).tolist() if len(sizes) else [0] * len(g.weight)
    good_names: dict[int, set[str]] = {}
    for u, r in zip(groups, records):
        runs = runs_of[u]
        if not runs:
            continue
        label = f"row {r.row if rows is None else int(rows[r.row])} {r.dtype}"
        have = set(r.kernels)
        if not have <= kept:
            problems.append(f"{label}: coverage lists kernels that were not kept")
        need = min(req.per_problem, runs)
        if len(have) < need:
            problems.append(f"{label}: {len(have)} kept kernels run it, {need} required")
        good = good_names.get(u)
        if good is None:
            good = good_names[u] = {g.kernels[k] for a, ok in zip(g.atoms, g.good[u]) if ok for k in a} & kept
        if req.max_kernels is None and not (good & have):
            problems.append(f"{label}: no kept kernel scores {req.keep} x the best")
    return problems
