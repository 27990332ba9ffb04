"""The built-in rule sets by name: where each is defined, and its one line.

Kept apart from the loaders so that listing the rule sets (``cksolve rule-sets``,
help texts, a rule set's own description) loads none of them. The four defined in this
package and the two derived ones (``full-tests``, ``tiny``: selections computed by the solver,
:mod:`cksolve.derived`, a layer above this one) are each an import string resolved on first use
(:func:`cksolve.rulesets.get_rule_set`), so the registry is complete in a fresh interpreter,
importing nothing, whatever was imported before.
"""

from __future__ import annotations

from ..registry import LazyRegistry

__all__ = ["RULE_SETS", "rule_set_description"]

#: name -> the rule set's class, with the one-line description shown before its module is loaded
RULE_SETS = LazyRegistry("rule set")
RULE_SETS.register("default", "cksolve.rulesets.default:DefaultRuleSet",
                   description="CK's original hand-curated set (10 tiles, fixed wave/warp maps).")
RULE_SETS.register("tests", "cksolve.rulesets.builder:TestsRuleSet",
                   description="CK's tests build set, read from the CK Builder tests/*.conf files.")
RULE_SETS.register("profiler", "cksolve.rulesets.builder:ProfilerRuleSet",
                   description="CK's profiler build set, read from the CK Builder profiler/*.conf files.")
RULE_SETS.register("full", "cksolve.rulesets.full:FullRuleSet",
                   description="CK's complete set: curated tiles, waves, warp tiles, vectors, pipelines and "
                               "feature variants.")
# derived sits above rulesets: resolved at call time (the accepted lazy upward link, tools/import_graph.py's ALLOWED)
RULE_SETS.register("full-tests", "cksolve.derived.subsets:FullTestsRuleSet",
                   description="Per combination: every 5th full config per feature category, plus one per uncovered "
                               "(pipeline, scheduler) pair.")
RULE_SETS.register("tiny", "cksolve.derived.subsets:TinyRuleSet",
                   description="Per combination: minimum cover of full-tests' categories and (pipeline, scheduler) "
                               "pairs, padded to 10.")


def rule_set_description(name: str) -> str:
    """Registry entry ``name``'s one line, nothing loaded ("" for an entry registered without one)."""
    return RULE_SETS.info(name).get("description", "")
