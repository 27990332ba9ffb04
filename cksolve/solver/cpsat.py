"""The CP-SAT backend (OR-Tools).

Every axis becomes an integer variable over the *indices* of its domain, so
string-valued axes (pipeline, dtype, ...) need no special treatment. Every
constraint becomes ``AddAllowedAssignments`` / ``AddForbiddenAssignments``: a
``Check`` is tabulated over the (unary-pruned) domains of its scope first, so
the model never contains a multiplication (measured 30x slower, design.md).
A check too wide to tabulate (``arch.tile_coverage`` over nine axes of the
whole space: 8 million tuples) is stated in pieces, as the direct backend
conditions it (``conditioning.filter_pieces``): one table per wave split and
pipeline, enforced only when those values are chosen; equal tables are one
constraint, enforced by any of their assignments.

CP-SAT is the backend for feasibility of partial configs, optimisation (the
minimum covers behind ``tiny``) and explanations; enumeration through it is a
cross-check of the direct backend, run single-worker (parallel workers return
duplicates when enumerating).
"""

from __future__ import annotations

from math import prod
from typing import Mapping

from ortools.sat.python import cp_model

from ..space.constraints import Check, Constraint, Table
from .backend_protocol import CannotCount
from .engine.conditioning import TAB_LIMIT, filter_pieces
from .model import Model, prune_domains

__all__ = ["CompiledModel", "compile_model", "deterministic_solver", "enumerate_solutions", "find_one", "is_feasible", "CpSat"]


class CompiledModel:
    """A CP-SAT model plus the maps between domain values and variable values."""

    def __init__(self, model: Model, domains: Mapping[str, tuple]):
        self.cp = cp_model.CpModel()
        self.domains = {a: tuple(domains[a]) for a in model.axes}
        self.index = {a: {v: i for i, v in enumerate(d)} for a, d in self.domains.items()}
        self.vars = {a: self.cp.NewIntVar(0, max(len(d) - 1, 0), a) for a, d in self.domains.items()}
        self.empty = any(len(d) == 0 for d in self.domains.values())
        self._literals: dict = {}
        if self.empty:
            return
        self._tables = tuple(c for c in model.constraints if isinstance(c, Table) and not c.forbid)
        for c in model.constraints:
            if isinstance(c, Check) and prod(len(self.domains[a]) for a in c.scope) > TAB_LIMIT:
                self._add_pieces(c)
            else:
                self._add(c)

    def is_value(self, axis: str, value):
        """The literal "``axis`` takes ``value``" (one per pair)."""
        key = (axis, value)
        lit = self._literals.get(key)
        if lit is None:
            lit = self._literals[key] = self.cp.NewBoolVar(f"{axis}={value}")
            var, i = self.vars[axis], self.index[axis][value]
            self.cp.Add(var == i).OnlyEnforceIf(lit)
            self.cp.Add(var != i).OnlyEnforceIf(lit.Not())
        return lit

    def _add_pieces(self, c: Check) -> None:
        """A wide check as its pieces: a table enforced under each assignment (see the module docstring)."""
        by_table: dict = {}
        for assign, free, rows in filter_pieces(c, self._tables, self.domains):
            when = [self.is_value(a, v) for a, v in assign.items()]
            if not rows:
                self.cp.AddBoolOr([lit.Not() for lit in when])
            else:
                by_table.setdefault((free, rows), []).append(when)
        for (free, rows), whens in by_table.items():
            if len(whens) == 1:
                enforce = whens[0]
            else:  # one table for every assignment that needs it: each of them implies its literal
                enforce = [self.cp.NewBoolVar(f"{c.name}[{len(whens)}]")]
                for when in whens:
                    self.cp.AddBoolOr([lit.Not() for lit in when] + enforce)
            index = [self.index[a] for a in free]
            table = [tuple(ix[v] for ix, v in zip(index, r)) for r in sorted(rows)]
            self.cp.AddAllowedAssignments([self.vars[a] for a in free], table).OnlyEnforceIf(enforce)

    def _rows(self, c: Constraint) -> tuple[list[tuple], bool]:
        """Index tuples for the constraint, and whether they are the allowed ones.

        A forbidden table stays forbidden (its rows within the domains); everything
        else is tabulated as its allowed tuples.
        """
        if isinstance(c, Table) and c.forbid:
            rows, allowed = [r for r in c.rows if all(v in self.index[a] for a, v in zip(c.scope, r))], False
        else:
            rows, allowed = c.allowed_rows(self.domains), True
        return [tuple(self.index[a][v] for a, v in zip(c.scope, r)) for r in rows], allowed

    def _add(self, c: Constraint) -> None:
        scope = list(dict.fromkeys(c.scope))
        if len(scope) != len(c.scope):  # pragma: no cover - no constraint repeats an axis today
            raise ValueError(f"{c.name}: repeated axis in scope")
        rows, allowed = self._rows(c)
        variables = [self.vars[a] for a in c.scope]
        if allowed:
            self.cp.AddAllowedAssignments(variables, rows)
        elif rows:
            self.cp.AddForbiddenAssignments(variables, rows)


def compile_model(model: Model, pins: Mapping[str, object] | None = None) -> CompiledModel:
    """Compile with domains pruned by unary constraints (and ``pins``, if any)."""
    domains = {a: tuple(model.domains[a]) for a in model.axes}
    for axis, value in (pins or {}).items():
        domains[axis] = tuple(v for v in domains[axis] if v == value)
    domains = prune_domains(model.constraints, domains)
    return CompiledModel(model, domains)


class _Collector(cp_model.CpSolverSolutionCallback):
    def __init__(self, compiled: CompiledModel):
        super().__init__()
        self.compiled = compiled
        self.items = list(compiled.vars.items())
        self.solutions: list[dict] = []

    def on_solution_callback(self) -> None:
        doms = self.compiled.domains
        self.solutions.append({a: doms[a][self.Value(v)] for a, v in self.items})


def deterministic_solver(time_limit: float | None = None) -> cp_model.CpSolver:
    """One worker, fixed seed: parallel workers duplicate enumerated solutions and vary answers."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    # CP-SAT's own SIGINT handler would stop the search early (a wrong answer, not an interrupt)
    # and leave SIGINT at its default action afterwards, bypassing the CLI's clean exit
    solver.parameters.catch_sigint_signal = False
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = time_limit
    return solver


def enumerate_solutions(model: Model) -> list:
    """Every solution as a config, single-worker, in canonical name order."""
    compiled = compile_model(model)
    if compiled.empty:
        return []
    solver = deterministic_solver()
    solver.parameters.enumerate_all_solutions = True
    collector = _Collector(compiled)
    solver.Solve(compiled.cp, collector)
    configs = [model.make_config(v) for v in collector.solutions]
    configs.sort(key=lambda c: c.name())
    return configs


def is_feasible(model: Model, pins: Mapping[str, object]) -> bool:
    """Whether some solution agrees with ``pins`` (a partial or complete config)."""
    compiled = compile_model(model, pins)
    if compiled.empty:
        return False
    status = deterministic_solver().Solve(compiled.cp)
    return status in (cp_model.OPTIMAL, cp_model.FEASIBLE)



def find_one(model: Model, pins: Mapping[str, object]):
    """One config agreeing with ``pins`` (a witness of ``is_feasible``), or None."""
    compiled = compile_model(model, pins)
    if compiled.empty:
        return None
    solver = deterministic_solver()
    status = solver.Solve(compiled.cp)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return model.make_config({a: compiled.domains[a][solver.Value(v)] for a, v in compiled.vars.items()})


class CpSat:
    """The ``cpsat`` backend (:mod:`.backends`): OR-Tools CP-SAT, single worker, checks tabulated over pruned domains."""

    name = "cpsat"
    can_count = False

    def enumerate(self, model: Model) -> list:
        return enumerate_solutions(model)

    def count(self, model: Model) -> int:
        raise CannotCount.backend(self.name)

    def is_feasible(self, model: Model, pins: Mapping[str, object]) -> bool:
        return is_feasible(model, dict(pins))

    def find_one(self, model: Model, pins: Mapping[str, object] | None = None):
        return find_one(model, dict(pins or {}))
