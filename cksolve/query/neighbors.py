"""``neighbors``: the valid configs near a kernel, within a rule set or the whole space (by the model)."""

from __future__ import annotations

from ..errors import CksolveError, did_you_mean, shorten
from ..rulesets import RuleSet, takes_rule_set
from ..selection import select
from ..solver import build_model
from ..solver.questions.neighborhood import MAX_RADIUS, METHODS, Neighbor, neighbors as _neighbors
from ..space.combo import Combo
from ..space.naming import parse_name

__all__ = ["neighbors", "Neighbor", "NEIGHBOR_METHODS"]

NEIGHBOR_METHODS = METHODS


@takes_rule_set
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
    return _neighbors(build_model(combo, rule_set), config, radius, method)
