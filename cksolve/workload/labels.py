"""Measurement labels -> the kernels they measured.

A measurement file names each row's kernel by a label. A full kernel name is
the kernel itself. A dispatcher short name
(``grouped_conv_forward_bf16_2d_64x64x64_compv3``, scheduler token optional:
intrawave) is a *request*: CK's tile-engine runner mapped each requested config
to the nearest entry of the dispatcher's ``default`` rule-set list for the
(arch, dtype, variant, ndim) and built that entry (``ROCm/rocm-libraries``,
``projects/composablekernel/dispatcher/python/grouped_conv_utils.py`` @
e3ad8e8864a317d72fdf859c18e31ca93e8364ea, ``setup_multiple_grouped_conv_dispatchers``
and ``_select_best_arch_valid_conv_config``). So a short label resolves here the
same way, against cksolve's own ``default`` rule set at the active CK version
(its tables are CK's ``TILE_TO_WAVE`` / ``TILE_TO_WARP``; vectors 4, 8, 8):

* a ``default`` kernel whose short name says everything the label says is the kernel
  (``how = "exact"``);
* otherwise the nearest ``default`` kernel by CK's order: same pipeline first, then
  same scheduler, then same epilogue (the request's is CK's default, cshuffle), then the
  smallest tile distance (sum of |m|, |n|, |k| differences), wave-split distance and
  warp-tile distance (the request's waves and warp tile are those ``default`` gives its
  tile, when it has the tile); a tie goes to the first in kernel-name order
  (``how = "nearest"``).

The 20 labels of CK's gfx950 bf16 forward sweep resolve to 13 kernels this way: the
10 compv3 labels to the 10 compv3 kernels, the 10 compv4 labels to the three compv4
kernels with tile K 128 (16x64x128, 32x64x128, 64x64x128, double-buffered).

A label map (``read_kernel_map``: CSV ``label,kernel`` or TOML ``"label" = "kernel"``)
says which binary a label measured and overrides all of this (``how = "map"``).

API::

    from cksolve.workload.labels import LabelResolver, read_kernel_map
    resolver = LabelResolver("gfx950", kernel_map=read_kernel_map("map.csv"))   # map optional
    r = resolver.resolve("grouped_conv_forward_bf16_2d_16x64x64_compv4")
    r.config       # KernelConfig (or DepthwiseConfig for a full depthwise name); None when unknown
    r.how          # "name" | "map" | "exact" | "nearest" | "unknown"
    r.why          # for an unknown label: why (one line); r.spelled: False when not a kernel name at all
    resolver.config(label)   # the config, or a CksolveError naming the label
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from ..errors import CksolveError, shorten
from ..rulesets import get_rule_set
from ..selection import DTYPES
from ..solver import enumerate_combo
from ..space.combo import Combo
from ..space.config import AnyConfig, KernelConfig
from ..space.naming import parse_name
from ..space.shortnames import read_short
from ..space.textfile import parse_toml, read_text

__all__ = ["Resolved", "LabelResolver", "read_kernel_map", "RESOLVE_RULE_SET", "HOW", "SHORT_FIELDS"]

#: The rule set whose kernels CK's runner built for a short label.
RESOLVE_RULE_SET = "default"
#: How a label was resolved.
HOW = ("name", "map", "exact", "nearest", "unknown")
#: The epilogue of a request (CK's ``GroupedConvKernelConfig`` default).
_REQUEST_EPILOGUE = "cshuffle"
#: The short name's fields that must all agree for an exact match (``features.ShortName`` order).
SHORT_FIELDS = ("variant", "dtype", "ndim", "tile_m", "tile_n", "tile_k", "pipeline", "scheduler",
                 "groups_to_merge", "double_smem_buffer", "split_image", "two_stage")


@dataclass(frozen=True)
class Resolved:
    """What a label stands for: its config (None when unknown), how it was found, and why not (unknown)."""

    label: str
    config: AnyConfig | None
    how: str
    why: str = ""
    spelled: bool = True  # the label is a full or short kernel name (an unknown one may not be)

    @property
    def kernel(self) -> str | None:
        """The kernel's full name (None when unknown)."""
        return None if self.config is None else self.config.name()


class LabelResolver:
    """Resolves labels for one arch (short labels need it: ``default`` is per arch), each label once."""

    def __init__(self, arch: str, kernel_map: dict[str, str] | None = None):
        self.arch = arch
        self.kernel_map = dict(kernel_map or {})
        self._done: dict[str, Resolved] = {}

    def resolve(self, label: str) -> Resolved:
        hit = self._done.get(label)
        if hit is None:
            hit = self._done[label] = self._resolve(label)
        return hit

    def config(self, label: str) -> AnyConfig:
        """The label's config; a CksolveError naming the label when it resolves to none."""
        r = self.resolve(label)
        if r.config is None:
            raise CksolveError(f"kernel label {shorten(label, 120)}: {r.why}")
        return r.config

    def _resolve(self, label: str) -> Resolved:
        mapped = self.kernel_map.get(label)
        if mapped is not None:
            return Resolved(label, parse_name(mapped), "map")
        fields = read_short(label)
        if fields is None:
            try:
                return Resolved(label, parse_name(label), "name")
            except CksolveError:
                return Resolved(label, None, "unknown", "neither a full kernel name nor a dispatcher short name",
                                False)
        return self._short(label, dict(zip(SHORT_FIELDS, fields)))

    def _short(self, label: str, want: dict) -> Resolved:
        combo = Combo(self.arch, want["variant"], want["dtype"], want["ndim"])
        if want["dtype"] not in DTYPES:
            return Resolved(label, None, "unknown", f"unknown dtype {want['dtype']!r}; valid: {', '.join(DTYPES)}")
        try:
            candidates = default_kernels(combo)
        except CksolveError as exc:
            return Resolved(label, None, "unknown", f"no {RESOLVE_RULE_SET} kernels for {combo.key} ({exc})")
        if not candidates:
            return Resolved(label, None, "unknown", f"the {RESOLVE_RULE_SET} rule set has no kernels for {combo.key}")
        for c in candidates:
            if all(getattr(c, f) == want[f] for f in SHORT_FIELDS):
                return Resolved(label, c, "exact")
        tile = (want["tile_m"], want["tile_n"], want["tile_k"])
        same_tile = next((c for c in candidates if (c.tile_m, c.tile_n, c.tile_k) == tile), None)
        waves = None if same_tile is None else _waves(same_tile)
        warp = None if same_tile is None else _warp(same_tile)

        def distance(c: KernelConfig) -> tuple:
            return (c.pipeline != want["pipeline"], c.scheduler != want["scheduler"], c.epilogue != _REQUEST_EPILOGUE,
                    _l1((c.tile_m, c.tile_n, c.tile_k), tile),
                    0 if waves is None else _l1(_waves(c), waves), 0 if warp is None else _l1(_warp(c), warp))

        return Resolved(label, min(candidates, key=distance), "nearest")


def default_kernels(combo: Combo) -> list[KernelConfig]:
    """The ``default`` rule set's kernels of the combination, in kernel-name order (the arch rules applied)."""
    return enumerate_combo(get_rule_set(RESOLVE_RULE_SET), combo)


def _waves(c) -> tuple:
    return (c.wave_m, c.wave_n, c.wave_k)


def _warp(c) -> tuple:
    return (c.warp_tile_m, c.warp_tile_n, c.warp_tile_k)


def _l1(a: tuple, b: tuple) -> int:
    return sum(abs(x - y) for x, y in zip(a, b))


def read_kernel_map(path: str | Path) -> dict[str, str]:
    """{label: full kernel name} of a label map: CSV with a header ``label,kernel`` or TOML of ``"label" =
    "kernel"`` pairs (a ``.toml`` file). Every kernel must be a full kernel name; an error names the file,
    the entry and the value."""
    text = read_text(path, "kernel map")
    where = shorten(str(path), quote=False)
    if str(path).endswith(".toml"):
        raw = parse_toml(text, f"{where}: not a TOML file")
        entries = []
        for label, kernel in raw.items():
            if not isinstance(kernel, str):
                raise CksolveError(f"{where}: label {shorten(label, 80)}: the kernel must be a string")
            entries.append((f"{where}: label {shorten(label, 80)}", label, kernel))
    else:
        rows = list(csv.reader(io.StringIO(text)))
        rows = [(i, r) for i, r in enumerate(rows, 1) if r and any(x.strip() for x in r)]
        if not rows or [x.strip() for x in rows[0][1]] != ["label", "kernel"]:
            raise CksolveError(f"{where}: a kernel map's CSV header must be 'label,kernel'")
        entries = []
        for line, r in rows[1:]:
            if len(r) != 2:
                raise CksolveError(f"{where}:{line}: {len(r)} fields, expected 2 (label,kernel)")
            entries.append((f"{where}:{line}", r[0].strip(), r[1].strip()))
    out: dict[str, str] = {}
    for at, label, kernel in entries:
        if not label:
            raise CksolveError(f"{at}: an empty label")
        if label in out:
            raise CksolveError(f"{at}: label {shorten(label, 80)} is mapped twice")
        try:
            parse_name(kernel)
        except CksolveError:
            raise CksolveError(f"{at}: {shorten(kernel, 120)} is not a full kernel name") from None
        out[label] = kernel
    if not out:
        raise CksolveError(f"{where}: an empty kernel map")
    return out

