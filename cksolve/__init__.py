"""cksolve: a declarative constraint-solver configuration space for CK Tile grouped convolution.

Public API::

    from cksolve import KernelConfig, DepthwiseConfig, parse_name, get_rule_set, Combo
    from cksolve.solver import enumerate_combo, evaluate, solve_combo

The names are imported on first use: ``cksolve --help`` (and every command
before it needs them) does not pay for loading the space and the rule sets.
"""

from importlib import import_module

__all__ = ["KernelConfig", "DepthwiseConfig", "parse_name", "get_rule_set", "Combo"]
__version__ = "0.1.0"

_HOME = {"KernelConfig": ".space.config", "DepthwiseConfig": ".space.config", "parse_name": ".space.naming",
         "get_rule_set": ".rulesets", "Combo": ".space.combo"}


def __getattr__(name: str):
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
