"""Checking through a chosen backend (``check --backend``).

The default path (``query``) uses the direct backend's evaluator; this asks any
backend of ``solver.backends.BACKENDS`` instead, so the independent solvers can
be run on the same question from the command line. Listing and counting through
a backend are ``query.enumerate_records`` and ``query.count_records`` with ``backend=``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from ..query import CheckRecord
from ..rulesets.rule_set import RuleSet
from ..solver import BACKENDS, build_model, get_backend
from ..space.combo import Combo
from ..space.config import config_fields
from ..space.naming import parse_name
from ..rulesets import takes_rule_set

__all__ = ["BACKENDS", "check_with"]


@takes_rule_set
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
