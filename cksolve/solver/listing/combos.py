"""Solving one combination of a rule set: built and solved once per process, its configs in name order.

``solve_combo`` memoises the solve; ``enumerate_combo``/``names_combo`` give its configs and names in
canonical name order; ``bounded_configs`` lists them for the commands that work per combination,
refusing past ``CONFIG_LIMIT``.
"""

from __future__ import annotations

from functools import partial

from ...arch.arch_constraints import constraints_for
from ...space.combo import kind_of
from ...space.kinds import kernel_kind
from ...space.memos import MEMOS
from ..engine.counting import SpaceTooLarge
from ..engine.direct import SolutionSet, solve
from ..model import build_model, config_class
from ..engine.solutions import gc_paused
from .spelled import spelled_names, spelled_rows

__all__ = ["solve_combo", "enumerate_combo", "names_combo", "bounded_configs", "CONFIG_LIMIT"]

#: Configs of one combination that the commands working per combination (applicable, coverage,
#: minimize, features, audit's containment) list at most; CK's largest has about 9,000. A rule-set
#: file that leaves axes free has billions: it is refused with its size instead of filling memory.
CONFIG_LIMIT = 1_000_000


_COMBOS = MEMOS.memo("solver.combo")


def solve_combo(rule_set, combo) -> SolutionSet:
    """The solutions of ``rule_set`` for ``combo``, built and solved once per process.

    A listing counts every combination (against its limit) before it lists them,
    and workloads ask per problem: the model is built and keyed once, not per
    question. The key is what the model is made of (the combination and the rule
    set's constraints for it, memoised by the rule sets, and the arch's, which follow
    the active CK version), so a rule set whose constraints change, or another CK
    version, is solved again, and no rule set is kept alive by the memo.
    """
    arch, own = constraints_for(combo.arch, kind_of(combo.variant)), rule_set.constraints(combo)
    last = _LAST.get(combo)
    if last is not None and last[0] is arch and last[1] is own:  # the same memoised constraints as last asked
        return last[2]
    key = (combo, arch, tuple(own))
    hit = _COMBOS.get(key)
    if hit is None:
        hit = _COMBOS[key] = solve(build_model(combo, rule_set))
    _LAST[combo] = (arch, own, hit)  # holds the constraints: their identities stand for their values
    return hit


#: combo -> (arch constraints, rule-set constraints, solutions) last solved: a listing asks three times per
#: combination (count, list, names) and the key's hash calls every constraint's __hash__ (``enumerate -r full``:
#: 1,615 -> 1,606 M instructions)
_LAST = MEMOS.memo("solver.combo_last")


def bounded_configs(rule_set, combo, limit: int = CONFIG_LIMIT) -> list:
    """The configs of ``rule_set`` valid for the combo (unordered), counted first and refused (one line,
    naming the combination) past ``limit`` or when the space cannot even be counted or listed."""
    name = getattr(rule_set, "name", None) or "rule set"
    try:
        solutions = solve_combo(rule_set, combo)
        n = solutions.count()
        configs = solutions.configs() if n <= limit else None
    except SpaceTooLarge as exc:  # too many free axes to count, or to join a counted component
        raise SpaceTooLarge(f"{name} leaves too many axes free to list {combo.key} ({exc}): pin more axes "
                            f"in the rule set") from None
    if configs is None:
        raise SpaceTooLarge(f"{name} has {n:,} configs for {combo.key}, more than the {limit:,} a command lists "
                            f"per combination: pin more axes in the rule set")
    return configs


def enumerate_combo(rule_set, combo) -> list:
    """Every config of ``rule_set`` valid for the combo, sorted by kernel name."""
    solutions = solve_combo(rule_set, combo)
    configs = solutions.memo.get("configs_in_order")
    if configs is None:
        names, rows, pick = _name_order(rule_set, combo)
        make = partial(tuple.__new__, config_class(solutions.model.kind))
        with gc_paused():
            configs = solutions.memo["configs_in_order"] = tuple(map(make, rows if pick is None else map(pick, rows)))
        solutions.memo["name_order"] = (names, configs, None)  # the configs in place of the rows: one copy is held
    return list(configs)


def names_combo(rule_set, combo) -> tuple[str, ...]:
    """The kernel names of :func:`enumerate_combo`'s configs, in its order (a names listing needs no configs).

    The names are sorted as they are; the rows are put in their order only when configs are asked for
    (a names listing hashes no name: ``enumerate -r full``'s 41k names, measured in instructions).
    """
    solutions = solve_combo(rule_set, combo)
    memo = solutions.memo
    ordered = memo.get("name_order")
    if ordered is not None:
        return ordered[0]
    names = memo.get("names_in_order")
    if names is None:
        unsorted = None if "named" in memo else spelled_names(solutions)  # the rows are formed when configs are asked
        if unsorted is None:
            unsorted = _named(solutions)[0]
        names = memo["names_in_order"] = tuple(sorted(unsorted))
    return names


def _named(solutions) -> tuple:
    """(names, values, pick) of the solutions in the solve's order, each name computed once (memoised until
    :func:`_name_order` orders them): ``pick`` takes a row to its config's values in field order (None: the
    rows are those values)."""
    memo = solutions.memo
    named = memo.get("named")
    if named is None:
        with gc_paused():  # naming allocates as much as forming the values
            named = spelled_rows(solutions)
            if named is None:
                values = solutions.value_rows()
                # the kind's memoised name function called from C on plain tuples (no config formed, no method
                # frame per config)
                named = (list(map(kernel_kind(solutions.model.kind).spell, values)), values, None)
        memo["named"] = named
    return named


def _name_order(rule_set, combo) -> tuple[tuple[str, ...], tuple, object]:
    """(names, rows, pick) of the combo's solutions in name order: ``pick`` takes a row to its config's values
    in field order (None: the rows are those values, or the configs once :func:`enumerate_combo` asked for
    them).

    Combinations whose solutions are equal (same solve, same unread values)
    share the memo, so values are formed, named and sorted once per
    distinct solution set.
    """
    solutions = solve_combo(rule_set, combo)
    memo = solutions.memo
    ordered = memo.get("name_order")
    if ordered is None:
        names, values, pick = _named(solutions)
        with gc_paused():
            by_name = dict(zip(names, values))  # names are unique: a name -> row table orders the rows
            names = memo.get("names_in_order") or tuple(sorted(by_name))
            ordered = memo["name_order"] = (names, tuple(map(by_name.__getitem__, names)), pick)
        memo.pop("named", None)  # one copy of the rows is held
        memo.pop("names_in_order", None)
    return ordered
