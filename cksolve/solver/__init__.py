"""The solver's face: the model, its backends, solving per combination, evaluation and explanation.

Re-export only (``tests/test_faces.py``); the modules behind it are internal::

    solve_combo(rule_set, combo)      -> SolutionSet (factorised; .count(), .configs())
    enumerate_combo(rule_set, combo)  -> configs of the combo in canonical name order
    names_combo(rule_set, combo)      -> their kernel names, in the same order
    bounded_configs(rule_set, combo)  -> the configs of the combo, refused past CONFIG_LIMIT (workloads, features)
    evaluate(config, arch, rule_set)  -> the verdict on one config (violations, membership)
    get_backend(name)                 -> a backend of BACKENDS (direct, cpsat, python-constraint), loaded on first use

What loads OR-Tools (``cpsat``, ``score_model``) is not re-exported: its few callers import it where they
need it, deferred.
"""

from .backends import BACKENDS, DEFAULT_BACKEND, Backend, CannotCount, get_backend, pinned
from .combos import CONFIG_LIMIT, bounded_configs, enumerate_combo, names_combo, solve_combo
from .counting import SpaceTooLarge
from .cover import CoverError, minimum_cover
from .direct import SolutionSet, solve
from .evaluate import Verdict, evaluate
from .explain import Explanation, Nearest, explanation
from .model import Model, build_model, prune_domains
from .relations import key_getter
from .sampling import decode, sample_blocks, sample_name_blocks, sample_solutions
from .stream import config_blocks, name_blocks

__all__ = [
    "Model", "build_model", "prune_domains",
    "SolutionSet", "solve", "SpaceTooLarge",
    "solve_combo", "enumerate_combo", "names_combo", "bounded_configs", "CONFIG_LIMIT",
    "evaluate", "Verdict", "explanation", "Explanation", "Nearest",
    "BACKENDS", "DEFAULT_BACKEND", "Backend", "CannotCount", "get_backend", "pinned",
    "sample_solutions", "sample_blocks", "sample_name_blocks", "decode",
    "config_blocks", "name_blocks",
    "minimum_cover", "CoverError",
    "key_getter",
]
