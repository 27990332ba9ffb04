"""The measured scorer: a pair's measured TFLOPS (from a measurement file, ``ml.measurements``).

A config is found under its full name or, failing that (a GEMM config), its dispatcher short
name (CK's benchmark names many configs alike: they share the measurement).
A problem with some measurement scores its unmeasured kernels 0, so an
unmeasured kernel never outranks a measured one; a problem with none scores
every kernel 0 (ties: the caller's name order).
"""

from __future__ import annotations

from typing import Sequence

from ..features.ckname import dispatcher_name
from ..ml.measurements import read_measurements
from ..space.kinds import GEMM, kernel_kind

__all__ = ["MeasuredScorer"]


class MeasuredScorer:
    kind = "measured"

    def __init__(self, path, rows=None, **_ignored):
        """``rows``: the file already read (``workload.perf.read_measurement_file``), so that a FIFO is read once."""
        self.path = str(path)
        self.data = read_measurements([path], read=None if rows is None else [rows])

    def describe(self) -> str:
        n = len(self.data.by_problem)
        return f"measured TFLOPS from {self.path} ({n} problems; unmeasured kernels score 0)"

    def prepare(self, arch: str, dtype: str) -> None:
        pass

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        out = []
        for problem, config in pairs:
            measured = self.data.by_problem.get(problem)
            if not measured:
                out.append(0.0)
                continue
            v = measured.get(config.name())
            if v is None:  # CK's dispatcher names GEMM kernels only (a depthwise one has just its own name)
                v = measured.get(dispatcher_name(config), 0.0) if kernel_kind(config.kind) is GEMM else 0.0
            out.append(v)
        return out
