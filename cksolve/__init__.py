"""cksolve: a declarative constraint-solver configuration space for CK Tile grouped convolution.

Public API::

    from cksolve import KernelConfig, DepthwiseConfig, parse_name, get_rule_set, Combo
    from cksolve.solver import enumerate_combo, solve_combo
    from cksolve.solver.evaluate import evaluate
"""

from .space.config import DepthwiseConfig, KernelConfig
from .space.naming import parse_name
from .space.rulesets import Combo, get_rule_set

__all__ = ["KernelConfig", "DepthwiseConfig", "parse_name", "get_rule_set", "Combo"]
__version__ = "0.1.0"
