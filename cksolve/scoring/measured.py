"""The measured scorer: a pair's measured TFLOPS (from a measurement file, ``ml.measurements``).

A config is found under its full name or, failing that (a GEMM config), its dispatcher short
name (CK's benchmark names many configs alike: they share the measurement).
A problem with some measurement scores its unmeasured kernels 0, so an
unmeasured kernel never outranks a measured one; a problem with none scores
every kernel 0 (ties: the caller's name order) -- so a command ranking by measurements first asks
``unmeasured`` and says how many problems that is (``select``/``search`` refuse unless
``--allow-unmeasured``). A dtype the file holds no kernel of is refused in ``prepare``. The file does not say
its arch (CK's benchmark CSV has no arch column): which GPU measured it is the caller's word.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import CksolveError, shorten
from ..features.ckname import dispatcher_name
from ..ml.measurements import read_measurements
from ..space.kinds import GEMM, kernel_kind

__all__ = ["MeasuredScorer", "unmeasured_note"]


class MeasuredScorer:
    kind = "measured"

    def __init__(self, path, rows=None, **_ignored):
        """``rows``: the file already read (``workload.perf.read_measurement_file``), so that a FIFO is read once."""
        self.path = str(path)
        self.data = read_measurements([path], read=None if rows is None else [rows])

    def describe(self) -> str:
        n = len(self.data.by_problem)
        return f"measured TFLOPS from {self.path} ({n} problems; unmeasured kernels score 0)"

    def dtypes(self) -> list[str]:
        """The dtypes of the kernels the file measured (tflops > 0)."""
        return sorted({self.data.kernels[n].short.dtype for measured in self.data.by_problem.values()
                       for n in measured})

    def prepare(self, arch: str, dtype: str) -> None:
        held = self.dtypes()
        if dtype not in held:  # every score would be 0: a ranking by name order, not by measurements
            raise CksolveError(f"{{opt:measurements}} {shorten(self.path, quote=False)} holds "
                               f"{' and '.join(held)} measurements, no {dtype} one: give {{opt:dtype}} "
                               f"{' or '.join(held)}, or another file")

    def unmeasured(self, problems, dtype: str) -> list[int]:
        """The positions of ``problems`` with no measured kernel of ``dtype`` (each of their kernels scores 0)."""
        out = []
        for i, problem in enumerate(problems):
            measured = self.data.by_problem.get(problem) or {}
            if not any(self.data.kernels[n].short.dtype == dtype for n in measured):
                out.append(i)
        return out

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
