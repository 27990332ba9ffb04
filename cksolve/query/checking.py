"""``check`` and ``explain``: verdicts on kernel names, streamed, and explanations in words."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, NamedTuple

from ..errors import CksolveError, shorten
from ..rulesets import RuleSet, candidate_rule_sets
from ..solver.evaluate import evaluate
from ..solver.explain import explanation
from ..space.naming import NameError_, line_reason, name_entries, parse_name
from ..space.textfile import numbered_lines

__all__ = ["CheckRecord", "check_names", "explain_name"]


class CheckRecord(NamedTuple):
    """``check``'s verdict on one line: a name that does not parse is invalid with a ``parse`` violation."""

    name: str
    arch: str
    valid: bool
    violations: tuple[tuple[str, str], ...]  # (constraint, message), CK's order
    member: bool | None = None  # None: no rule set asked about

    @property
    def ok(self) -> bool:
        return self.valid and self.member is not False

    def as_dict(self) -> dict:
        d = {"name": self.name, "arch": self.arch, "valid": self.valid,
             "violations": [{"constraint": c, "message": m} for c, m in self.violations]}
        if self.member is not None:
            d["member"] = self.member
        return d


def check_names(source: Path | str, arch: str, rule_set: RuleSet | None = None) -> Iterator[CheckRecord]:
    """One record per name of a names file (``-``: stdin), in order.

    A generator over a line-at-a-time reader: memory does not grow with the
    number of names. A line that is not a kernel name gets a ``parse`` record, and once every line
    is reported the generator raises ``NameError_`` naming the first such line: bad input (exit 2),
    as for ``explain``, where an invalid kernel is exit 1.
    """
    first, more = None, 0
    for no, name in name_entries(numbered_lines(source, "names file")):
        try:
            verdict = evaluate(parse_name(name), arch, rule_set)
        except NameError_ as exc:
            yield CheckRecord(name, arch, False, (("parse", str(exc)),), None if rule_set is None else False)
            if first is None:
                where = "stdin" if str(source) == "-" else shorten(str(source), quote=False)
                first = f"{where}:{no}: {line_reason(name, exc)}"
            else:
                more += 1
            continue
        yield CheckRecord(name, arch, verdict.valid,
                          tuple((v.constraint, v.message) for v in verdict.violations + verdict.rule_violations),
                          verdict.member)
    if first is not None:
        raise NameError_(first + (f" (and {more} more such line{'s' * (more > 1)})" if more else ""))


def explain_name(name: str, arch: str, rule_set: RuleSet | None = None, nearest: int = 3,
                 problem: str | None = None) -> tuple[bool, str]:
    """(ok, words): ``ok`` as ``check`` says it (valid, and a member of ``rule_set`` if one is given)
    and, with ``problem`` (a FIELD=VALUE spec), able to run that problem."""
    if nearest < 0:
        raise CksolveError(f"{{option}} {nearest} must not be negative", option="nearest")
    config = parse_name(name)
    if problem is None:  # the workload layer is loaded only for a problem (start-up of every other explain)
        result = explanation(config, arch, rule_set, nearest,
                             candidates=candidate_rule_sets() if rule_set is None else ())
    else:
        from ..workload import parse_problem
        from ..workload.explain import explain_on_problem

        result = explain_on_problem(config, arch, parse_problem(problem), rule_set, nearest)
    v = result.verdict
    return v.valid and v.member is not False and not v.problem_violations, result.text
