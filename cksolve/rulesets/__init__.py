"""Named rule sets: each is a bundle of extra constraints (see :mod:`.rule_set`).

Rule sets are imported lazily, so naming one does not load the others' data. A library entry point's
``rule_set`` argument is read one way (``takes_rule_set``): a RuleSet, or a name or file resolved here.
"""

from __future__ import annotations

import functools
import inspect
import os
from pathlib import Path

from .rule_set import Combo, RuleSet, RuleSetError, kind_of
from .file import FileRuleSet
from .named import named_rule_set
from .builtin import RULE_SETS, rule_set_description

__all__ = ["Combo", "RuleSet", "RuleSetError", "RULE_SETS", "get_rule_set", "rule_set_names", "kind_of",
           "CANDIDATE_RULE_SETS", "candidate_rule_sets", "rule_set_description", "as_rule_set", "takes_rule_set"]


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


def as_rule_set(value, param: str = "rule_set", optional: bool = False) -> RuleSet | None:
    """``value`` as a rule set: a ``RuleSet`` (or an object with its ``constraints``) as it is, a name or a path
    loaded (``get_rule_set``), None where ``optional`` (the whole space); else a TypeError naming ``param``."""
    if isinstance(value, RuleSet) or callable(getattr(value, "constraints", None)):
        return value
    if value is None and optional:
        return None
    if isinstance(value, (str, os.PathLike)):
        return get_rule_set(os.fspath(value))
    raise TypeError(f"{param} must be a RuleSet or a rule-set name or file"
                    f"{' (or None)' if optional else ''}, not {type(value).__name__}")


def takes_rule_set(fn):
    """``fn`` with its ``rule_set`` argument read by :func:`as_rule_set` (optional when it defaults to None)."""
    params = list(inspect.signature(fn).parameters.values())
    at = next(i for i, p in enumerate(params) if p.name == "rule_set")
    optional = params[at].default is None or "None" in str(params[at].annotation)  # RuleSet | None: the whole space

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if "rule_set" in kwargs:
            kwargs["rule_set"] = as_rule_set(kwargs["rule_set"], optional=optional)
        elif len(args) > at:
            args = (*args[:at], as_rule_set(args[at], optional=optional), *args[at + 1:])
        return fn(*args, **kwargs)

    wrapper.takes_rule_set = True
    return wrapper


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
