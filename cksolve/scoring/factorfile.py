"""The analytic model's factors: the first-principles table (``factors.toml``), factors files over it, and the
calibration each arch uses by default (``calibrations/<arch>.toml``).

A factors file has ``factors.toml``'s layout and sets some of its numbers (a delta: what it leaves out keeps
the table's value), plus an optional ``[calibration]`` table saying where the numbers come from
(``cksolve calibrate`` writes both). Every key must be one of the table's (an unknown one is refused, with
the nearest known key), every value a number (a list: as long as the table's) inside its bounds: the
``[free]`` table's for the factors ``calibrate`` fits, else not negative.

Which factors an arch's estimates use: ``--factors FILE`` when given, else the arch's shipped calibration
when there is one, else ``factors.toml`` alone (first principles).
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path

from ..errors import CksolveError, did_you_mean, shorten
from ..space.datafile import DataFileError, load
from ..space.memos import MEMOS
from ..space.pipelines import PIPELINES
from ..space.textfile import parse_toml

__all__ = ["FACTORS_SCHEMA", "CALIBRATION_KEYS", "base_factors", "free_factors", "read_factors_file",
           "factors_for", "calibration_of", "flat", "merged", "factor_name", "calibrated_arch_file",
           "parse_factors_text", "sha256_of", "pipeline_coverage"]

_NUMBER = (int, float)
#: factors.toml's schema (``space.datafile``'s notation), one entry per section: the section's keys and their
#: types (``"*"``: one table per value, such as a pipeline; a key ending in ``?`` may be left out). A new factor
#: is declared here, in its section, beside its number in factors.toml; a new section is a new entry, with its
#: ``reason``. Every table carries its reason; ``[pipeline]`` has one table per pipeline of ``pipelines.toml``
#: (``pipeline_coverage``), and ``[free]`` names factors declared here.
FACTORS_SCHEMA = {
    "pipeline": {"*": {"compute": _NUMBER, "memory": _NUMBER, "prefetch": bool, "reason": str}},
    "scheduler": {"interwave_single_wave": _NUMBER, "reason": str},
    "latency": {"prefetch": _NUMBER, "no_prefetch": _NUMBER, "waves_to_hide": _NUMBER, "reason": str},
    "loop": {"cycles_per_k_step": _NUMBER, "launch_us": _NUMBER, "cycles_per_tile": _NUMBER, "reason": str},
    "memory": {"l2_miss": _NUMBER, "full_vector_bytes": _NUMBER, "reason": str},
    "cu": {"load_bytes_per_clock": _NUMBER, "lds_bytes_per_clock": _NUMBER, "reason": str},
    "warp_tile": {"*": {"*": _NUMBER}, "reason": str},
    "other": {"wave_k_split": _NUMBER, "specialized": _NUMBER, "split_image": _NUMBER,
              "default_epilogue_store": _NUMBER, "reason": str},
    "waves": {"per_workgroup": [_NUMBER], "many_waves": _NUMBER, "many_waves_rate": _NUMBER, "reason": str},
    "tile": {"non_power_of_two": _NUMBER, "reason": str},
    "overlap": {"exposed": _NUMBER, "reason": str},
    "vector": {"load_bytes": _NUMBER, "wide": _NUMBER, "reason": str},
    "free": {"*": [_NUMBER]},
}
#: a factors file's provenance table: key -> type
CALIBRATION_KEYS = {"source": str, "source_sha256": str, "arch": str, "dtype": str, "device": str, "objective": str,
                    "problems": int, "kernels": int, "rows": int, "invalid_rows": int, "kept_invalid": bool,
                    "folds": int, "fitted": [str],
                    "cv_before": dict, "cv_after": dict, "command": str}
_CALIBRATIONS = "calibrations"
_MAX_BYTES = 1 << 20  # a factors file is a few hundred bytes; a larger one is not one


@MEMOS.cached("scoring.factorfile.base", maxsize=1)
def base_factors() -> dict:
    """``factors.toml``, checked against ``FACTORS_SCHEMA`` (its ``[free]`` bounds name known factors)."""
    data = load(__package__, "factors.toml", FACTORS_SCHEMA)
    problem = pipeline_coverage(data)
    if problem:
        raise DataFileError(f"factors.toml: {problem}")
    leaves = flat(data)
    for name, bounds in data["free"].items():
        path = tuple(_split(name))
        if path not in leaves or len(bounds) != 2 or not bounds[0] < bounds[1]:
            raise CksolveError(f"factors.toml: [free] {name!r} is not a factor of the table with bounds [low, high]")
    return data


def pipeline_coverage(data: dict) -> str:
    """What ``data``'s ``[pipeline]`` tables miss ("" when none): a table for every pipeline of
    ``pipelines.toml`` (a pipeline without one would score with made-up defaults) and none for another."""
    tables = data.get("pipeline", {})
    missing = [p for p in PIPELINES if p not in tables]
    if missing:
        return (f"[pipeline]: missing key {missing[0]!r} (every pipeline of pipelines.toml has its factors and "
                "their reason)")
    unknown = [p for p in tables if p not in PIPELINES]
    if unknown:
        return (f"[pipeline]: unknown key {unknown[0]!r} (not a pipeline of pipelines.toml"
                f"{did_you_mean(unknown[0], PIPELINES)})")
    return ""


def free_factors() -> dict[tuple, tuple[float, float]]:
    """The factors ``calibrate`` may fit: path -> (low, high), in the table's order."""
    return {tuple(_split(k)): (float(v[0]), float(v[1])) for k, v in base_factors()["free"].items()}


def _split(name: str) -> list[str]:
    """A dotted factor name's keys (a quoted key may hold dots: ``warp_tile.cdna4."16x16x16"``)."""
    out, cur, quoted = [], "", False
    for ch in name:
        if ch == '"':
            quoted = not quoted
        elif ch == "." and not quoted:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def factor_name(path: tuple) -> str:
    """A factor's dotted name (keys that are not bare words quoted)."""
    return ".".join(k if k.replace("_", "").isalnum() and not k[0].isdigit() else f'"{k}"' for k in path)


def flat(table: dict, prefix: tuple = ()) -> dict[tuple, object]:
    """Every numeric leaf of ``table`` (lists as one leaf): path -> value; reasons, flags and ``[free]`` left out."""
    out = {}
    for key, value in table.items():
        if not prefix and key in ("free", "calibration"):
            continue
        if isinstance(value, dict):
            out.update(flat(value, prefix + (key,)))
        elif isinstance(value, list) or (isinstance(value, _NUMBER) and not isinstance(value, bool)):
            out[prefix + (key,)] = value
    return out


def merged(base: dict, delta: dict[tuple, object]) -> dict:
    """``base`` with the values of ``delta`` (path -> value) set (a new table; ``base`` is left as it is)."""
    out = _copy(base)
    for path, value in delta.items():
        node = out
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = list(value) if isinstance(value, list) else value
    return out


def _copy(table):
    return {k: _copy(v) for k, v in table.items()} if isinstance(table, dict) else table


def _where(path: tuple) -> str:
    return factor_name(path) if path else "top level"


def _factor(value) -> bool:
    """A number, a list of numbers or a table of them: what a factors file may set (not a reason, not a flag)."""
    return isinstance(value, (dict, list)) or (isinstance(value, _NUMBER) and not isinstance(value, bool))


def _check(node, base, path: tuple, bounds: dict, out: dict) -> None:
    """Walk a file's table ``node`` against the factor table ``base``; the values into ``out``."""
    for key, value in node.items():
        here = path + (key,)
        if not path and key == "calibration":
            _check_calibration(value)
            continue
        known = [k for k, v in (base.items() if isinstance(base, dict) else ()) if _factor(v) and (path or k != "free")]
        if key not in known:
            raise CksolveError(f"unknown factor {shorten(factor_name(here), 80)}" + did_you_mean(key, known)
                               + (f" (known at {_where(path)}: {', '.join(sorted(known))})" if known and path else ""))
        ref = base[key]
        if isinstance(ref, dict):
            if not isinstance(value, dict):
                raise CksolveError(f"factor {factor_name(here)} must be a table, not {shorten(value, 40)}")
            _check(value, ref, here, bounds, out)
            continue
        if isinstance(ref, list):
            if not isinstance(value, list) or len(value) != len(ref):
                raise CksolveError(f"factor {factor_name(here)} must be a list of {len(ref)} numbers")
            for v in value:
                _number(here, v, (0.0, math.inf))
        else:
            _number(here, value, bounds.get(here, (0.0, math.inf)))
        out[here] = value


def _number(path: tuple, value, bounds: tuple) -> None:
    if isinstance(value, bool) or not isinstance(value, _NUMBER) or not math.isfinite(value):
        raise CksolveError(f"factor {factor_name(path)} must be a number, not {shorten(value, 40)}")
    low, high = bounds
    if not low <= value <= high:
        raise CksolveError(f"factor {factor_name(path)} = {value} is outside its bounds ({low:g} .. {high:g})")


def _check_calibration(table) -> None:
    if not isinstance(table, dict):
        raise CksolveError("[calibration] must be a table")
    for key, value in table.items():
        want = CALIBRATION_KEYS.get(key)
        if want is None:
            raise CksolveError(f"unknown [calibration] key {shorten(key, 60)}" + did_you_mean(key, CALIBRATION_KEYS))
        ok = (all(isinstance(v, str) for v in value) if isinstance(want, list) and isinstance(value, list)
              else isinstance(value, want) and not (want is int and isinstance(value, bool)))
        if not ok:
            raise CksolveError(f"[calibration] {key} has the wrong type")


def parse_factors_text(text: str, where: str) -> tuple[dict, dict]:
    """(delta: path -> value, provenance table) of a factors file's text; one error naming ``where``."""
    data = parse_toml(text, f"{where}: not a factors file (TOML)")
    out: dict = {}
    try:
        _check(data, base_factors(), (), free_factors(), out)
    except CksolveError as exc:
        raise CksolveError(f"{where}: {exc}") from None
    return out, data.get("calibration", {})


def read_factors_file(path: str | Path) -> tuple[dict, dict]:
    """(delta, provenance) of the factors file at ``path`` (``parse_factors_text``); one error line when it
    cannot be read or is malformed."""
    try:
        with open(path, "rb") as f:
            raw = f.read(_MAX_BYTES + 1)
    except OSError as exc:
        raise CksolveError(f"{shorten(str(path), 120)}: cannot read the factors file: {exc.strerror or exc}") from None
    if len(raw) > _MAX_BYTES:
        raise CksolveError(f"{shorten(str(path), 120)}: not a factors file (over {_MAX_BYTES // 1024} KiB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CksolveError(f"{shorten(str(path), 120)}: not a factors file (not UTF-8 text)") from None
    return parse_factors_text(text, shorten(str(path), 120))


def calibrated_arch_file(arch: str) -> str | None:
    """The path of the calibration cksolve ships for ``arch`` (None: the arch is modelled from first principles)."""
    path = os.path.join(os.path.dirname(__file__), _CALIBRATIONS, f"{arch}.toml")
    return path if os.path.exists(path) else None


@MEMOS.cached("scoring.factorfile.for", maxsize=64)
def _resolved(arch: str, path: str | None) -> tuple[dict, dict]:
    where = path if path is not None else calibrated_arch_file(arch)
    if where is None:
        return base_factors(), {}
    delta, provenance = read_factors_file(where)
    return merged(base_factors(), delta), {**provenance, "_file": str(where), "_shipped": path is None,
                                           "_set": sorted(factor_name(p) for p in delta)}


def factors_for(arch: str, path: str | Path | None = None) -> dict:
    """The factor table ``arch``'s estimates use: ``factors.toml`` under the file ``path`` (``--factors``), else
    under the arch's shipped calibration, else alone."""
    return _resolved(arch, None if path is None else str(path))[0]


def calibration_of(arch: str, path: str | Path | None = None) -> str:
    """One phrase saying where ``arch``'s factors come from (the ranking line of select and search); "" for
    ``factors.toml`` alone (first principles)."""
    _table, prov = _resolved(arch, None if path is None else str(path))
    if not prov:
        return ""
    n = len(prov.get("_set", ()))
    which = "shipped calibration" if prov["_shipped"] else f"factors file {shorten(prov['_file'], 80)}"
    what = f"{n} factor{'s' if n != 1 else ''}"
    if "source" not in prov:
        return f"{which}: {what} set"
    how = "fitted to" if "objective" in prov else "from"  # calibrate writes its objective
    sha = prov.get("source_sha256", "")
    return f"{which}: {what} {how} {prov['source']}" + (f" (sha256 {sha[:12]})" if sha else "")


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
