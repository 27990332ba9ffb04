"""Measurement files as training data: {problem: {kernel: TFLOPS}} of CK's benchmark CSV or cksolve's format.

The file itself (columns, numbers, one error line naming the bad value) is read
by ``workload.perf.read_measurement_file``, the one reader ``minimize --perf``
uses too. Here: kernel names may be either CK spelling (``features.read_kernel_name``); the
problem's direction comes from the kernel's variant (CK's CSV has no direction
column); ``problem_idx`` is ignored (problems are keyed by their dimensions, as
CK's own notes ask, never by a row index). Rows with tflops 0 are skipped (CK's
``train.py`` uses tflops > 0 only) and counted; a repeated (problem, kernel)
keeps its best measurement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import CksolveError, shorten
from ..features import KernelName, read_kernel_name
from ..space.variants import VARIANTS
from ..workload import Problem
from ..workload.hygiene import Hygiene, HygieneOptions, check_rows
from ..workload.perf import CK_COLUMNS, Measurement, read_measurement_file

__all__ = ["Measurements", "read_measurements", "measurements_of", "CK_COLUMNS"]


@dataclass
class Measurements:
    """{problem: {kernel name: TFLOPS}} in file order, the kernels read once each."""

    by_problem: dict = field(default_factory=dict)  # Problem -> {name: tflops}
    kernels: dict = field(default_factory=dict)  # name -> KernelName
    skipped: int = 0  # rows with tflops 0
    rows: int = 0
    counts: dict = field(default_factory=dict)  # Problem -> rows read for it with tflops > 0 (CK's fold sizes)
    hygiene: Hygiene | None = None  # the rows' verdict (``workload.hygiene``), when read with options
    made_up: int = 0  # rows cksolve.ml.madeup wrote (run_id made_up): not measurements

    def pairs(self) -> Iterator[tuple[Problem, KernelName, float]]:
        for problem, measured in self.by_problem.items():
            for name, tflops in measured.items():
                yield problem, self.kernels[name], tflops


def read_measurements(paths: Iterable[str | Path], variant: str | None = None, dtype: str | None = None,
                      read: list | None = None, hygiene: HygieneOptions | None = None) -> Measurements:
    """Every row of ``paths``; with ``variant``/``dtype`` only kernels of that variant and dtype (others are an
    error naming the row: a file mixing them is two data sets). ``read``: each path's rows when the caller has
    read them already (``read_measurement_file``; a FIFO is read once). ``hygiene``: the rows are checked
    (``workload.hygiene``: invalid rows dropped unless kept) and the verdict is ``.hygiene``."""
    paths = list(paths)
    out = Measurements()
    rows = [read_measurement_file(path) if read is None else read[i] for i, path in enumerate(paths)]
    if hygiene is not None:
        kept, out.hygiene = check_rows((m for file_rows in rows for m in file_rows), hygiene)
        rows = [kept]
    for file_rows in rows:
        measurements_of(file_rows, variant, dtype, out)
    if not out.by_problem:
        none = "no valid measurement" if out.hygiene is not None and out.hygiene.invalid_rows else "no measurement"
        raise CksolveError(f"{', '.join(map(str, paths))}: {none} with tflops > 0")
    return out


def measurements_of(rows: Iterable[Measurement], variant: str | None = None, dtype: str | None = None,
                    out: Measurements | None = None) -> Measurements:
    """``rows`` (``read_measurement_file``'s) added to ``out`` (a new one by default)."""
    out = Measurements() if out is None else out
    for m in rows:
        out.rows += 1
        out.made_up += m.made_up
        name, where = m.kernel, m.where
        kernel = out.kernels.get(name)
        if kernel is None:
            kernel = out.kernels[name] = read_kernel_name(name, where)
        if variant is not None and kernel.short.variant != variant:
            raise CksolveError(f"{where}: kernel {shorten(name, 100)} is a {kernel.short.variant} kernel, "
                               f"not {variant}")
        if dtype is not None and kernel.short.dtype != dtype:
            raise CksolveError(f"{where}: kernel {shorten(name, 100)} is {kernel.short.dtype}, not {dtype}")
        if m.tflops <= 0:
            out.skipped += 1
            continue
        problem = m.problem(VARIANTS[kernel.short.variant].direction)
        out.counts[problem] = out.counts.get(problem, 0) + 1
        measured = out.by_problem.setdefault(problem, {})
        if m.tflops > measured.get(name, 0.0):
            measured[name] = m.tflops
    return out
