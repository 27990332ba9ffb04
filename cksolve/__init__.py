"""cksolve: a declarative constraint-solver configuration space for CK Tile grouped convolution.

Public API::

    from cksolve import KernelConfig, DepthwiseConfig, parse_name, get_rule_set, Combo
    from cksolve.solver import enumerate_combo, evaluate, solve_combo

The names are imported on first use: ``cksolve --help`` (and every command
before it needs them) does not pay for loading the space and the rule sets.
"""

from .registry import LazyRegistry

__all__ = ["KernelConfig", "DepthwiseConfig", "parse_name", "get_rule_set", "Combo"]
__version__ = "0.1.0"

#: each public name -> where it is defined, imported on first use
_HOME = LazyRegistry("name", {
    "KernelConfig": "cksolve.space.config:KernelConfig",
    "DepthwiseConfig": "cksolve.space.config:DepthwiseConfig",
    "parse_name": "cksolve.space.naming:parse_name",
    "get_rule_set": "cksolve.rulesets:get_rule_set",
    "Combo": "cksolve.space.combo:Combo",
})


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = _HOME.get(name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
