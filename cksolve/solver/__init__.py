"""The solver's face: the model, its backends, solving per combination, evaluation and explanation.

Re-export only (``tests/test_faces.py``); the modules behind it are internal::

    solve_combo(rule_set, combo)      -> SolutionSet (factorised; .count(), .configs())
    enumerate_combo(rule_set, combo)  -> configs of the combo in canonical name order
    names_combo(rule_set, combo)      -> their kernel names, in the same order
    bounded_configs(rule_set, combo)  -> the configs of the combo, refused past CONFIG_LIMIT (workloads, features)
    evaluate(config, arch, rule_set)  -> the verdict on one config (violations, membership)
    get_backend(name)                 -> a backend of BACKENDS (direct, cpsat, python-constraint), loaded on first use

The model and the backends sit at the top (``model``, ``backend_protocol``, ``backends`` and one module
per backend); each concern below them is a sub-package, imports running down (``tools/import_graph.py``
ranks them): ``engine`` (the direct engine: solve, count, condition), then ``listing`` (a combination
solved once, listed in name order) and ``sampling`` (exactly uniform draws by index), then
``questions`` (evaluate, explain, neighbors on one model). What loads OR-Tools (``cpsat``) is not
re-exported: its few callers import it where they need it, deferred.
"""

from .backends import BACKENDS, DEFAULT_BACKEND, Backend, CannotCount, get_backend, pinned
from .engine import SolutionSet, SpaceTooLarge, connected, key_getter, solve
from .listing import (CONFIG_LIMIT, bounded_configs, config_blocks, enumerate_combo, name_blocks, names_combo,
                      solve_combo)
from .model import Model, build_model, prune_domains
from .questions import Explanation, Nearest, Verdict, evaluate, explanation
from .sampling import decode, sample_blocks, sample_name_blocks, sample_solutions

__all__ = [
    "Model", "build_model", "prune_domains",
    "SolutionSet", "solve", "SpaceTooLarge",
    "solve_combo", "enumerate_combo", "names_combo", "bounded_configs", "CONFIG_LIMIT",
    "evaluate", "Verdict", "explanation", "Explanation", "Nearest",
    "BACKENDS", "DEFAULT_BACKEND", "Backend", "CannotCount", "get_backend", "pinned",
    "sample_solutions", "sample_blocks", "sample_name_blocks", "decode",
    "config_blocks", "name_blocks",
    "key_getter", "connected",
]
