"""``diff``: two rule sets, rule-set files or files of names, per combination, with the axes that explain it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from contextlib import nullcontext

from ..arch.versions import CkVersion, resolve, using
from ..errors import CksolveError, shorten
from ..progress import phase
from ..rulesets import RuleSet, rule_set_names
from ..selection import Selection
from ..solver import bounded_configs
from ..solver.questions.evaluate import UNEVALUABLE
from ..solver.model import build_model
from ..space.breakdown import axis_breakdown
from ..space.combo import Combo
from ..space.constraints import Check, scope_values
from ..space.naming import parse_names
from ..space.textfile import numbered_lines
from ..space.namesfile import sectioned_entries
from .checking import section_archs
from .listing import load_rule_set

__all__ = ["Source", "open_source", "read_names", "read_sectioned_names", "ComboDiff", "Reason", "diff_sources"]


@dataclass(frozen=True)
class Source:
    """One side of a diff: a rule set (at a CK version, or the active one), or a file of kernel names."""

    label: str
    rule_set: RuleSet | None = None
    names: tuple | None = None
    version: CkVersion | None = None  # RULE_SET@REF: the CK version this side is answered at

    def at_version(self):
        """A block in which this side's CK version answers (the active one when it names none)."""
        return using(self.version) if self.version is not None else nullcontext()

    def configs(self, combo: Combo) -> dict[str, object]:
        if self.rule_set is not None:
            if self.version is not None and combo.arch not in self.version.archs:  # --arch-specs knows it, REF not
                raise CksolveError(f"{self.label}: CK {self.version.key} does not know arch {combo.arch!r} "
                                   f"(it knows {', '.join(self.version.archs)})")
            with self.at_version():
                return {c.name(): c for c in bounded_configs(self.rule_set, combo)}
        return {n: c for n, c in self.names
                if c.variant == combo.variant and c.dtype == combo.dtype and c.ndim == combo.ndim}

    def verdicts(self, config, combo: Combo) -> dict[str, tuple[bool, str]]:
        """Per constraint of this side's model for the combo: (holds, what it says) on ``config``."""
        with self.at_version():
            model = build_model(combo, self.rule_set)
            out = {}
            for c in model.constraints:
                values = scope_values(config, c.scope)
                try:
                    ok = c.holds(values)
                    out[c.name] = (ok, _holds_text(c, values) if ok else c.explain(values, combo._asdict()))
                except UNEVALUABLE as exc:
                    out[c.name] = (False, f"cannot evaluate: {exc}")
            return out


def _holds_text(c, values) -> str:
    """What a constraint that holds says: a check's numbers when it has them (``65536 bytes within the
    81920 bytes limit``), else that it holds."""
    if isinstance(c, Check) and c.details is not None:
        d = c.details(*values, *c.params)
        if "bytes" in d and "limit" in d:
            return f"{d['bytes']} bytes within the {d['limit']} bytes limit"
        return "holds (" + ", ".join(f"{k}={v}" for k, v in d.items()) + ")"
    return "holds"


def _split_ref(spec: str) -> tuple[str, CkVersion | None]:
    """``RULE_SET@REF`` -> (RULE_SET, the version REF names); a spec without ``@`` (or a file whose name has
    one) is taken whole."""
    if "@" not in spec or Path(spec).exists():
        return spec, None
    name, ref = spec.rsplit("@", 1)
    if not name:
        raise CksolveError(f"no rule set before '@' in {shorten(spec)}")
    if not ref:
        raise CksolveError(f"no CK version after '@' in {shorten(spec)}")
    return name, resolve(ref)


def open_source(spec: str, builder_configs: str | None = None, strict: bool = False) -> Source:
    """A rule-set name, a rule-set file (.toml), or a file of kernel names; ``RULE_SET@REF`` answers a rule set
    at CK version REF (a commit prefix or alias)."""
    spec, version = _split_ref(spec)
    path = Path(spec)
    if spec in rule_set_names() or path.suffix == ".toml":
        rs = load_rule_set(spec, builder_configs, strict)
        label = rs.name or spec
        return Source(f"{label}@{version.key}" if version else label, rule_set=rs, version=version)
    if version is not None and not path.is_file():
        raise CksolveError(f"{shorten(spec)} is not a rule set ({', '.join(rule_set_names())}); "
                           f"a CK version applies to a rule set")
    if version is not None:
        raise CksolveError(f"{shorten(spec)}@{version.key}: a CK version applies to a rule set, not a file of names")
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
class Reason:
    """Why a name is in one side only: a constraint whose verdict differs, and what it says on each side."""

    constraint: str
    message_a: str
    message_b: str


@dataclass(frozen=True)
class ComboDiff:
    combo: Combo
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    common: int
    why_a: tuple[tuple[str, object, int, bool], ...]  # see axis_breakdown
    why_b: tuple[tuple[str, object, int, bool], ...]
    reasons: dict | None = None  # name -> (Reason, ...) when a side names a CK version (RULE_SET@REF)


def _reasons(config, combo: Combo, a: Source, b: Source) -> tuple[Reason, ...]:
    """The constraints whose verdict on ``config`` differs between the sides, with both messages."""
    va, vb = a.verdicts(config, combo), b.verdicts(config, combo)
    out = []
    for name in dict.fromkeys((*va, *vb)):
        ha, ta = va.get(name, (True, "not a constraint here"))
        hb, tb = vb.get(name, (True, "not a constraint here"))
        if ha != hb:
            out.append(Reason(name, ta, tb))
    return tuple(out)


def diff_sources(a: Source, b: Source, selection: Selection) -> list[ComboDiff]:
    """Per combination: the names in one side only, and why. Sides at CK versions (``RULE_SET@REF``) also
    say, per name, which constraint's verdict differs and its message under each side."""
    versioned = (a.version is not None or b.version is not None) and a.rule_set is not None and b.rule_set is not None
    out = []
    combos = selection.combos()
    for i, combo in enumerate(combos, 1):
        phase(f"comparing {combo.arch} {combo.variant} {combo.dtype} {combo.ndim}d: combination", i, len(combos))
        ca, cb = a.configs(combo), b.configs(combo)
        only_a = {n: c for n, c in ca.items() if n not in cb}
        only_b = {n: c for n, c in cb.items() if n not in ca}
        if not (ca or cb):
            continue
        reasons = {n: _reasons(c, combo, a, b) for n, c in (*only_a.items(), *only_b.items())} if versioned else None
        out.append(ComboDiff(combo, tuple(sorted(only_a)), tuple(sorted(only_b)), len(ca) - len(only_a),
                             axis_breakdown(only_a, cb), axis_breakdown(only_b, ca), reasons))
    return out
