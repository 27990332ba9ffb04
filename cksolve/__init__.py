"""cksolve: a declarative constraint-solver configuration space for CK Tile grouped convolution.

Public API::

    from cksolve import KernelConfig, DepthwiseConfig, parse_name, get_rule_set, Combo
    from cksolve.solver import enumerate_combo, evaluate, solve_combo

The names are imported on first use: ``cksolve --help`` (and every command
before it needs them) does not pay for loading the space and the rule sets.
"""

from .registry import LazyRegistry, lazy_names

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

__getattr__, __dir__ = lazy_names(globals(), _HOME)
