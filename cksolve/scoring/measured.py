"""The measured scorer: a pair's measured TFLOPS (from a measurement file, ``ml.measurements``).

The file's rows are checked first (``workload.hygiene``, for the arch the scorer is
prepared for: invalid rows are left out unless ``keep_invalid``); the verdict is
``hygiene``. A config is found as the kernel its labels resolved to (``workload.labels``:
a full name is itself; the best measurement of a kernel's labels counts) or, failing that,
under its dispatcher short name (a label kept with ``keep_invalid`` that resolves to nothing).
A problem with some measurement scores its unmeasured kernels 0, so an
unmeasured kernel never outranks a measured one; a problem with none scores
every kernel 0 (ties: the caller's name order).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..features.ckname import dispatcher_name
from ..ml.measurements import read_measurements
from ..space.kinds import GEMM, kernel_kind
from ..workload.hygiene import HygieneOptions
from ..workload.perf import read_measurement_file

__all__ = ["MeasuredScorer"]


class MeasuredScorer:
    kind = "measured"

    def __init__(self, path, rows=None, hygiene: HygieneOptions | None = None, **_ignored):
        """``rows``: the file already read (``workload.perf.read_measurement_file``), so that a FIFO is read once;
        ``hygiene``: how its rows are checked (default: ``HygieneOptions`` of the arch prepared for)."""
        self.path = str(path)
        self.rows = read_measurement_file(path) if rows is None else rows
        self.options = hygiene
        self.data = self.hygiene = None
        self._arch = None
        self._kernels: dict = {}  # problem -> {resolved kernel name: best TFLOPS}

    def describe(self) -> str:
        n = len(self.data.by_problem) if self.data is not None else "?"
        return f"measured TFLOPS from {self.path} ({n} problems; unmeasured kernels score 0)"

    def prepare(self, arch: str, dtype: str) -> None:
        if self._arch == arch:
            return
        options = replace(self.options, arch=arch) if self.options is not None else HygieneOptions(arch)
        self.data = read_measurements([self.path], read=[self.rows], hygiene=options)
        self.hygiene, self._arch = self.data.hygiene, arch
        self._kernels = {}
        for problem, measured in self.data.by_problem.items():
            by = self._kernels[problem] = {}
            for label, tflops in measured.items():
                kernel = self.hygiene.kernel(label)
                if kernel is not None and tflops > by.get(kernel, 0.0):
                    by[kernel] = tflops

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        self.prepare(arch, dtype)
        out = []
        for problem, config in pairs:
            measured = self.data.by_problem.get(problem)
            if not measured:
                out.append(0.0)
                continue
            v = self._kernels[problem].get(config.name())
            if v is None and kernel_kind(config.kind) is GEMM:  # CK's dispatcher names GEMM kernels only
                v = measured.get(dispatcher_name(config))
            out.append(0.0 if v is None else v)
        return out
