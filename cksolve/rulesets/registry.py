"""The built-in rule sets by name: where each is defined, and its one line.

Kept apart from the loaders so that listing the rule sets (``cksolve rule-sets``,
help texts, a rule set's own description) loads none of them. The four defined in this
package are listed here (modules relative to it); layers above register theirs with
:func:`register` when they are imported -- :mod:`cksolve.derived` registers ``full-tests``
and ``tiny``, which are selections computed by the solver -- so this module names no module
above it. The faces (``cksolve.query``, the docs, ``cksolve.get_rule_set``) import those layers.
"""

from __future__ import annotations

__all__ = ["RULE_SETS", "register"]

#: name -> (module, class, one-line description shown before the module is loaded)
RULE_SETS: dict[str, tuple[str, str, str]] = {
    "default": (".default", "DefaultRuleSet", "CK's original hand-curated set (10 tiles, fixed wave/warp maps)."),
    "tests": (".builder", "TestsRuleSet", "CK's tests build set, read from the CK Builder tests/*.conf files."),
    "profiler": (".builder", "ProfilerRuleSet", "CK's profiler build set, read from the CK Builder profiler/*.conf files."),
    "full": (".full", "FullRuleSet", "CK's complete set: curated tiles, waves, warp tiles, vectors, pipelines and feature variants."),
}


def register(name: str, module: str, cls: str, description: str) -> None:
    """Add a rule set defined above this package: ``module`` (absolute) defines class ``cls``.

    Registering the same entry again is a no-op (a module imported twice); a different one
    under a taken name is a programming error.
    """
    entry = (module, cls, description)
    if RULE_SETS.setdefault(name, entry) != entry:
        raise ValueError(f"rule set {name!r} is registered twice: {RULE_SETS[name][:2]} and {entry[:2]}")
