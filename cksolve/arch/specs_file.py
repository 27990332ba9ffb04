"""A CK checkout's ``dispatcher/codegen/arch_specs.json`` as a CK version (``--arch-specs FILE``).

A CK developer evaluates an unmerged change or a new GPU before it lands: the file's arch facts
and LDS budgets answer instead of a bundled version's. Both of CK's formats are read: the
newer with a per-arch ``lds_capacity_kb`` and a ``pipeline_lds_budget`` of fractions (the
per-arch LDS rule), the older with one ``pipeline_lds_limits`` table in bytes (the per-pipeline
rule). Keys starting with ``_`` are CK's comments. Facts the file does not hold (compute units,
the ML hardware profiles, the run-time path flags) come from the bundled ``facts.toml`` for the
archs it knows. A malformed file is one error naming the file, the key and the problem.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import MappingProxyType

from ..errors import CksolveError, shorten
from ..space.textfile import parse_json, read_text
from .target_id import ARCH_NAME_HELP, is_arch_name
from .versions import LDS_BASES, NEW_ARCH_KEYS, CkVersion, arch_record, bundled_extra, check_lds, trait_rows

__all__ = ["read_arch_specs", "ArchSpecsError"]


class ArchSpecsError(CksolveError):
    pass


class _File:
    def __init__(self, path: str):
        self.where = shorten(path, quote=False)

    def fail(self, key: str, problem: str):
        raise ArchSpecsError(f"{self.where}: {key}: {problem}")

    def table(self, parent: dict, key: str, at: str = "", required: bool = True) -> dict | None:
        name = f"{at}.{key}" if at else key
        value = parent.get(key)
        if value is None:
            if required:
                self.fail(name, "missing table")
            return None
        if not isinstance(value, dict):
            self.fail(name, f"expected a table, got {type(value).__name__}")
        return {k: v for k, v in value.items() if not k.startswith("_")}

    def integer(self, value, key: str, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"expected an integer, got {json.dumps(value)}")
        if value < minimum:
            self.fail(key, f"expected an integer of at least {minimum}, got {value}")
        return value

    def number(self, value, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 \
                or (isinstance(value, float) and not math.isfinite(value)):
            self.fail(key, f"expected a finite number not below 0, got {json.dumps(value)}")
        return value

    def text(self, value, key: str) -> str:
        if not isinstance(value, str) or not value:
            self.fail(key, f"expected a name, got {json.dumps(value)}")
        return value

    def triples(self, value, key: str) -> list:
        if not isinstance(value, list):
            self.fail(key, f"expected a list of [m, n, k], got {json.dumps(value)[:40]}")
        for i, t in enumerate(value):
            if not (isinstance(t, list) and len(t) == 3):
                self.fail(f"{key}[{i}]", f"expected [m, n, k], got {json.dumps(t)[:40]}")
            for v in t:
                self.integer(v, f"{key}[{i}]", 1)
        return value


def _arch(f: _File, arch: str, a, needs_capacity: bool) -> dict:
    if not is_arch_name(arch):
        f.fail("architectures", f"{shorten(arch, 60)} is not an arch name: expected {ARCH_NAME_HELP}")
    at = f"architectures.{arch}"
    if not isinstance(a, dict):
        f.fail(at, f"expected a table, got {type(a).__name__}")
    for key in NEW_ARCH_KEYS:
        if key not in a:
            f.fail(f"{at}.{key}", "missing")
    tiles = f.table(a, "warp_tile_combos", at)
    for key, value in tiles.items():
        f.triples(value, f"{at}.warp_tile_combos.{key}")
    capacity = None
    if "lds_capacity_kb" in a:
        capacity = f.integer(a["lds_capacity_kb"], f"{at}.lds_capacity_kb", 1) * 1024
    elif needs_capacity:
        f.fail(f"{at}.lds_capacity_kb", "missing (the per-arch LDS budgets need it)")
    return arch_record(f.text(a["family"], f"{at}.family"), f.integer(a["warp_size"], f"{at}.warp_size", 1),
                       f.triples(a["warp_configs"], f"{at}.warp_configs"), tiles, capacity, bundled_extra(arch))


def _budgets(f: _File, raw: dict) -> tuple[str, dict, dict]:
    """(lds rule, budget per pipeline, aliases) of either format."""
    if "pipeline_lds_budget" in raw:
        table = f.table(raw, "pipeline_lds_budget")
        budget = {}
        for pipeline, entry in table.items():
            at = f"pipeline_lds_budget.{pipeline}"
            if not isinstance(entry, dict) or "basis" not in entry or "value" not in entry:
                f.fail(at, "expected a table with basis and value")
            if entry["basis"] not in LDS_BASES:
                f.fail(f"{at}.basis", f"expected one of {', '.join(LDS_BASES)}, got {json.dumps(entry['basis'])}")
            budget[pipeline] = (entry["basis"], f.number(entry["value"], f"{at}.value"))
        if "default" not in budget:
            f.fail("pipeline_lds_budget.default", "missing (the budget of every pipeline not listed)")
        aliases = f.table(raw, "pipeline_lds_budget_aliases", required=False) or {}
        for pipeline, target in aliases.items():
            if target not in budget:
                f.fail(f"pipeline_lds_budget_aliases.{pipeline}", f"unknown pipeline {json.dumps(target)} "
                                                                  "(not in pipeline_lds_budget)")
        return "arch", budget, aliases
    if "pipeline_lds_limits" in raw:
        table = f.table(raw, "pipeline_lds_limits")
        budget = {p: ("bytes", f.integer(v, f"pipeline_lds_limits.{p}")) for p, v in table.items()}
        if "default" not in budget:
            f.fail("pipeline_lds_limits.default", "missing (the limit of every pipeline not listed)")
        return "pipeline", budget, {}
    f.fail("pipeline_lds_budget", "missing table (nor the older pipeline_lds_limits)")


def read_arch_specs(path: str | Path) -> CkVersion:
    """The CK version ``path`` (a CK ``arch_specs.json``) describes; ArchSpecsError naming file, key, problem."""
    f = _File(str(path))
    try:  # bounded, read once (a FIFO, a process substitution; '-': stdin), a BOM dropped
        text = read_text(path, "arch_specs.json file")
    except CksolveError as exc:
        raise ArchSpecsError(str(exc)) from None
    raw = parse_json(text, f"{f.where}: not JSON", ArchSpecsError)
    if not isinstance(raw, dict):
        f.fail("top level", f"expected an object, got {type(raw).__name__}")
    rule, budget, aliases = _budgets(f, raw)
    archs = {arch: _arch(f, arch, a, rule == "arch") for arch, a in f.table(raw, "architectures").items()}
    if not archs:
        f.fail("architectures", "no architecture")
    traits = None
    if "unsupported_trait_combos" in raw:
        table = f.table(raw, "unsupported_trait_combos")
        if not isinstance(table.get("combinations"), list):
            f.fail("unsupported_trait_combos.combinations", "missing list")
        traits = trait_rows(table["combinations"], f.where)
    version = str(raw.get("_version", "")) if isinstance(raw.get("_version"), (str, int, float)) else ""
    return check_lds(CkVersion(str(Path(path).resolve()), "", "", (), f"CK arch_specs.json {version}".strip(), rule,
                               MappingProxyType(archs), MappingProxyType(budget), MappingProxyType(aliases),
                               source=f.where, trait_unsupported=traits), f.where)
