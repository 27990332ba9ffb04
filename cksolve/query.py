"""The library's face: selections, enumeration, counting, checking, explaining, diffing, workloads.

Everything here returns data; :mod:`cksolve.cli` only parses options and prints,
and imports nothing else of the library but this module and emit's. The
registries the CLI's help and choices come from are here too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple, Sequence

from .arch.facts import ARCHS, ArchFacts, arch_facts, common_facts
from .errors import CksolveError
from .formats import FORMATS, check_format, csv_text, render, table_text
from .rulesets import RULE_SETS, RuleSet, candidate_rule_sets, get_rule_set, rule_set_names
from .rulesets.listed import rule_set_file
from .solver import enumerate_combo, solve_combo
from .solver.evaluate import evaluate
from .solver.explain import explanation
from .space.axes import AXES
from .space.combo import Combo
from .space.naming import NameError_, parse_name, parse_names
from .space.pipelines import PIPELINES

__all__ = [
    "CksolveError",
    "Selection",
    "Record",
    "select",
    "load_rule_set",
    "enumerate_records",
    "count_records",
    "Source",
    "diff_sources",
    "CheckRecord",
    "check_names",
    "evaluate",
    "parse_problem",
    "explain_name",
    "rule_set_descriptions",
    "arch_facts_list",
    "archs_document",
    "applicable_records",
    "coverage_records",
    "minimize",
    "rule_set_file",
    "FORMATS",
    "RULE_SETS",
    "render",
    "check_format",
    "table_text",
    "csv_text",
    "coverage_table",
]

VARIANTS: tuple[str, ...] = AXES["variant"].domain
DTYPES: tuple[str, ...] = AXES["dtype"].domain
NDIMS: tuple[int, ...] = AXES["ndim"].domain


def split_values(values: Iterable[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or ():
        out.extend(p.strip() for p in str(v).split(",") if p.strip())
    return out


def _choose(option: str, given: Iterable[str] | None, valid: Sequence, convert=str) -> tuple:
    raw = split_values(given)
    if not raw:
        return tuple(valid)
    chosen = []
    for v in raw:
        try:
            value = convert(v)
        except ValueError:
            value = None
        if value not in valid:
            raise CksolveError(f"unknown {option} {v!r}; valid: {', '.join(str(x) for x in valid)}")
        if value not in chosen:
            chosen.append(value)
    return tuple(x for x in valid if x in chosen)  # canonical order


def _ndim(v: str) -> int:
    return int(v[:-1]) if v.lower().endswith("d") else int(v)


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


def load_rule_set(name: str, builder_configs: str | None = None) -> RuleSet:
    return get_rule_set(name, builder_configs=builder_configs)


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


def enumerate_records(rule_set: RuleSet, selection: Selection) -> Iterator[Record]:
    """Every (arch, config) of the rule set valid for the selection, in canonical order."""
    label = rule_set.name
    for combo in selection.combos():
        for c in enumerate_combo(rule_set, combo):
            yield Record(label, combo, c)


def count_records(rule_set: RuleSet, selection: Selection) -> dict[Combo, int]:
    return {combo: solve_combo(rule_set, combo).count() for combo in selection.combos()}


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


def check_names(lines: Iterable[str], arch: str, rule_set: RuleSet | None = None) -> list[CheckRecord]:
    """One record per name of ``lines`` (blank lines and ``#`` comments skipped), in order."""
    out = []
    for raw in lines:
        name = raw.strip()
        if not name or name.startswith("#"):
            continue
        try:
            verdict = evaluate(parse_name(name), arch, rule_set)
        except NameError_ as exc:
            out.append(CheckRecord(name, arch, False, (("parse", str(exc)),), None if rule_set is None else False))
            continue
        out.append(CheckRecord(name, arch, verdict.valid,
                               tuple((v.constraint, v.message) for v in verdict.violations + verdict.rule_violations),
                               verdict.member))
    return out


def explain_name(name: str, arch: str, rule_set: RuleSet | None = None, nearest: int = 3,
                 problem: str | None = None) -> tuple[bool, str]:
    """(ok, words): ``ok`` as ``check`` says it (valid, and a member of ``rule_set`` if one is given)
    and, with ``problem`` (a FIELD=VALUE spec), able to run that problem."""
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


def coverage_table(records, with_kernels: bool = False):
    """(header, rows, summary lines) of ``coverage``'s table report."""
    from .workload.report import coverage_table as table

    return table(records, with_kernels)


def minimize(problems: Path, rule_set: RuleSet, arch: str, dtypes: Sequence[str], *, keep: float,
             per_problem: int = 1, max_kernels: int | None = None, time_limit: float | None = None,
             perf: Path | None = None):
    """``minimize``'s plan (``workload.plan.Plan``): analytic scores, or the measured ones in ``perf``
    (see ``workload.minimize.Request`` for the other arguments)."""
    from .workload import read_problems
    from .workload.minimize import Request
    from .workload.perf import read_perf
    from .workload.plan import known_kernels, plan

    request = Request(keep, per_problem, max_kernels, time_limit)
    workload = read_problems(problems)
    measured = read_perf(perf, known_kernels(rule_set, workload, arch, dtypes)) if perf is not None else None
    return plan(workload, rule_set, arch, dtypes, request, measured, str(perf) if perf is not None else "analytic")


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
            return {c.name(): c for c in solve_combo(self.rule_set, combo).configs()}
        return {n: c for n, c in self.names
                if c.variant == combo.variant and c.dtype == combo.dtype and c.ndim == combo.ndim}


def open_source(spec: str, builder_configs: str | None = None) -> Source:
    """A rule-set name, a rule-set file (.toml), or a file of kernel names."""
    path = Path(spec)
    if spec in rule_set_names() or path.suffix == ".toml":
        rs = load_rule_set(spec, builder_configs)
        return Source(rs.name or spec, rule_set=rs)
    if not path.is_file():
        raise CksolveError(f"{spec!r} is neither a rule set ({', '.join(rule_set_names())}) nor a readable file of names")
    return Source(path.name, names=tuple(read_names(path)))


def read_names(path: Path) -> list[tuple[str, object]]:
    """(name, config) for every kernel named in the file at ``path``."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CksolveError(f"cannot read {path}: {exc.strerror}") from None
    return [(c.name(), c) for c in parse_names(lines, str(path))]


@dataclass(frozen=True)
class ComboDiff:
    combo: Combo
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    common: int
    why_a: tuple[tuple[str, object, int, bool], ...]  # see _breakdown
    why_b: tuple[tuple[str, object, int, bool], ...]


#: Axes whose values name a kernel feature; a diff is broken down along them even
#: when both sides use the same values (e.g. a subset that keeps every pipeline).
FEATURE_AXES = ("pipeline", "scheduler", "specialization", "groups_to_merge", "two_stage", "explicit_gemm",
                "split_image", "streamk", "double_smem_buffer")


def _breakdown(only: dict, other: dict) -> tuple[tuple[str, object, int, bool], ...]:
    """(axis, value, count, exclusive) for the configs only on one side.

    First the axis values the other side never uses (exclusive), most frequent
    first; then the feature axes' values that split the one-sided configs.
    """
    if not only:
        return ()
    present: dict[str, set] = {}
    for c in other.values():
        for k, v in c.as_dict().items():
            present.setdefault(k, set()).add(v)
    exclusive: Counter = Counter()
    features: Counter = Counter()
    for c in only.values():
        for k, v in c.as_dict().items():
            if v not in present.get(k, ()):
                exclusive[(k, v)] += 1
            elif k in FEATURE_AXES:
                features[(k, v)] += 1
    # A feature value every one-sided config shares says nothing about the difference.
    features = Counter({kv: n for kv, n in features.items() if n < len(only)})

    def ranked(counts):
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0], repr(kv[0][1])))

    return tuple((k, v, n, True) for (k, v), n in ranked(exclusive)) + \
        tuple((k, v, n, False) for (k, v), n in ranked(features))


def diff_sources(a: Source, b: Source, selection: Selection) -> list[ComboDiff]:
    out = []
    for combo in selection.combos():
        ca, cb = a.configs(combo), b.configs(combo)
        only_a = {n: c for n, c in ca.items() if n not in cb}
        only_b = {n: c for n, c in cb.items() if n not in ca}
        if not (ca or cb):
            continue
        out.append(ComboDiff(combo, tuple(sorted(only_a)), tuple(sorted(only_b)), len(ca) - len(only_a),
                             _breakdown(only_a, cb), _breakdown(only_b, ca)))
    return out
