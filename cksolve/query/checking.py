"""``check`` and ``explain``: verdicts on kernel names, streamed, and explanations in words."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, NamedTuple

from ..errors import CksolveError, shorten
from ..progress import phase, watched
from ..rulesets import RuleSet, candidate_rule_sets, takes_rule_set
from ..selection import select
from ..solver import Explanation, evaluate, explanation
from ..space.namesfile import section_line, sectioned_entries
from ..space.naming import NameError_, line_reason, parse_name
from ..space.shortnames import read_short
from ..space.textfile import numbered_lines

if TYPE_CHECKING:  # the workload layer loads for a problem only (see explain_name)
    from ..workload import Problem

__all__ = ["CheckRecord", "check_names", "section_archs", "explain_name", "Explanation", "ShortExplanation",
           "SHORT_CONSTRAINT"]


class CheckRecord(NamedTuple):
    """``check``'s verdict on one line: a name that does not parse is invalid with a ``parse`` violation."""

    name: str
    arch: str
    valid: bool
    violations: tuple[tuple[str, str], ...]  # (constraint, message), CK's order
    member: bool | None = None  # None: no rule set asked about
    short: dict | None = None  # a dispatcher short name: its expansion (``workload.expand.Expansion.as_dict``)

    @property
    def ok(self) -> bool:
        return self.valid and self.member is not False

    def as_dict(self) -> dict:
        d = {"name": self.name, "arch": self.arch, "valid": self.valid,
             "violations": [{"constraint": c, "message": m} for c, m in self.violations]}
        if self.member is not None:
            d["member"] = self.member
        if self.short is not None:
            d["kernels"], d["resolved"], d["how"] = self.short["kernels"], self.short["resolved"], self.short["how"]
        return d


@takes_rule_set
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
    resolvers: dict = {}  # arch -> the label resolver of its short names (each short name resolved once)
    total, told = _line_total(names), 0
    for no, target, name in section_archs(sectioned_entries(lines), arch, where):
        if no > told:  # the progress bar told every TELL_EVERY lines (n of N for a regular file)
            phase("checking names: line", no, total)
            told = no + TELL_EVERY - 1
        try:
            if read_short(name) is not None:
                record = _short_record(name, target, rule_set, resolvers)
            else:
                record, verdict = None, evaluate(parse_name(name), target, rule_set)
        except NameError_ as exc:  # not a kernel name, or a short name with an unknown dtype
            yield CheckRecord(name, target, False, (("parse", str(exc)),), None if rule_set is None else False)
            if first is None:
                first = f"{where}:{no}: {line_reason(name, exc)}"
            else:
                more += 1
            continue
        if record is not None:
            yield record
            continue
        yield CheckRecord(name, target, verdict.valid,
                          tuple((v.constraint, v.message) for v in verdict.violations + verdict.rule_violations),
                          verdict.member)
    if first is not None:
        raise NameError_(first + (f" (and {more} more such line{'s' * (more > 1)})" if more else ""))


SHORT_CONSTRAINT = "short-name"
#: lines of a names file between two phases told to the progress bar
TELL_EVERY = 256


def _line_total(names) -> int | None:
    """The lines of a names file that is a regular file (the progress bar's N), counted only where a terminal
    shows the bar; None otherwise (stdin, a FIFO, names in memory)."""
    if not isinstance(names, (str, PathLike)) or str(names) == "-" or not watched():
        return None
    try:
        if not stat.S_ISREG(os.stat(names).st_mode):
            return None
        n, last = 0, b"\n"
        with open(names, "rb") as fh:
            while chunk := fh.read(1 << 20):
                n, last = n + chunk.count(b"\n"), chunk[-1:]
        return n + (last != b"\n")
    except OSError:  # unreadable: the reader says so
        return None


def _short_record(name: str, arch: str, rule_set: RuleSet | None, resolvers: dict) -> CheckRecord:
    """A dispatcher short name's record: valid when it stands for a kernel (``workload.expand`` says when)."""
    from ..workload.expand import expand_short  # deferred: the workload layer only when a short name is checked
    from ..workload.labels import LabelResolver  # deferred: as above

    resolver = resolvers.get(arch) or resolvers.setdefault(arch, LabelResolver(arch))
    e = expand_short(name, arch, rule_set, resolver)
    why = e.why
    return CheckRecord(name, arch, e.valid, ((SHORT_CONSTRAINT, why),) if why else (), e.member, e.as_dict())


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


@takes_rule_set
def explain_name(name: str, arch: str, rule_set: RuleSet | None = None, nearest: int = 3,
                 problem: Problem | str | None = None) -> Explanation | ShortExplanation:
    """The record of ``explain``: valid, member (of ``rule_set``, if given), the violated constraints with
    their messages, with ``problem`` (a ``Problem`` or a FIELD=VALUE spec) whether it can run it and why not,
    and the ``nearest`` valid configs. ``.ok`` is ``check``'s verdict (and the exit code); ``.text`` the words;
    ``.as_dict()`` the JSON. ``name`` may be a dispatcher short name: a ``ShortExplanation`` then."""
    if nearest < 0:
        raise CksolveError(f"{{option}} {nearest} must not be negative", option="nearest")
    if read_short(name) is not None:
        return _explain_short(name, arch, rule_set, nearest, problem)
    config = parse_name(name)
    if problem is None:  # the workload layer is loaded only for a problem (start-up of every other explain)
        return explanation(config, arch, rule_set, nearest,
                           candidates=candidate_rule_sets() if rule_set is None else ())
    from ..workload import as_problem  # deferred, with the next line: see the comment above
    from ..workload.explain_problem import explain_on_problem  # deferred

    return explain_on_problem(config, arch, as_problem(problem), rule_set, nearest)


@dataclass(frozen=True)
class ShortExplanation:
    """``explain`` of a dispatcher short name: the short name's verdict (as ``check`` gives it), the full names it
    stands for, and the explanation of the kernel CK's runner builds for it (``workload.labels``)."""

    expansion: object  # workload.expand.Expansion
    resolved: Explanation  # of the resolver's kernel

    @property
    def name(self) -> str:
        return self.expansion.short

    @property
    def valid(self) -> bool:
        return self.expansion.valid

    @property
    def member(self) -> bool | None:
        return self.expansion.member

    @property
    def ok(self) -> bool:
        return self.valid and self.member is not False and not self.resolved.verdict.problem_violations

    @property
    def violations(self) -> tuple[tuple[str, str], ...]:
        why = self.expansion.why
        return ((SHORT_CONSTRAINT, why),) if why else ()

    def as_dict(self) -> dict:
        """The resolved kernel's ``explain --format json`` with the short name's verdict in ``name``, ``ok``,
        ``valid``, ``member`` and ``violations``, and ``resolved``, ``how``, ``kernels`` added."""
        e = self.expansion
        d = self.resolved.as_dict()
        d.update(name=e.short, ok=self.ok, valid=self.valid, member=self.member,
                 violations=[{"constraint": c, "message": m} for c, m in self.violations] + d["violations"],
                 resolved=e.resolved.kernel, how=e.resolved.how, kernels=list(e.kernels))
        return d

    @property
    def text(self) -> str:
        e = self.expansion
        n = len(e.kernels)
        lines = [f"{e.short} is a dispatcher short name; in rule set {e.rule_set} for {e.arch} it stands for "
                 f"{n} kernel{'s' * (n != 1)}" + (":" if n else ".")]
        lines.extend(f"  {k}" for k in e.kernels)
        if self.violations:
            lines.extend(f"  - {m} [{c}]" for c, m in self.violations)
        how = "that very kernel" if e.resolved.how == "exact" else "the nearest"
        lines.append(f"CK's runner builds {how} of the {e.resolved_rule_set} rule set: {e.resolved.kernel}")
        return "\n".join(lines) + "\n" + self.resolved.text


def _explain_short(name: str, arch: str, rule_set: RuleSet | None, nearest: int, problem: Problem | str | None
                   ) -> ShortExplanation:
    from ..workload.expand import expand_short  # deferred: the workload layer only when a short name is explained

    e = expand_short(name, arch, rule_set)
    if e.resolved.config is None:
        raise CksolveError(f"short name {shorten(name)}: {e.resolved.why}")
    return ShortExplanation(e, explain_name(e.resolved.kernel, arch, rule_set, nearest, problem))
