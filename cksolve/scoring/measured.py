"""The measured scorer: a pair's measured TFLOPS (from a measurement file, ``ml.training_data``).

The file's rows are checked first (``workload.hygiene``, for the arch the scorer is
prepared for: invalid rows are left out unless ``keep_invalid``); the verdict is
``hygiene``. A config is found as the kernel its labels resolved to (``workload.labels``:
a full name is itself; the best measurement of a kernel's labels counts) or, failing that,
under its dispatcher short name (a label kept with ``keep_invalid`` that resolves to nothing).
A problem with some measurement scores its unmeasured kernels 0, so an
unmeasured kernel never outranks a measured one; a problem with none scores
every kernel 0 (ties: the caller's name order) -- so a command ranking by measurements first asks
``unmeasured`` and says how many problems that is (``select``/``search`` refuse unless
``--allow-unmeasured``). A dtype the file holds no kernel of is refused in ``prepare``. The file does not say
its arch (CK's benchmark CSV has no arch column): which GPU measured it is the caller's word.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..errors import CksolveError, shorten
from ..features.ckname import dispatcher_name
from ..ml.training_data import read_measurements
from ..space.kinds import GEMM, kernel_kind
from ..workload.hygiene import HygieneOptions
from ..workload.perf import measured_scores, read_measurement_file
from .scorer_base import ScorerBase

__all__ = ["MeasuredScorer", "unmeasured_note"]


class MeasuredScorer(ScorerBase):
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
        self._held: list = []  # the dtypes of the valid rows' kernels

    def describe(self) -> str:
        n = len(self.data.by_problem) if self.data is not None else "?"
        return f"measured TFLOPS from {self.path} ({n} problems; unmeasured kernels score 0)"

    def dtypes(self) -> list[str]:
        """The dtypes of the kernels the file measured (tflops > 0, valid rows: after ``prepare``)."""
        return list(self._held)

    def prepare(self, arch: str, dtype: str) -> None:
        if self._arch != arch:
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
            self._held = sorted({self.data.kernels[n].short.dtype for measured in self.data.by_problem.values()
                                 for n in measured})
        held = self._held
        if dtype not in held:  # every score would be 0: a ranking by name order, not by measurements
            what = f"{' and '.join(held)} measurements, no {dtype} one" if held else f"no valid measurement"
            raise CksolveError(f"{{opt:measurements}} {shorten(self.path, quote=False)} holds {what}: give "
                               + (f"{{opt:dtype}} {' or '.join(held)}, or another file" if held else "another file"))

    def unmeasured(self, problems, dtype: str) -> list[int]:
        """The positions of ``problems`` with no measured kernel of ``dtype`` (each of their kernels scores 0)."""
        out = []
        for i, problem in enumerate(problems):
            measured = self.data.by_problem.get(problem) or {}
            if not any(self.data.kernels[n].short.dtype == dtype for n in measured):
                out.append(i)
        return out

    def unmeasured_note(self, problems, dtype: str, allow: bool) -> str | None:
        """:func:`unmeasured_note` of this scorer (what a command calls: no import of this module needed)."""
        return unmeasured_note(self, problems, dtype, allow)

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        self.prepare(arch, dtype)
        out = []
        for problem, config in pairs:  # the rule is measured_scores's: a kernel left out scores 0
            measured = self.data.by_problem.get(problem)
            v = measured_scores(self._kernels.get(problem), [config.name()])[0]
            if not v and measured and kernel_kind(config.kind) is GEMM:  # CK's dispatcher names GEMM kernels only
                v = measured_scores(measured, [dispatcher_name(config)])[0]
            out.append(v)
        return out


def unmeasured_note(scorer: MeasuredScorer, problems: list, dtype: str, allow: bool) -> str | None:
    """``None`` when the file measured every problem; else the note to print (``allow``) -- or, without
    ``allow``, the refusal: a ranking of score-0 kernels is the name order, not an answer."""
    missing = scorer.unmeasured(problems, dtype)
    if not missing:
        return None
    which = ("the problem" if len(problems) == 1  # numbered from 0, as select's records number problems
             else f"{len(missing)} of {len(problems)} problems (the first: problem {missing[0]})")
    its = "its" if len(missing) == 1 else "their"
    said = f"{shorten(scorer.path, quote=False)} has no {dtype} measurement for {which}"
    if not allow:
        raise CksolveError(f"{{opt:measurements}} {said}; give {{opt:allow_unmeasured}} to list {its} kernels "
                           f"anyway (each scores 0: name order)")
    return f"note: {said}: {its} kernels all score 0, listed in name order"
