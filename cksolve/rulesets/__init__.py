"""Named rule sets: each is a bundle of extra constraints (see :mod:`.base`).

Rule sets are imported lazily, so naming one does not load the others' data.
"""

from __future__ import annotations

from pathlib import Path

from .base import Combo, RuleSet, RuleSetError, kind_of
from .file import FileRuleSet
from .named import named_rule_set
from .registry import RULE_SETS, rule_set_description

__all__ = ["Combo", "RuleSet", "RuleSetError", "RULE_SETS", "get_rule_set", "rule_set_names", "kind_of",
           "CANDIDATE_RULE_SETS", "candidate_rule_sets", "rule_set_description"]


def rule_set_names() -> list[str]:
    return list(RULE_SETS)


def get_rule_set(name: str, **options) -> RuleSet:
    """The rule set called ``name`` (or defined by the file at path ``name``).

    Options are passed to rule sets that need them (e.g. ``builder_configs``);
    others ignore them.
    """
    if name in RULE_SETS:
        return named_rule_set(name, **options)
    if not name:
        raise RuleSetError(f"empty rule set name; valid: {', '.join(RULE_SETS)} or a path to a rule-set file")
    path = Path(name)
    if path.suffix == ".toml" or _exists(path):
        return FileRuleSet.from_path(path, **options)
    raise RuleSetError(RULE_SETS.unknown(name, "or a path to a rule-set file"))


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long for a path, an embedded NUL
        return False


#: Rule sets searched for the nearest valid configs when none is given: the kernels CK
#: actually builds (subsets like tiny add nothing; tests and profiler need external files).
CANDIDATE_RULE_SETS = ("default", "full")


def candidate_rule_sets() -> list[RuleSet]:
    """The loadable ones of ``CANDIDATE_RULE_SETS``, in that order."""
    out = []
    for name in CANDIDATE_RULE_SETS:
        try:
            out.append(get_rule_set(name))
        except RuleSetError:
            continue
    return out
