"""The built-in rule sets by name: where each is defined, and its one line.

Kept apart from the loaders so that listing the rule sets (``cksolve rule-sets``,
help texts, a rule set's own description) loads none of them. Modules are relative
to this package, except those of ``full-tests`` and ``tiny``, named absolutely: they
are derived selections that live above the solver (:mod:`cksolve.derived`), and are
imported only when asked for by name.
"""

from __future__ import annotations

__all__ = ["RULE_SETS"]

#: name -> (module, class, one-line description shown before the module is loaded)
RULE_SETS: dict[str, tuple[str, str, str]] = {
    "default": (".default", "DefaultRuleSet", "CK's original hand-curated set (10 tiles, fixed wave/warp maps)."),
    "tests": (".builder", "TestsRuleSet", "CK's tests build set, read from the CK Builder tests/*.conf files."),
    "profiler": (".builder", "ProfilerRuleSet", "CK's profiler build set, read from the CK Builder profiler/*.conf files."),
    "full": (".full", "FullRuleSet", "CK's complete set: curated tiles, waves, warp tiles, vectors, pipelines and feature variants."),
    "full-tests": ("cksolve.derived.subsets", "FullTestsRuleSet", "Per combination: every 5th full config per feature category, plus one per uncovered (pipeline, scheduler) pair."),
    "tiny": ("cksolve.derived.subsets", "TinyRuleSet", "Per combination: minimum cover of full-tests' categories and (pipeline, scheduler) pairs, padded to 10."),
}
