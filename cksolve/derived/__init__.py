"""Selections derived from solved rule sets (``full-tests``, ``tiny``): above the solver, below workloads.

Importing this package registers the two rule sets with the registry below it (by this
package's own module name), so the registry names nothing above itself; their module is
loaded only when one of them is asked for by name.
"""

from ..rulesets.registry import register

register("full-tests", f"{__name__}.subsets", "FullTestsRuleSet",
         "Per combination: every 5th full config per feature category, plus one per uncovered (pipeline, scheduler) pair.")
register("tiny", f"{__name__}.subsets", "TinyRuleSet",
         "Per combination: minimum cover of full-tests' categories and (pipeline, scheduler) pairs, padded to 10.")
