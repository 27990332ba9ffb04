"""``check`` and ``explain``: verdicts on kernel names, streamed, and explanations in words."""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

from ..errors import CksolveError, shorten
from ..rulesets import RuleSet, candidate_rule_sets
from ..selection import select
from ..solver import Explanation, evaluate, explanation
from ..space.namesfile import section_line, sectioned_entries
from ..space.naming import NameError_, line_reason, parse_name
from ..space.textfile import numbered_lines

__all__ = ["CheckRecord", "check_names", "section_archs", "explain_name", "Explanation"]


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


def check_names(names: Path | str | Iterable[str], arch: str | None, rule_set: RuleSet | None = None
                ) -> Iterator[CheckRecord]:
    """One record per name, in order: ``names`` is a names file (a ``str`` or ``Path``; ``-``: stdin) or any
    iterable of names (lines of a names file: comments and blank ones are skipped).

    Each name is checked for the arch of its section (a ``# arch: A`` line before it, as ``enumerate``
    over several archs writes) or else for ``arch``; a section for another arch than a given ``arch``
    is an error, as is a name outside any section when ``arch`` is None.
    A generator over a line-at-a-time reader: memory does not grow with the
    number of names. A line that is not a kernel name gets a ``parse`` record, and once every line
    is reported the generator raises ``NameError_`` naming the first such line: bad input (exit 2),
    as for ``explain``, where an invalid kernel is exit 1.
    """
    if isinstance(names, (str, PathLike)):
        where = "stdin" if str(names) == "-" else shorten(str(names), quote=False)
        lines = numbered_lines(names, "names file")
    else:
        where, lines = "names", enumerate(names, 1)
    first, more = None, 0
    for no, target, name in section_archs(sectioned_entries(lines), arch, where):
        try:
            verdict = evaluate(parse_name(name), target, rule_set)
        except NameError_ as exc:
            yield CheckRecord(name, target, False, (("parse", str(exc)),), None if rule_set is None else False)
            if first is None:
                first = f"{where}:{no}: {line_reason(name, exc)}"
            else:
                more += 1
            continue
        yield CheckRecord(name, target, verdict.valid,
                          tuple((v.constraint, v.message) for v in verdict.violations + verdict.rule_violations),
                          verdict.member)
    if first is not None:
        raise NameError_(first + (f" (and {more} more such line{'s' * (more > 1)})" if more else ""))


def section_archs(entries: Iterable[tuple[int, str | None, str]], arch: str | None, where: str
                  ) -> Iterator[tuple[int, str, str]]:
    """(line number, arch, name): each section's arch checked (known; the same as ``arch`` if one is given),
    a name outside any section given ``arch`` (an error when there is none)."""
    known: set[str] = set()
    for no, section, name in entries:
        if section is None:
            if arch is None:
                raise CksolveError(f"{where}:{no}: {shorten(name)} is in no '{section_line('ARCH')}' section "
                                   f"and no {{option}} is given", option="arch")
            yield no, arch, name
            continue
        if section not in known:
            try:
                select(archs=[section])
            except CksolveError as exc:
                raise CksolveError(f"{where}:{no}: {exc}") from None
            known.add(section)
        if arch is not None and section != arch:
            raise CksolveError(f"{where}:{no}: {shorten(name)} is in the section for {section}, not {{option}} "
                               f"{arch}; leave {{option}} out to check each section for its own arch", option="arch")
        yield no, section, name


def explain_name(name: str, arch: str, rule_set: RuleSet | None = None, nearest: int = 3,
                 problem: str | None = None) -> Explanation:
    """The record of ``explain``: valid, member (of ``rule_set``, if given), the violated constraints with
    their messages, with ``problem`` (a FIELD=VALUE spec) whether it can run it and why not, and the
    ``nearest`` valid configs. ``.ok`` is ``check``'s verdict (and the exit code); ``.text`` the words;
    ``.as_dict()`` the JSON."""
    if nearest < 0:
        raise CksolveError(f"{{option}} {nearest} must not be negative", option="nearest")
    config = parse_name(name)
    if problem is None:  # the workload layer is loaded only for a problem (start-up of every other explain)
        return explanation(config, arch, rule_set, nearest,
                           candidates=candidate_rule_sets() if rule_set is None else ())
    from ..workload import parse_problem  # deferred, with the next line: see the comment above
    from ..workload.explain import explain_on_problem  # deferred

    return explain_on_problem(config, arch, parse_problem(problem), rule_set, nearest)
