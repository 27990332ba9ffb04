"""``diff``: two rule sets, rule-set files or files of names, per combination, with the axes that explain it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import CksolveError, shorten
from ..rulesets import RuleSet, rule_set_names
from ..selection import Selection
from ..solver import bounded_configs
from ..space.breakdown import axis_breakdown
from ..space.combo import Combo
from ..space.naming import parse_names
from ..space.textfile import numbered_lines
from ..space.namesfile import sectioned_entries
from .checking import section_archs
from .listing import load_rule_set

__all__ = ["Source", "open_source", "read_names", "read_sectioned_names", "ComboDiff", "diff_sources"]


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


def open_source(spec: str, builder_configs: str | None = None, strict: bool = False) -> Source:
    """A rule-set name, a rule-set file (.toml), or a file of kernel names."""
    path = Path(spec)
    if spec in rule_set_names() or path.suffix == ".toml":
        rs = load_rule_set(spec, builder_configs, strict)
        return Source(rs.name or spec, rule_set=rs)
    if not path.is_file():
        raise CksolveError(f"{shorten(spec)} is neither a rule set ({', '.join(rule_set_names())}) nor a readable file of names")
    return Source(path.name, names=tuple(read_names(path)))


def read_names(path: Path | str) -> list[tuple[str, object]]:
    """(name, config) for every kernel named in the file at ``path`` (``-``: stdin)."""
    where = "stdin" if str(path) == "-" else shorten(str(path), quote=False)
    return [(c.name(), c) for c in parse_names(numbered_lines(path, "names file"), where)]


def read_sectioned_names(path: Path | str) -> list[tuple[str | None, object]]:
    """(section arch or None, config) for every kernel named in the file at ``path`` (``-``: stdin), each
    name spelled as CK spells it; a ``# arch: A`` line makes A the arch of the names after it (checked)."""
    where = "stdin" if str(path) == "-" else shorten(str(path), quote=False)
    out = []
    checked: set[str] = set()  # each section's arch once, not once per name
    for no, arch, name in sectioned_entries(numbered_lines(path, "names file")):
        if arch is not None and arch not in checked:
            section_archs([(no, arch, name)], None, where).__next__()  # a known arch, or one error line
            checked.add(arch)
        out.append((arch, parse_names([(no, name)], where)[0]))
    return out


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
