"""Measurement files: CK's tile-engine benchmark CSV and cksolve's own format, one reader.

* CK's CSV (``tile_engine/ops/grouped_conv/grouped_conv_full_benchmark.py``
  @54f25023e8af49decbd174c8a6154356e8f815d0): 24 columns ``kernel, problem_idx, N, C,
  K, G, Di, Hi, Wi, Z, Y, X, stride_d/h/w, pad_d/h/w, dilation_d/h/w, latency_ms,
  tflops, non_zero``, one row per successful launch.
* cksolve's format (``minimize --perf``): CSV or JSONL with the problem's fields
  (CK's names and defaults), ``kernel`` and ``tflops`` (or ``time_ms``, scored as
  1 / time_ms when there is no tflops).

Kernel names may be either spelling (``names.py``). The problem's direction
comes from the kernel's variant (CK's CSV has no direction column).
``problem_idx`` is ignored: problems are keyed by their dimensions, as CK's own
notes ask, never by a row index. Rows with tflops <= 0 are skipped (CK's
``train.py`` uses tflops > 0 only) and counted; a repeated (problem, kernel)
keeps its best measurement.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import CksolveError, shorten
from ..space.variants import VARIANTS
from ..workload import FIELDS, Problem, ProblemError
from .names import KernelName, read_kernel_name

__all__ = ["Measurements", "read_measurements", "CK_COLUMNS"]

#: CK's tile-engine CSV header, in its order
CK_COLUMNS = ("kernel", "problem_idx", "N", "C", "K", "G", "Di", "Hi", "Wi", "Z", "Y", "X", "stride_d", "stride_h",
              "stride_w", "pad_d", "pad_h", "pad_w", "dilation_d", "dilation_h", "dilation_w", "latency_ms", "tflops",
              "non_zero")
#: columns read besides the problem's fields; the ignored ones are CK's bookkeeping
_MEASURES = ("kernel", "kernel_name", "tflops", "time_ms", "latency_ms")
_IGNORED = ("problem_idx", "non_zero", "bandwidth_gb_s", "run_id", "is_valid", "error_msg")
_KNOWN = frozenset((*FIELDS, *_MEASURES, *_IGNORED))


@dataclass
class Measurements:
    """{problem: {kernel name: TFLOPS}} in file order, the kernels read once each."""

    by_problem: dict = field(default_factory=dict)  # Problem -> {name: tflops}
    kernels: dict = field(default_factory=dict)  # name -> KernelName
    skipped: int = 0  # rows with tflops <= 0
    rows: int = 0

    def pairs(self) -> Iterator[tuple[Problem, KernelName, float]]:
        for problem, measured in self.by_problem.items():
            for name, tflops in measured.items():
                yield problem, self.kernels[name], tflops


def _rows(path: Path) -> Iterator[tuple[str, dict]]:
    try:
        f = open(path, encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise CksolveError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with f:
        try:
            first = ""
            while not first.strip():
                first = f.readline()
                if not first:
                    raise CksolveError(f"{path}: no measurements")
            if first.lstrip().startswith("{"):
                for line, text in enumerate([first] + list(f), 1):  # JSONL
                    if text.strip():
                        try:
                            obj = json.loads(text)
                        except json.JSONDecodeError as exc:
                            raise CksolveError(f"{path}:{line}: not JSON ({exc.msg})") from None
                        if not isinstance(obj, dict):
                            raise CksolveError(f"{path}:{line}: expected a JSON object")
                        yield f"{path}:{line}", obj
                return
            header = [h.strip() for h in next(csv.reader([first]))]
            unknown = [h for h in header if h not in _KNOWN]
            if unknown:
                raise CksolveError(f"{path}:1: unknown column {shorten(unknown[0], 60)}; a measurement file has "
                                   f"the problem's fields, kernel and tflops or time_ms (CK's benchmark CSV: "
                                   f"{', '.join(CK_COLUMNS)})")
            twice = next((h for i, h in enumerate(header) if h in header[:i]), None)
            if twice is not None:  # dict(zip()) would keep the last silently
                raise CksolveError(f"{path}:1: column {shorten(twice, 60)} named twice")
            reader = csv.reader(f)
            for row in reader:
                if not row or row[0].lstrip().startswith("#"):
                    continue
                line = reader.line_num + 1
                if len(row) != len(header):
                    raise CksolveError(f"{path}:{line}: {len(row)} values for {len(header)} columns")
                yield f"{path}:{line}", dict(zip(header, row))
        except UnicodeDecodeError:
            raise CksolveError(f"{path}: not UTF-8 text") from None


def _number(where: str, key: str, raw) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise CksolveError(f"{where}: field {key}: {shorten(raw, 40)} is not a number") from None
    if not math.isfinite(value):
        raise CksolveError(f"{where}: field {key}: {shorten(raw, 40)} is not a finite number")
    return value


def _int(where: str, key: str, raw) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    text = str(raw).strip()
    if not text.lstrip("-").isdigit() or len(text) > 12:
        raise CksolveError(f"{where}: field {key}: {shorten(raw, 40)} is not an integer")
    return int(text)


def read_measurements(paths: Iterable[str | Path], variant: str | None = None, dtype: str | None = None
                      ) -> Measurements:
    """Every row of ``paths``; with ``variant``/``dtype`` only kernels of that variant and dtype (others are an
    error naming the row: a file mixing them is two data sets)."""
    out = Measurements()
    for path in paths:
        for where, row in _rows(Path(path)):
            out.rows += 1
            name = str(row.get("kernel") or row.get("kernel_name") or "").strip()
            if not name:
                raise CksolveError(f"{where}: no kernel name (column kernel)")
            kernel = out.kernels.get(name)
            if kernel is None:
                kernel = out.kernels[name] = read_kernel_name(name, where)
            if variant is not None and kernel.short.variant != variant:
                raise CksolveError(f"{where}: kernel {shorten(name, 100)} is a {kernel.short.variant} kernel, "
                                   f"not {variant}")
            if dtype is not None and kernel.short.dtype != dtype:
                raise CksolveError(f"{where}: kernel {shorten(name, 100)} is {kernel.short.dtype}, not {dtype}")
            if row.get("tflops") not in (None, ""):
                tflops = _number(where, "tflops", row["tflops"])
            elif row.get("time_ms") not in (None, ""):
                t = _number(where, "time_ms", row["time_ms"])
                if t <= 0:
                    raise CksolveError(f"{where}: field time_ms: {t} must be positive")
                tflops = 1.0 / t
            else:
                raise CksolveError(f"{where}: needs tflops or time_ms")
            if tflops <= 0:
                out.skipped += 1
                continue
            direction = VARIANTS[kernel.short.variant].direction
            if row.get("direction") not in (None, "", direction):
                raise CksolveError(f"{where}: field direction {shorten(row['direction'], 30)} is not the "
                                   f"direction of kernel {shorten(name, 100)} ({direction})")
            values = {k: _int(where, k, v) for k, v in row.items()
                      if k in FIELDS and k != "direction" and v not in (None, "")}
            try:
                problem = Problem(**values, direction=direction)
            except ProblemError as exc:
                raise CksolveError(f"{where}: {exc}") from None
            measured = out.by_problem.setdefault(problem, {})
            if tflops > measured.get(name, 0.0):
                measured[name] = tflops
    if not out.by_problem:
        raise CksolveError(f"{', '.join(map(str, paths))}: no measurement with tflops > 0")
    return out
