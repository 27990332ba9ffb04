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
then name order. The model is built in ``build_model`` and solved in ``solve``,
OR-Tools style; ``check`` re-derives every claim through ``coverage``.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Sequence

from ..errors import CksolveError

__all__ = ["Instance", "Request", "Result", "build_instance", "solve", "check"]

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


def build_instance(records, scores_of) -> Instance:
    """From coverage records (with kernels) and ``scores_of(record) -> {name: score}``."""
    kernels = tuple(sorted({n for r in records for n in r.kernels}))
    index = {n: i for i, n in enumerate(kernels)}
    labels, applicable, scores = [], [], []
    for r in records:
        s = scores_of(r)
        names = sorted(r.kernels)
        labels.append((r.row, r.dtype))
        applicable.append(tuple(index[n] for n in names))
        scores.append(tuple(float(s.get(n, 0.0)) for n in names))
    top = max((x for ss in scores for x in ss), default=0.0)
    if not math.isfinite(top):
        raise CksolveError("a score is not a finite number")
    if top > 1e12:  # sums of such scores could overflow: only their ratios matter, so scale them to <= 1
        scores = [tuple(x / top for x in ss) for ss in scores]
    return Instance(kernels, tuple(labels), tuple(applicable), tuple(scores))


def _classes(inst: Instance, keep: float):
    """Kernel classes with equal (applicable, good) problem sets, members best first."""
    cover: dict[int, set] = {}
    good: dict[int, set] = {}
    total = [0.0] * len(inst.kernels)
    for p, (ks, ss) in enumerate(zip(inst.applicable, inst.scores)):
        g = _good(ss, keep)
        for j, (k, s) in enumerate(zip(ks, ss)):
            cover.setdefault(k, set()).add(p)
            total[k] += s
            if j in g:
                good.setdefault(k, set()).add(p)
    classes: dict[tuple, list[int]] = {}
    for k in sorted(cover):
        sig = (frozenset(cover[k]), frozenset(good.get(k, ())))
        classes.setdefault(sig, []).append(k)
    out = []
    for (cov, gd), members in sorted(classes.items(), key=lambda kv: min(inst.kernels[k] for k in kv[1])):
        members.sort(key=lambda k: (-total[k], inst.kernels[k]))
        out.append((cov, gd, members, total))
    return out


def build_model(inst: Instance, req: Request):
    """The CP-SAT model: class counts, coverage and quality constraints (no objective yet)."""
    from ortools.sat.python import cp_model  # deferred: loading CP-SAT costs ~0.4 s

    classes = _classes(inst, req.keep)
    m = cp_model.CpModel()
    y = [m.NewIntVar(0, len(members), f"class{i}") for i, (_, _, members, _) in enumerate(classes)]
    covering: dict[int, list] = {}
    goods: dict[int, list] = {}
    for i, (cov, gd, _, _) in enumerate(classes):
        for p in cov:
            covering.setdefault(p, []).append(i)
        for p in gd:
            goods.setdefault(p, []).append(i)
    # Problems with the same covering classes, good classes and need are one constraint (with a weight:
    # how many problems it stands for), so ties and repeated shapes do not grow the model.
    weight: dict[tuple, int] = {}
    for p, ks in enumerate(inst.applicable):
        if not ks:
            continue  # the rule set does not cover it: nothing to keep
        key = (tuple(covering[p]), tuple(goods.get(p, ())), min(req.per_problem, len(ks)))
        weight[key] = weight.get(key, 0) + 1
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
    return m, y, classes, good_flags, count


def _solver(time_limit: float | None):
    """The project's CP-SAT solver: one worker and a fixed seed (same inputs, same answer), and Ctrl-C
    left to cksolve's own handler (CP-SAT's would reset it and end the process silently)."""
    from ..solver.cpsat import deterministic_solver  # deferred: loading CP-SAT costs ~0.4 s

    return deterministic_solver(None if time_limit is None else float(time_limit))


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

    from .progress import Progress

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
    from ortools.sat.python import cp_model

    if status == cp_model.INFEASIBLE:
        what = (f"no set of at most {req.max_kernels} kernels covers every covered problem"
                if req.max_kernels is not None else "no kernel set meets the request")
        return CksolveError(f"infeasible: {what} ({s.StatusName(status)})")
    return CksolveError(f"the solver found no kernel set within the time limit of {req.seconds:g} s "
                        f"({s.StatusName(status)}); raise --time-limit")


def solve(inst: Instance, req: Request) -> Result:
    from ortools.sat.python import cp_model  # deferred (see above)

    t0 = time.perf_counter()
    limit = req.seconds
    m, y, classes, good_flags, count = build_model(inst, req)
    covered = sum(1 for ks in inst.applicable if ks)
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
    rank = {c: i for i, c in enumerate(sorted(range(len(classes)), key=lambda i: inst.kernels[classes[i][2][0]]))}
    r = len(classes) + 1
    totals = [classes[i][3][classes[i][2][0]] for i in range(len(classes))]
    scale = SCORE_SCALE
    biggest = max(totals, default=0.0) * SCORE_SCALE * r * max(1, len(inst.kernels))
    if biggest > _OBJECTIVE_LIMIT:  # only for extreme scores; everyday ones keep SCORE_SCALE exactly
        scale = SCORE_SCALE * _OBJECTIVE_LIMIT / biggest
    weights = [int(round(scale * totals[i])) * r + (r - rank[i]) for i in range(len(classes))]
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
    kept = tuple(sorted(inst.kernels[k] for (_, _, members, _), c in zip(classes, counts) for k in members[:c]))
    good = sum(1 for ks, ss in zip(inst.applicable, inst.scores) if ks and _kept_good(inst, ks, ss, kept, req.keep))
    return Result(kept, first, primary, bound, time.perf_counter() - t0, good, covered,
                  extra={"problem_classes": m.problem_classes, "kernel_classes": len(classes)}, tie_break=tie_break)


def _left(limit: float, t0: float) -> float:
    return max(0.1, limit - (time.perf_counter() - t0))


def _kept_good(inst: Instance, ks, ss, kept, keep: float) -> bool:
    names = set(kept)
    good = _good(ss, keep)
    return any(inst.kernels[k] in names for j, k in enumerate(ks) if j in good)


def check(inst: Instance, req: Request, result: Result, records) -> list[str]:
    """Claims that do not hold, re-derived from ``records`` (coverage of the kept set); empty when all hold."""
    problems = []
    kept = set(result.kept)
    by_label = {(r.row, r.dtype): r for r in records}
    for label, ks, ss in zip(inst.labels, inst.applicable, inst.scores):
        if not ks:
            continue
        r = by_label.get(label)
        have = set(r.kernels) if r is not None else set()
        if not have <= kept:
            problems.append(f"row {label[0]} {label[1]}: coverage lists kernels that were not kept")
        need = min(req.per_problem, len(ks))
        if len(have) < need:
            problems.append(f"row {label[0]} {label[1]}: {len(have)} kept kernels run it, {need} required")
        good = {inst.kernels[ks[j]] for j in _good(ss, req.keep)}
        if req.max_kernels is None and not (good & have):
            problems.append(f"row {label[0]} {label[1]}: no kept kernel scores {req.keep} x the best")
    return problems
