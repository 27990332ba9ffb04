"""Listing and checking through a chosen backend (``enumerate --backend``, ``check --backend``).

The default path (``query``) uses the direct backend's factorised join; these
functions ask any backend of ``solver.backends.BACKENDS`` instead, so the
independent solvers can be run on the same question from the command line.
The selection is counted first (by the direct backend: it counts without
listing) and refused past the limit, as ``enumerate`` does.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from ..errors import CksolveError
from ..query import CheckRecord, Record, Selection, count_records
from ..rulesets.base import RuleSet
from ..solver import BACKENDS, build_model, get_backend
from ..space.combo import Combo
from ..space.config import config_fields
from ..space.naming import parse_name

__all__ = ["BACKENDS", "enumerate_with", "check_with", "count_with"]


def count_with(backend: str, rule_set: RuleSet, selection: Selection) -> dict:
    """Configs per combination, counted by ``backend`` (one that cannot count says so)."""
    b = get_backend(backend)
    return {combo: b.count(build_model(combo, rule_set)) for combo in selection.combos()}


def enumerate_with(backend: str, rule_set: RuleSet, selection: Selection, limit: int | None) -> Iterator[Record]:
    """Every config of the selection as ``backend`` lists it, per combination in name order."""
    b = get_backend(backend)
    if limit:  # 0 or None: no limit
        total = sum(count_records(rule_set, selection).values())
        if total > limit:
            raise CksolveError(f"{rule_set.name or 'rule set'} has {total:,} configs in this selection, more than "
                               f"{limit:,}: narrow it or raise {{opt:limit}}")
    for combo in selection.combos():
        for config in b.enumerate(build_model(combo, rule_set)):
            yield Record(rule_set.name, combo, config)


def check_with(backend: str, records: Iterable[CheckRecord], rule_set: RuleSet | None) -> Iterator[CheckRecord]:
    """``check``'s records with validity and membership decided by ``backend`` (violations, the words for
    what is wrong, still come from the direct evaluator)."""
    b = get_backend(backend)
    for r in records:
        if r.violations and r.violations[0][0] == "parse":
            yield r
            continue
        config = parse_name(r.name)
        combo = Combo(r.arch, config.variant, config.dtype, config.ndim)
        pins = dict(zip(config_fields(type(config)), config))
        model = build_model(combo)
        if any(pins[a] not in model.domains[a] for a in model.axes):
            yield r  # outside an axis domain: no backend has a variable value for it
            continue
        valid = b.is_feasible(model, pins)
        member = None if rule_set is None else (valid and b.is_feasible(build_model(combo, rule_set), pins))
        yield r._replace(valid=valid, member=member)
