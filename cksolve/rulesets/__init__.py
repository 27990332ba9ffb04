"""Named rule sets: each is a bundle of extra constraints (see :mod:`.base`).

Rule sets are imported lazily, so naming one does not load the others' data.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path

from .base import Combo, RuleSet, RuleSetError, kind_of

__all__ = ["Combo", "RuleSet", "RuleSetError", "RULE_SETS", "get_rule_set", "rule_set_names", "kind_of"]

#: name -> (module, class, one-line description shown before the module is loaded)
RULE_SETS: dict[str, tuple[str, str, str]] = {
    "default": (".default", "DefaultRuleSet", "CK's original hand-curated set (10 tiles, fixed wave/warp maps)."),
    "tests": (".builder", "TestsRuleSet", "CK's tests build set, read from the CK Builder tests/*.conf files."),
    "profiler": (".builder", "ProfilerRuleSet", "CK's profiler build set, read from the CK Builder profiler/*.conf files."),
    "full": (".full", "FullRuleSet", "CK's complete set: curated tiles, waves, warp tiles, vectors, pipelines and feature variants."),
    "full-tests": ("cksolve.derived.subsets", "FullTestsRuleSet", "Per combination: every 5th full config per feature category, plus one per uncovered (pipeline, scheduler) pair."),
    "tiny": ("cksolve.derived.subsets", "TinyRuleSet", "Per combination: minimum CP-SAT cover of full-tests' categories and (pipeline, scheduler) pairs, padded to 10."),
}


def rule_set_names() -> list[str]:
    return list(RULE_SETS)


def _class(name: str) -> type:
    module, cls, _ = RULE_SETS[name]
    return getattr(importlib.import_module(module, __package__), cls)


@lru_cache(maxsize=None)
def _load(name: str, options: tuple) -> RuleSet:
    return _class(name)(**dict(options))


def get_rule_set(name: str, **options) -> RuleSet:
    """The rule set called ``name`` (or defined by the file at path ``name``).

    Options are passed to rule sets that need them (e.g. ``builder_configs``);
    others ignore them.
    """
    if name in RULE_SETS:
        wanted = tuple(sorted((k, v) for k, v in options.items() if k in getattr(_class(name), "OPTIONS", ())))
        return _load(name, wanted)
    path = Path(name)
    if path.suffix == ".toml" or path.exists():
        from .file import FileRuleSet

        return FileRuleSet.from_path(path)
    raise RuleSetError(f"unknown rule set {name!r}; valid: {', '.join(RULE_SETS)} or a path to a rule-set file")
