"""CK versions as data: which CK commit's arch facts and versioned rules answer.

A bundled version is one data file beside this module, ``ck_<commit8>.toml``: its commit, date,
aliases, the variant of each versioned rule (``lds_rule``), and its arch facts -- the first
version's are ``facts.toml``, a later one is a delta ``based_on`` an earlier one, in the shape
of CK's own ``dispatcher/codegen/arch_specs.json`` (``family``, ``warp_size``, ``warp_configs``,
``warp_tile_combos``, ``lds_capacity_kb``, ``pipeline_lds_budget``). Adding a version is one file.
A CK checkout's ``arch_specs.json`` read in place of the bundled facts is a version too
(:mod:`.specs_file`).

One version is *active* per process (a command resolves ``--ck``/``--arch-specs`` once and
activates it); the arch layer reads it and every memo of the arch layer keys on it, so nothing
above ``arch/`` knows which version answers. :func:`using` activates one for a block (``diff``
between versions).
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterator, Mapping

from ..errors import CksolveError, shorten
from ..space.datafile import load
from ..space.memos import MEMOS
from ..space.pipelines import PIPELINES
from .target_id import ARCH_NAME_HELP, is_arch_name

__all__ = ["CkVersion", "UnknownVersion", "LDS_RULES", "LDS_BASES", "NEW_ARCH_KEYS", "bundled", "newest", "resolve",
           "active", "activate", "using", "base_facts", "base_extra", "bundled_extra", "arch_record", "DEVELOP", "listing"]

#: variants of the LDS check: one per-pipeline byte limit for every arch (June), or per-arch budgets (develop)
LDS_RULES = ("pipeline", "arch")
#: the alias of the newest bundled version
DEVELOP = "develop"
_FILE = re.compile(r"ck_([0-9a-f]{8})\.toml")


class UnknownVersion(CksolveError):
    pass


@dataclass(frozen=True, eq=False)  # one object per version: memos key on its identity
class CkVersion:
    """One CK version: a bundled facts file or delta, or a user's ``arch_specs.json``."""

    key: str                       # a bundled version's commit prefix; a file's path
    commit: str                    # full commit ("" when a file does not say)
    date: str
    aliases: tuple[str, ...]
    description: str
    lds_rule: str                  # one of LDS_RULES
    archs: Mapping[str, Mapping]   # arch -> facts (family, warp_size, wave_splits, warp_tiles, lds_capacity, ...)
    lds_budget: Mapping[str, tuple[str, float]]  # pipeline -> ("bytes", n) | ("fraction", f) | ("absolute_kb", n)
    lds_aliases: Mapping[str, str]
    source: str = ""               # "" bundled; the path of a CK arch_specs.json
    trait_unsupported: frozenset | None = None  # (pipeline, epilogue, scheduler) the arch filter refuses; None:
    #                                             pipelines.toml's filter_intrawave_only pipelines with interwave

    @property
    def label(self) -> str:
        """How outputs name the version: ``CK 05fcb0f1 (2026-10-01)``, ``CK arch_specs.json at PATH``."""
        if self.source:
            return f"CK arch_specs.json at {self.source}"
        return f"CK {self.key} ({self.date})"

    def budget(self, arch: str, pipeline: str, double_smem_buffer: bool = False) -> int:
        """The LDS budget (bytes) of A+B tiles for ``pipeline`` on ``arch`` (KeyError: a pipeline without one).

        ``pipeline`` rule: the pipeline's limit, whatever the arch and the buffering. ``arch`` rule:
        the arch's capacity times the pipeline's fraction (an alias shares its target's), and with
        ``double_smem_buffer`` at most half the capacity (a pipeline already budgeted for two
        buffers is not halved twice: the min). An arch the version gives no LDS size gets the smallest
        the version knows, as CK hands an unknown arch its smallest budget.
        """
        table = self.lds_budget
        key = self.lds_aliases.get(pipeline, pipeline)
        basis, value = table[key] if key in table else table["default"]
        if self.lds_rule == "pipeline":
            return int(value)
        capacity = self.lds_capacity(arch)
        out = int(capacity * value) if basis == "fraction" else int(value * 1024)
        return min(out, capacity // 2) if double_smem_buffer else out


    def lds_capacity(self, arch: str) -> int:
        """Bytes of LDS of ``arch``: its own, else the smallest of the version's archs (CK's rule for an arch
        its table does not know)."""
        own = self.archs[arch]["lds_capacity"] if arch in self.archs else None
        if own is not None:
            return own
        return min(a["lds_capacity"] for a in self.archs.values() if a["lds_capacity"] is not None)


# --- the bundled versions -------------------------------------------------------------------

_TRIPLES = [[int]]
_FACTS_SCHEMA = {"*": {"family": str, "warp_size": int, "wave_splits": _TRIPLES, "warp_tiles": {"*": _TRIPLES},
                       "hw_profile?": {"*": (int, float)}, "streamk_bwd_weight?": bool,
                       "async_copy?": bool}}
_ARCH_DELTA = {"family?": str, "warp_size?": int, "warp_configs?": _TRIPLES, "warp_tile_combos?": {"*": _TRIPLES},
               "lds_capacity_kb?": int,
               # the facts no CK version states (_EXTRA_FACTS), for an arch the delta introduces
               "hw_profile?": {"*": (int, float)}, "streamk_bwd_weight?": bool, "async_copy?": bool}
_VERSION_SCHEMA = {
    "version": {"commit": str, "date": str, "aliases": [str], "lds_rule": str, "description": str, "based_on?": str},
    "pipeline_lds_budget?": {"*": {"basis": str, "value": (int, float)}},
    "pipeline_lds_budget_aliases?": {"*": str},
    "architectures?": {"*": _ARCH_DELTA},
    "unsupported_trait_combos?": {"combinations": [[str]]},
}
#: the bases of a per-arch LDS budget (CK's ``pipeline_lds_budget``): a fraction of the arch's LDS, or KB
LDS_BASES = ("fraction", "absolute_kb")
#: the keys (CK's spelling) an arch must give where no earlier facts supply them (a new arch in a delta, any
#: arch of an arch_specs.json)
NEW_ARCH_KEYS = ("family", "warp_size", "warp_configs", "warp_tile_combos")
#: facts no CK version states, kept from ``facts.toml`` for the archs it knows
_EXTRA_FACTS = ("hw_profile", "streamk_bwd_weight", "async_copy")


@MEMOS.cached("arch.versions.base_facts", maxsize=1)
def base_facts() -> dict:
    """``facts.toml``: the first version's arch facts and the facts no CK version changes (profiles, flags)."""
    return load(__package__, "facts.toml", _FACTS_SCHEMA)


def base_extra(arch: str) -> dict:
    """The facts of ``arch`` no CK version states (CK hardware profile, run-time path flags): ``facts.toml``'s, or none."""
    a = base_facts().get(arch, {})
    return {k: a[k] for k in _EXTRA_FACTS if k in a}


def bundled_extra(arch: str) -> dict:
    """The facts of ``arch`` no CK version states, from the newest bundled version that knows the arch
    (``facts.toml``'s, or what the delta introducing it gives); none for an arch no bundled version knows."""
    for version in reversed(bundled()):
        if arch in version.archs:
            return {k: v for k, v in version.archs[arch].items() if k in _EXTRA_FACTS}
    return {}


def arch_record(family: str, warp_size: int, wave_splits, warp_tiles, lds_capacity: int | None, extra=None) -> dict:
    """One arch's facts as a version holds them (cksolve's spelling; tuples, so they can be shared)."""
    return {**(extra or {}), "family": family, "warp_size": warp_size,
            "wave_splits": tuple(tuple(w) for w in wave_splits),
            "warp_tiles": MappingProxyType({k: tuple(tuple(t) for t in v) for k, v in warp_tiles.items()}),
            "lds_capacity": lds_capacity}


def _base_archs() -> dict[str, dict]:
    out = {}
    for arch, a in base_facts().items():
        out[arch] = arch_record(a["family"], a["warp_size"], a["wave_splits"], a["warp_tiles"], None, base_extra(arch))
    return out


def apply_delta(archs: dict[str, dict], delta: Mapping, where: str) -> dict[str, dict]:
    """``archs`` with a delta's per-arch facts (CK's spelling) applied: a key replaces the base's value, a
    ``warp_tile_combos`` table replaces the dtype keys it names; a new arch must give every fact, and may give
    the facts no CK version states (``hw_profile``, ``streamk_bwd_weight``, ``async_copy``), which only a new
    arch may give (an arch already known keeps ``facts.toml``'s)."""
    out = dict(archs)
    for arch, d in delta.items():
        base = out.get(arch)
        extras = {k: d[k] for k in _EXTRA_FACTS if k in d}
        if base is None:
            if not is_arch_name(arch):
                raise CksolveError(f"{where}: [architectures] {shorten(arch, 60)} is not an arch name: expected "
                                   f"{ARCH_NAME_HELP}")
            missing = [k for k in NEW_ARCH_KEYS if k not in d]
            if missing:
                raise CksolveError(f"{where}: [architectures.{arch}] is a new arch and must give {', '.join(missing)}")
            base = arch_record(d["family"], d["warp_size"], d["warp_configs"], {}, None, extras)
        elif extras:
            raise CksolveError(f"{where}: [architectures.{arch}] gives {', '.join(extras)}, which only an arch the "
                               f"version introduces may give ({arch} has them from facts.toml)")
        tiles = {**base["warp_tiles"], **d.get("warp_tile_combos", {})}
        capacity = d["lds_capacity_kb"] * 1024 if "lds_capacity_kb" in d else base["lds_capacity"]
        extra = {k: v for k, v in base.items() if k not in ("family", "warp_size", "wave_splits", "warp_tiles",
                                                            "lds_capacity")}
        out[arch] = arch_record(d.get("family", base["family"]), d.get("warp_size", base["warp_size"]),
                                d.get("warp_configs", base["wave_splits"]), tiles, capacity, extra)
    return out


def trait_rows(combinations, where: str) -> frozenset:
    """CK's ``unsupported_trait_combos`` as (pipeline, epilogue, scheduler) rows (CksolveError naming ``where``)."""
    rows = set()
    for i, c in enumerate(combinations):
        if not (isinstance(c, list) and len(c) == 3 and all(isinstance(x, str) and x for x in c)):
            raise CksolveError(f"{where}: unsupported_trait_combos.combinations[{i}]: expected [pipeline, epilogue, "
                               f"scheduler], got {c!r}"[:200])
        rows.add(tuple(c))
    return frozenset(rows)


def check_lds(version: CkVersion, where: str) -> CkVersion:
    """A version whose LDS rule it has the facts for (CksolveError naming ``where`` and the key)."""
    if version.lds_rule not in LDS_RULES:
        raise CksolveError(f"{where}: lds_rule {version.lds_rule!r} is not one of {', '.join(LDS_RULES)}")
    bases = ("bytes",) if version.lds_rule == "pipeline" else LDS_BASES
    for pipeline, (basis, value) in version.lds_budget.items():
        if basis not in bases or value < 0:
            raise CksolveError(f"{where}: pipeline_lds_budget.{pipeline}: with lds_rule {version.lds_rule!r} the basis "
                               f"must be {' or '.join(bases)} and the value not negative")
    if version.lds_rule == "arch":
        if "default" not in version.lds_budget:
            raise CksolveError(f"{where}: pipeline_lds_budget has no 'default' entry")
        if all(facts["lds_capacity"] is None for facts in version.archs.values()):
            raise CksolveError(f"{where}: no arch has an lds_capacity_kb (the per-arch LDS rule needs them)")
    return version


def _bundled_file(name: str, files: dict, done: dict) -> CkVersion:
    if name in done:
        return done[name]
    where = f"ck_{name}.toml"
    raw = load(__package__, where, _VERSION_SCHEMA)
    v = raw["version"]
    if not v["commit"].startswith(name):
        raise CksolveError(f"{where}: commit {v['commit']!r} does not start with the file's {name}")
    if "based_on" in v:
        if v["based_on"] not in files or v["based_on"] == name:
            raise CksolveError(f"{where}: based_on {v['based_on']!r} is not another bundled version")
        done[name] = None  # a cycle of based_on meets this marker
        parent = _bundled_file(v["based_on"], files, done)
        if parent is None:
            raise CksolveError(f"{where}: based_on makes a cycle")
        archs, budget, aliases = dict(parent.archs), dict(parent.lds_budget), dict(parent.lds_aliases)
        traits = parent.trait_unsupported
    else:
        traits = None
        archs = _base_archs()
        budget = {p.name: ("bytes", p.lds_capacity) for p in PIPELINES.values()}
        aliases = {}
    if "pipeline_lds_budget" in raw:
        budget = {k: (b["basis"], b["value"]) for k, b in raw["pipeline_lds_budget"].items()}
    aliases.update(raw.get("pipeline_lds_budget_aliases", {}))
    archs = apply_delta(archs, raw.get("architectures", {}), where)
    if "unsupported_trait_combos" in raw:
        traits = trait_rows(raw["unsupported_trait_combos"]["combinations"], where)
    version = check_lds(CkVersion(name, v["commit"], v["date"], tuple(v["aliases"]), v["description"], v["lds_rule"],
                                  MappingProxyType(archs), MappingProxyType(budget), MappingProxyType(aliases),
                                  trait_unsupported=traits), where)
    done[name] = version
    return version


@MEMOS.cached("arch.versions.bundled", maxsize=1)
def bundled() -> tuple[CkVersion, ...]:
    """Every bundled version, oldest first (by date, then commit)."""
    here = os.path.dirname(__file__)
    files = {m.group(1): m.group(0) for m in map(_FILE.fullmatch, sorted(os.listdir(here))) if m}
    done: dict = {}
    versions = [_bundled_file(name, files, done) for name in files]
    return tuple(sorted(versions, key=lambda v: (v.date, v.key)))


def newest() -> CkVersion:
    return bundled()[-1]


def listing() -> str:
    """The bundled versions as help and messages name them: ``60b27664 (2026-06), 05fcb0f1 (2026-10, develop)``."""
    newest_key = newest().key
    return ", ".join(f"{v.key} ({', '.join((*v.aliases, *((DEVELOP,) if v.key == newest_key else ())))})"
                     for v in bundled())


def resolve(ref: str | None) -> CkVersion:
    """The bundled version ``ref`` names: a commit prefix (4 hex digits or more), an alias, ``develop``
    (the newest); None: the newest. Unknown or ambiguous: UnknownVersion naming it and the choices."""
    versions = bundled()
    text = None if ref is None else ref.strip().lower()
    if text is None or text == DEVELOP:
        return versions[-1]
    hits = [v for v in versions if text in v.aliases]
    if not hits and len(text) >= 4 and all(c in "0123456789abcdef" for c in text):
        hits = [v for v in versions if v.commit.startswith(text)]
    if len(hits) != 1:
        what = "ambiguous" if hits else "unknown"
        raise UnknownVersion(f"{what} CK version {shorten(ref)}; bundled: {listing()}; for another CK checkout "
                             f"give its dispatcher/codegen/arch_specs.json with {{opt:arch_specs}} FILE")
    return hits[0]


# --- the active version ---------------------------------------------------------------------

_ACTIVE: list = [None]  # not a memo: the process's choice (None: the newest bundled, resolved when first asked)


def active() -> CkVersion:
    version = _ACTIVE[0]
    if version is None:
        version = _ACTIVE[0] = newest()
    return version


def activate(version: CkVersion | None) -> None:
    """Make ``version`` answer from now on (None: the newest bundled)."""
    _ACTIVE[0] = version


@contextmanager
def using(version: CkVersion) -> Iterator[CkVersion]:
    """``version`` answers inside the block; the previous one after it."""
    previous = _ACTIVE[0]
    _ACTIVE[0] = version
    try:
        yield version
    finally:
        _ACTIVE[0] = previous
