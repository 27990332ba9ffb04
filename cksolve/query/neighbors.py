"""``neighbors``: the valid configs near a kernel, within a rule set or the whole space (by the model)."""

from __future__ import annotations

from ..errors import CksolveError, did_you_mean, shorten
from ..rulesets import RuleSet
from ..selection import select
from ..solver import build_model
from ..space.memos import MEMOS
from ..solver.neighbors import MAX_RADIUS, METHODS, Neighbor, neighbors as _neighbors
from ..arch.constraints import constraints_for
from ..space.combo import Combo, kind_of
from ..space.naming import parse_name

__all__ = ["neighbors", "Neighbor", "NEIGHBOR_METHODS"]

NEIGHBOR_METHODS = METHODS
_MODELS = MEMOS.memo("query.neighbor_models")


def neighbors(name: str, arch: str, rule_set: RuleSet | None = None, radius: int = 1,
              method: str = "hamming") -> list[Neighbor]:
    """The valid configs near kernel ``name`` for ``arch``: those differing in 1..``radius`` axes
    (``hamming``), or by one step along 1..``radius`` ordered axes (``adjacent``), that are members of
    ``rule_set`` (None: valid anywhere in the arch's space), in (distance, name) order. Each is tested
    against the model's constraints; nothing is listed, so the whole space answers as fast as a rule set.
    The name itself need not be valid."""
    if method not in METHODS:
        raise CksolveError(f"unknown {{option}} {shorten(method)}; valid: {', '.join(METHODS)}"
                           f"{did_you_mean(method, METHODS)}", option="method")
    if radius < 1 or radius > MAX_RADIUS:
        raise CksolveError(f"{{option}} {radius} must be 1 to {MAX_RADIUS} (candidates grow as a power of it)",
                           option="radius")
    select(archs=[arch])  # an unknown arch: the selection's one-line error
    config = parse_name(name)
    combo = Combo(arch, config.variant, config.dtype, config.ndim)
    # keyed like solve_combo: the arch's constraints follow the active CK version
    key = (combo, constraints_for(combo.arch, kind_of(combo.variant)),
           None if rule_set is None else tuple(rule_set.constraints(combo)))
    model = _MODELS.get(key)
    if model is None:
        model = _MODELS[key] = build_model(combo, rule_set)
    return _neighbors(model, config, radius, method)
