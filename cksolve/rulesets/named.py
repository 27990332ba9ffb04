"""A built-in rule set by its registry name: its module imported on first use, built once per options.

Below :mod:`.file` (a rule-set file extends built-in sets by name) and the package's
``get_rule_set`` (which also takes a file's path), so neither needs the other.
"""

from __future__ import annotations

from ..space.memos import MEMOS
from .rule_set import RuleSet
from .builtin import RULE_SETS, rule_set_description

__all__ = ["named_rule_set"]


@MEMOS.cached("rulesets._load")
def _load(name: str, options: tuple) -> RuleSet:
    rule_set = RULE_SETS.get(name)(**dict(options))  # its module imported the first time
    rule_set.description = rule_set_description(name)
    return rule_set


def named_rule_set(name: str, **options) -> RuleSet:
    """Registry entry ``name``, given the options its class takes (``OPTIONS``; the others are ignored)."""
    wanted = tuple(sorted((k, v) for k, v in options.items() if k in getattr(RULE_SETS.get(name), "OPTIONS", ())))
    return _load(name, wanted)
