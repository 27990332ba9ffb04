"""The library's face: selections, enumeration, counting, checking, explaining, diffing, workloads.

Everything here returns data; :mod:`cksolve.cli` only parses options and prints,
and imports nothing else of the library but this module and emit's. The
registries the CLI's help and choices come from are here too.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple, Sequence

from .arch.facts import ARCHS, ArchFacts, arch_facts, common_facts
from .errors import CksolveError, shorten
from .formats import FORMATS, check_format, csv_text, render, table_text, value_text
from .rulesets import RULE_SETS, RuleSet, candidate_rule_sets, get_rule_set, rule_set_names
from .rulesets.listed import rule_set_file
from .solver import bounded_configs, enumerate_combo, names_combo, solve_combo
from .solver.counting import SpaceTooLarge
from .solver.evaluate import evaluate
from .solver.explain import explanation
from .space.axes import AXES
from .space.breakdown import axis_breakdown
from .space.combo import Combo, kind_of
from .space.naming import NameError_, name_entries, parse_name, parse_names
from .space.pipelines import PIPELINES
from .space.textfile import numbered_lines

__all__ = [
    "CksolveError",
    "Selection",
    "Record",
    "select",
    "load_rule_set",
    "enumerate_records",
    "enumerate_names",
    "count_records",
    "Source",
    "diff_sources",
    "check_names",
    "read_names",
    "ENUMERATE_LIMIT",
    "rule_set_constraints",
    "CheckRecord",
    "evaluate",
    "parse_problem",
    "explain_name",
    "rule_set_descriptions",
    "arch_facts_list",
    "archs_document",
    "applicable_records",
    "coverage_records",
    "minimize",
    "minimize_request",
    "rule_set_file",
    "FORMATS",
    "RULE_SETS",
    "render",
    "check_format",
    "table_text",
    "csv_text",
    "value_text",
    "coverage_table",
]

VARIANTS: tuple[str, ...] = AXES["variant"].domain
DTYPES: tuple[str, ...] = AXES["dtype"].domain
NDIMS: tuple[int, ...] = AXES["ndim"].domain


def split_values(values: Iterable[str] | None, option: str = "value") -> list[str]:
    """Comma-separated, repeatable option values; an empty one (``--arch ''``, ``--arch a,``) is an error.

    Leaving an option out selects everything; giving it empty must not.
    """
    out: list[str] = []
    for v in values or ():
        parts = [p.strip() for p in str(v).split(",")]
        if not all(parts):
            raise CksolveError(f"empty {option} in {shorten(str(v))}")
        out.extend(parts)
    return out


def _choose(option: str, given: Iterable[str] | None, valid: Sequence, convert=str) -> tuple:
    raw = split_values(given, f"--{option}")
    if not raw:
        return tuple(valid)
    chosen = []
    for v in raw:
        try:
            value = convert(v)
        except ValueError:
            value = None
        if value not in valid:
            raise CksolveError(f"unknown {option} {shorten(v)}; valid: {', '.join(str(x) for x in valid)}")
        if value not in chosen:
            chosen.append(value)
    return tuple(x for x in valid if x in chosen)  # canonical order


def _ndim(v: str) -> int:
    digits = v[:-1] if v.lower().endswith("d") else v
    if not (digits.isascii() and digits.isdigit() and len(digits) < 4):  # '٢' is a digit to int(), not to us
        raise ValueError(v)
    return int(digits)


@dataclass(frozen=True)
class Selection:
    archs: tuple[str, ...]
    variants: tuple[str, ...]
    dtypes: tuple[str, ...]
    ndims: tuple[int, ...]

    def combos(self) -> list[Combo]:
        """Combinations in canonical order: arch, variant, dtype, ndim."""
        return [Combo(a, v, d, n) for a in self.archs for v in self.variants for d in self.dtypes for n in self.ndims]


def select(archs=None, variants=None, dtypes=None, ndims=None) -> Selection:
    return Selection(
        _choose("arch", archs, ARCHS),
        _choose("variant", variants, VARIANTS),
        _choose("dtype", dtypes, DTYPES),
        _choose("ndim", ndims, NDIMS, _ndim),
    )


def canonical_order(configs: Iterable) -> list:
    """Configs of one arch in ``enumerate``'s order: variant, dtype, ndim (domain order), then name."""
    return sorted(configs, key=lambda c: (VARIANTS.index(c.variant), DTYPES.index(c.dtype), NDIMS.index(c.ndim),
                                          c.name()))


#: ``--strict`` (or this variable set to 1): what loading would only warn about is an error.
STRICT_ENV = "CKSOLVE_STRICT"
_WARNED: set = set()


def load_rule_set(name: str, builder_configs: str | None = None, strict: bool | None = None) -> RuleSet:
    """The rule set ``name`` (or file); its load warnings go to stderr once each.

    ``strict`` (default: ``CKSOLVE_STRICT``) turns them into errors instead.
    """
    if strict is None:
        strict = os.environ.get(STRICT_ENV, "") not in ("", "0")
    rs = get_rule_set(name, builder_configs=builder_configs, strict=strict)
    for w in rs.warnings:
        if w not in _WARNED:
            _WARNED.add(w)
            sys.stderr.write(f"cksolve: warning: {' '.join(w.split())}\n")
    return rs


class Record(NamedTuple):
    """One enumerated kernel (a named tuple: tens of thousands are made per listing)."""

    rule_set: str
    combo: Combo
    config: object

    @property
    def name(self) -> str:
        return self.config.name()

    def as_dict(self) -> dict:
        d = {"rule_set": self.rule_set, "arch": self.combo.arch, "variant": self.combo.variant,
             "dtype": self.combo.dtype, "ndim": self.combo.ndim, "name": self.name, "kind": self.config.kind}
        for k, v in self.config.as_dict().items():
            d.setdefault(k, v)
        if self.config.kind == "gemm":
            d["block_per_cu"] = self.config.block_per_cu
        return d


#: ``enumerate`` refuses to list more configs than this unless told (``--limit``).
ENUMERATE_LIMIT = 10_000_000


def enumerate_records(rule_set: RuleSet, selection: Selection, limit: int | None = ENUMERATE_LIMIT) -> Iterator[Record]:
    """Every (arch, config) of the rule set valid for the selection, in canonical order.

    The selection is counted first (cheap: components multiply) and refused above
    ``limit``, so a rule-set file that leaves axes free fails with its size
    instead of filling memory.
    """
    _check_limit(rule_set, selection, limit)
    return _records(rule_set, selection)


def enumerate_names(rule_set: RuleSet, selection: Selection, limit: int | None = ENUMERATE_LIMIT) -> Iterator[str]:
    """The kernel names of :func:`enumerate_records`, in the same order, without forming records.

    Listing names is the main job; the solver keeps them with its name order.
    """
    _check_limit(rule_set, selection, limit)
    return _names(rule_set, selection)


def _check_limit(rule_set: RuleSet, selection: Selection, limit: int | None) -> None:
    if limit is None:
        return
    if limit < 0:
        raise CksolveError(f"--limit {limit} must not be negative")
    total = 0
    for combo in selection.combos():  # stops at the first combination past the limit
        total += _count(rule_set, combo)
        if total > limit:
            raise CksolveError(f"{rule_set.name or 'rule set'} has more than {limit:,} configs in this selection "
                               f"({total:,} up to {combo.key}): narrow it (--arch, --variant, --dtype, --ndim, "
                               f"pins in the rule-set file) or raise --limit")


def _listed(lister, rule_set: RuleSet, combo: Combo):
    """``lister(rule_set, combo)``, with a space too large to list as one line naming the combination."""
    try:
        return lister(rule_set, combo)
    except SpaceTooLarge as exc:
        raise CksolveError(f"{rule_set.name or 'rule set'} can be counted but not listed for {combo.key} ({exc}): "
                           f"pin more of those axes") from None


def _records(rule_set: RuleSet, selection: Selection) -> Iterator[Record]:
    label = rule_set.name
    make = partial(tuple.__new__, Record)  # Record(...) runs a Python __new__ per kernel; this runs in C
    for combo in selection.combos():
        yield from map(make, zip(repeat(label), repeat(combo), _listed(enumerate_combo, rule_set, combo)))


def _names(rule_set: RuleSet, selection: Selection) -> Iterator[str]:
    for combo in selection.combos():
        yield from _listed(names_combo, rule_set, combo)


def count_records(rule_set: RuleSet, selection: Selection) -> dict[Combo, int]:
    """Configs per combination, from the solve's factors (no config is formed)."""
    return {combo: _count(rule_set, combo) for combo in selection.combos()}


def _count(rule_set: RuleSet, combo: Combo) -> int:
    try:
        return solve_combo(rule_set, combo).count()
    except SpaceTooLarge as exc:
        raise CksolveError(f"{rule_set.name or 'rule set'} leaves too many axes free to count {combo.key} "
                           f"({exc}): pin more axes or extend a rule set") from None


# --- rule-sets --show ---------------------------------------------------------------


@dataclass(frozen=True)
class ConstraintSummary:
    """One constraint of a rule set as ``rule-sets --show`` lists it, over the combinations it appears in."""

    name: str
    scope: tuple[str, ...]
    form: str  # "table", "forbid table" or "check"
    applies_to: str
    rows: tuple[int, int] | None  # fewest and most rows over the combinations (tables)
    combos: int
    source: str


def rule_set_constraints(rule_set: RuleSet, selection: Selection) -> list[ConstraintSummary]:
    """The rule set's own constraints (not the arch's), merged by name, scope and form across the selection."""
    seen: dict[tuple, list] = {}
    for combo in selection.combos():
        for c in rule_set.constraints(combo):
            form = "check" if c.form != "table" else ("forbid table" if c.forbid else "table")
            entry = seen.setdefault((c.name, c.scope, form, c.applies_to), [[], 0, c.source])
            if form != "check":
                entry[0].append(len(c.rows))
            entry[1] += 1
    return [ConstraintSummary(name, scope, form, kind, (min(rows), max(rows)) if rows else None, combos, source)
            for (name, scope, form, kind), (rows, combos, source) in seen.items()]


# --- check and explain ------------------------------------------------------------------


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
    number of names. A line that is not a name is a ``parse`` violation, not an error.
    """
    for _, name in name_entries(numbered_lines(source, "names file")):
        try:
            verdict = evaluate(parse_name(name), arch, rule_set)
        except NameError_ as exc:
            yield CheckRecord(name, arch, False, (("parse", str(exc)),), None if rule_set is None else False)
            continue
        yield CheckRecord(name, arch, verdict.valid,
                          tuple((v.constraint, v.message) for v in verdict.violations + verdict.rule_violations),
                          verdict.member)


def explain_name(name: str, arch: str, rule_set: RuleSet | None = None, nearest: int = 3,
                 problem: str | None = None) -> tuple[bool, str]:
    """(ok, words): ``ok`` as ``check`` says it (valid, and a member of ``rule_set`` if one is given)
    and, with ``problem`` (a FIELD=VALUE spec), able to run that problem."""
    if nearest < 0:
        raise CksolveError(f"--nearest {nearest} must not be negative")
    config = parse_name(name)
    if problem is None:  # the workload layer is loaded only for a problem (start-up of every other explain)
        result = explanation(config, arch, rule_set, nearest,
                             candidates=candidate_rule_sets() if rule_set is None else ())
    else:
        from .workload import parse_problem
        from .workload.explain import explain_on_problem

        result = explain_on_problem(config, arch, parse_problem(problem), rule_set, nearest)
    v = result.verdict
    return v.valid and v.member is not False and not v.problem_violations, result.text


def rule_set_descriptions() -> dict[str, str]:
    """Every built-in rule set's one line, without loading any of them."""
    return {name: desc for name, (_, _, desc) in RULE_SETS.items()}


# --- workloads ----------------------------------------------------------------------
# The workload layer is imported by these functions, not above: it adds ~15 ms to the
# start-up of every command, and only the workload commands need it.


def parse_problem(spec: str):
    """A problem from its FIELD=VALUE spec (``workload.Problem``); ProblemError names the bad field."""
    from .workload import parse_problem as parse

    return parse(spec)


def applicable_records(problem: str, rule_set: RuleSet, arch: str, dtypes: Sequence[str]) -> list[Record]:
    """The kernels of the rule set valid for ``arch`` that can run the problem (a FIELD=VALUE spec)."""
    from .workload import Workspace

    p = parse_problem(problem)
    ws = Workspace(rule_set)
    return [Record(rule_set.name, combo, c) for d in dtypes for combo, c in ws.decide(p, arch, d)[0]]


def coverage_records(problems: Path, rule_set: RuleSet, arch: str, dtypes: Sequence[str]) -> list:
    """``coverage`` of the workload file's problems (``workload.CoverageRecord`` each)."""
    from .workload import coverage, read_problems

    return coverage(read_problems(problems), rule_set, arch, dtypes)


def coverage_stream(problems: Path, rule_set: RuleSet, arch: str, dtypes: Sequence[str], with_kernels: bool = False,
                    with_rejected: bool = True):
    """``coverage`` of the workload file's problems as an iterator of records (``workload.iter_coverage``):
    every problem is decided before the first record comes out, so errors come before any output."""
    from .workload import read_problems
    from .workload.coverage import iter_coverage

    return iter_coverage(read_problems(problems), rule_set, arch, dtypes, with_kernels, with_rejected=with_rejected)


def write_coverage(records, fmt: str, out, with_kernels: bool = False) -> int:
    """Write coverage records to ``out`` record by record (``workload.writers``); the table through
    :func:`table_text`."""
    from .workload.writers import write_coverage as write

    return write(records, fmt, out, with_kernels, table=table_text)


def coverage_table(records, with_kernels: bool = False):
    """(header, rows, summary lines) of ``coverage``'s table report."""
    from .workload.report import coverage_table as table

    return table(records, with_kernels)


def minimize_request(keep: float = 0.9, per_problem: int = 1, max_kernels: int | None = None,
                     time_limit: float | None = None):
    """What ``minimize`` is asked for (``workload.minimize.Request``); a value out of range is a CksolveError."""
    from .workload.minimize import Request

    return Request(keep, per_problem, max_kernels, time_limit)


def minimize(problems: Path, rule_set: RuleSet, arch: str, dtypes: Sequence[str], request=None, *,
             perf: Path | None = None):
    """``minimize``'s plan (``workload.plan.Plan``) for ``request`` (:func:`minimize_request`; default: its
    defaults): analytic scores, or the measured ones in ``perf``."""
    from .workload import read_problems
    from .workload.perf import read_perf
    from .workload.plan import known_kernels, plan

    request = minimize_request() if request is None else request
    workload = read_problems(problems)
    measured = read_perf(perf, known_kernels(rule_set, workload, arch, dtypes)) if perf is not None else None
    return plan(workload, rule_set, arch, dtypes, request, measured, str(perf) if perf is not None else "analytic")


# --- ML features and audit ------------------------------------------------------------
# Imported by these functions for the same reason as the workload layer: only their
# commands need them.

#: ``features``' output formats and semantics (``cksolve.features`` defines both).
FEATURE_FORMATS = ("csv", "jsonl")
FEATURE_SEMANTICS = ("ck", "exact")
#: ``audit``'s reports, and the name that audits every built-in set with CK's hierarchy.
AUDIT_FORMATS = ("text", "json")
AUDIT_ALL = "all"


def gemm_variants(variants: Sequence[str]) -> list[str]:
    """The variants whose kernels have a GEMM pipeline (depthwise ones do not)."""
    return [v for v in variants if kind_of(v) == "gemm"]


def feature_table(rule_set: RuleSet, selection: Selection, problems: Path | None, semantics: str):
    """``features``: CK's ML-selector rows (``features.FeatureTable``), per kernel or, with a problem
    file, per (problem, applicable kernel) pair."""
    from .features import features
    from .workload import read_problems

    check_format(semantics, FEATURE_SEMANTICS, "semantics")
    return features(rule_set, selection.combos(), read_problems(problems) if problems is not None else None, semantics)


def feature_text(table, fmt: str) -> str:
    from .features.render import render as render_rows

    return render_rows(table.columns, table.rows, check_format(fmt, FEATURE_FORMATS))


def pipeline_variants(selection: Selection) -> list:
    """The valid (pipeline, scheduler, double LDS buffer, split image) combinations of the selection's
    variants, GEMM ones only (select them with :func:`gemm_variants`), derived from the constraints
    (``features.PipelineVariant`` each)."""
    from .features import pipeline_variants as derive

    variants = gemm_variants(selection.variants)
    other = [v for v in selection.variants if v not in variants]
    if other:  # as features does: an explicit depthwise variant is a mistake, not silently dropped
        raise CksolveError(f"{other[0]} kernels have no GEMM pipeline; choose {', '.join(gemm_variants(VARIANTS))}")
    return derive(selection.archs, variants, selection.dtypes, selection.ndims)


def audit(spec: str, selection: Selection, against: Sequence[str] = (), builder_configs: str | None = None,
          fail_on: Sequence[str] = ()):
    """``audit``: (reports, containment checks, the ``--fail-on`` categories with findings)."""
    from .audit import categories, run
    from .audit.report import findings

    gates = categories(list(fail_on))
    reports, checks = run(spec, selection.combos(), against, builder_configs)
    totals = findings(reports, checks)
    return reports, checks, [g for g in gates if totals[g]]


def audit_text(reports, checks, fmt: str, spec: str) -> str:
    from .audit.report import as_json, as_text

    if check_format(fmt, AUDIT_FORMATS) == "json":
        return as_json(reports, checks, AUDIT_ALL if spec == AUDIT_ALL else None)
    return as_text(reports, checks)


# --- architectures -------------------------------------------------------------------


def arch_facts_list() -> list[ArchFacts]:
    """Every supported architecture's facts, in the facts file's order."""
    return [arch_facts(a) for a in ARCHS]


def archs_document() -> dict:
    """``archs --format json``: per-arch facts, and the facts shared by all (LDS capacity per pipeline)."""
    archs = [{"arch": f.name, "family": f.family, "warp_size": f.warp_size,
              "wave_splits": [list(w) for w in f.wave_splits],
              "warp_tiles": {k: [list(t) for t in v] for k, v in f.warp_tiles.items()}} for f in arch_facts_list()]
    return {"archs": archs, "lds_capacity": {name: p.lds_capacity for name, p in PIPELINES.items()},
            "element_size": dict(common_facts().element_size)}


# --- diff ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One side of a diff: a rule set, or a file of kernel names."""

    label: str
    rule_set: RuleSet | None = None
    names: tuple | None = None

    def configs(self, combo: Combo) -> dict[str, object]:
        if self.rule_set is not None:
            return {c.name(): c for c in bounded_configs(self.rule_set, combo)}
        return {n: c for n, c in self.names
                if c.variant == combo.variant and c.dtype == combo.dtype and c.ndim == combo.ndim}


def open_source(spec: str, builder_configs: str | None = None) -> Source:
    """A rule-set name, a rule-set file (.toml), or a file of kernel names."""
    path = Path(spec)
    if spec in rule_set_names() or path.suffix == ".toml":
        rs = load_rule_set(spec, builder_configs)
        return Source(rs.name or spec, rule_set=rs)
    if not path.is_file():
        raise CksolveError(f"{shorten(spec)} is neither a rule set ({', '.join(rule_set_names())}) nor a readable file of names")
    return Source(path.name, names=tuple(read_names(path)))


def read_names(path: Path | str) -> list[tuple[str, object]]:
    """(name, config) for every kernel named in the file at ``path`` (``-``: stdin)."""
    where = "stdin" if str(path) == "-" else shorten(str(path), quote=False)
    return [(c.name(), c) for c in parse_names(numbered_lines(path, "names file"), where)]


@dataclass(frozen=True)
class ComboDiff:
    combo: Combo
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    common: int
    why_a: tuple[tuple[str, object, int, bool], ...]  # see axis_breakdown
    why_b: tuple[tuple[str, object, int, bool], ...]


def diff_sources(a: Source, b: Source, selection: Selection) -> list[ComboDiff]:
    out = []
    for combo in selection.combos():
        ca, cb = a.configs(combo), b.configs(combo)
        only_a = {n: c for n, c in ca.items() if n not in cb}
        only_b = {n: c for n, c in cb.items() if n not in ca}
        if not (ca or cb):
            continue
        out.append(ComboDiff(combo, tuple(sorted(only_a)), tuple(sorted(only_b)), len(ca) - len(only_a),
                             axis_breakdown(only_a, cb), axis_breakdown(only_b, ca)))
    return out
