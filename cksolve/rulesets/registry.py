"""The built-in rule sets by name: where each is defined, and its one line.

Kept apart from the loaders so that listing the rule sets (``cksolve rule-sets``,
help texts, a rule set's own description) loads none of them. The four defined in this
package are named relative to it; the two derived ones (``full-tests``, ``tiny``: selections
computed by the solver, :mod:`cksolve.derived`, a layer above this one) by an absolute
import string. Every entry is a string resolved on first use (:func:`cksolve.rulesets.get_rule_set`),
so the registry is complete in a fresh interpreter, importing nothing, whatever was imported before.
"""

from __future__ import annotations

__all__ = ["RULE_SETS"]

#: name -> (module, class, one-line description shown before the module is loaded)
RULE_SETS: dict[str, tuple[str, str, str]] = {
    "default": (".default", "DefaultRuleSet", "CK's original hand-curated set (10 tiles, fixed wave/warp maps)."),
    "tests": (".builder", "TestsRuleSet", "CK's tests build set, read from the CK Builder tests/*.conf files."),
    "profiler": (".builder", "ProfilerRuleSet", "CK's profiler build set, read from the CK Builder profiler/*.conf files."),
    "full": (".full", "FullRuleSet", "CK's complete set: curated tiles, waves, warp tiles, vectors, pipelines and feature variants."),
    # derived sits above rulesets: named by an import string, resolved at call time (the accepted lazy upward link)
    "full-tests": ("cksolve.derived.subsets", "FullTestsRuleSet",
                   "Per combination: every 5th full config per feature category, plus one per uncovered (pipeline, scheduler) pair."),
    "tiny": ("cksolve.derived.subsets", "TinyRuleSet",
             "Per combination: minimum cover of full-tests' categories and (pipeline, scheduler) pairs, padded to 10."),
}

