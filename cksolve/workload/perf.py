"""Measurement files: the one reader of ``minimize --perf``, ``train``/``evaluate`` and the measured scorer.

A file is CSV or JSONL with the problem's fields (CK's names and defaults), the
kernel's name (``kernel``, or ``kernel_name`` as CK's parquet spells it) and
``tflops`` (higher is better) or ``time_ms`` (lower is better; scored as
1 / time_ms when there is no tflops). CK's tile-engine benchmark CSV is one
(``CK_COLUMNS``: ``tile_engine/ops/grouped_conv/grouped_conv_full_benchmark.py``
@54f25023e8af49decbd174c8a6154356e8f815d0); its bookkeeping columns are read
and ignored (``IGNORED``: ``problem_idx`` among them -- problems are keyed by
their dimensions, never by a row index). Which rows can be trusted (the
kernel a label stands for can run the problem; the run wrote its output) is
``hygiene``'s, on the rows read here.

What a number is (``_number``: ASCII decimal digits, JSON numbers as they are,
JSON ``true`` is not 1) and which columns a file may have (``COLUMNS``, one
header check: ``problem.csv_header``) are said here once. A problem's
direction is its kernel's (the caller says how to read the kernel's name); a
``direction`` column, when given, must agree.

``minimize --perf`` (``read_perf``): a problem with at least one measured
kernel scores its unmeasured kernels 0, so an unknown pair is never preferred
over a measured one; a problem with no measurement at all scores every kernel 0,
so any kernel that runs it is good enough.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import CksolveError
from ..space.memos import MEMOS
from ..space.textfile import read_text
from ..space.variants import VARIANTS
from .problem import FIELDS, Problem, ProblemError, _csv_rows, _echo, _from_mapping, _int, _jsonl_rows

__all__ = ["read_perf", "perf_scores", "measured_scores", "read_measurement_file", "Measurement", "CK_COLUMNS",
           "COLUMNS", "MADE_UP"]

#: CK's tile-engine CSV header, in its order
CK_COLUMNS = ("kernel", "problem_idx", "N", "C", "K", "G", "Di", "Hi", "Wi", "Z", "Y", "X", "stride_d", "stride_h",
              "stride_w", "pad_d", "pad_h", "pad_w", "dilation_d", "dilation_h", "dilation_w", "latency_ms", "tflops",
              "non_zero")
#: The columns of a measurement file besides the problem's fields (``non_zero``: the output elements the run
#: wrote, which ``hygiene`` checks).
MEASURES = ("kernel", "kernel_name", "tflops", "time_ms", "non_zero")
#: Columns read and ignored: CK's bookkeeping (``latency_ms`` is its time; tflops is what counts).
IGNORED = ("problem_idx", "latency_ms", "bandwidth_gb_s", "run_id", "is_valid", "error_msg")
#: The ``run_id`` of a MADE-UP row (``cksolve.ml.madeup``): CK's converter ignores the column, cksolve carries it.
MADE_UP = "made_up"
#: Every column a measurement file may have.
COLUMNS = (*FIELDS, *MEASURES, *IGNORED)
_INTEGERS = frozenset(FIELDS) - {"direction"}
_TEXT = re.compile(r"\S")


@dataclass(frozen=True, slots=True)
class Measurement:
    """One row: its file and line, the kernel's name as written, its score (TFLOPS, or 1 / time_ms; 0 or
    more) and the problem's fields given (integers)."""

    path: str
    line: int
    kernel: str
    tflops: float
    values: tuple  # ((field, integer), ...) of the fields given, without direction
    direction: str | None  # the row's direction column, if any
    non_zero: float | None = None  # the output elements the run wrote (CK's ``non_zero``), if given
    made_up: bool = False  # run_id is MADE_UP: the row was written by cksolve.ml.madeup, not measured

    @property
    def where(self) -> str:
        """``file:line``, as an error names the row."""
        return f"{self.path}:{self.line}"

    def problem(self, direction: str) -> Problem:
        """The row's problem, in the direction of its kernel (``direction``)."""
        if self.direction is not None and self.direction != direction:
            raise ProblemError(f"{self.where}: field direction {_echo(self.direction)!r} is not the direction of "
                               f"kernel {_echo(self.kernel)!r} ({direction})")
        return _problem(self.where, self.values, direction)


def _problem(where: str, values: tuple, direction: str) -> Problem:
    try:
        return _cached_problem(values, direction)
    except ProblemError as exc:
        raise ProblemError(f"{where}: {exc}") from None


@MEMOS.cached("workload.perf._cached_problem", maxsize=4096)  # a benchmark repeats each problem per kernel
def _cached_problem(values: tuple, direction: str) -> Problem:
    return _from_mapping({**dict(values), "direction": direction})


def read_measurement_file(path: str | Path) -> list[Measurement]:
    """Every row of the file, read once (a FIFO or a process substitution works), checked: its columns, its
    numbers, a kernel name on every row; an error names the file, the line and the value."""
    try:
        text = read_text(path, "measurement file")
    except CksolveError as exc:  # the workload face raises ProblemError for every bad file
        raise ProblemError(str(exc)) from None
    start = _TEXT.search(text)  # the first line with text starts with "{": JSONL (as problem.read_rows decides)
    jsonl = start is not None and start.group() == "{"
    rows = _jsonl_rows(path, text) if jsonl else _csv_rows(path, text, COLUMNS)  # as problem.read_rows
    read: dict = {}  # the problem's cells as written -> as integers (a problem's rows are read once)
    out = []
    name = str(path)
    shared: dict = {}  # a benchmark repeats each kernel once per problem: one string each
    for line, row in rows:
        where = f"{path}:{line}"
        extra = next((k for k in row if k not in COLUMNS), None)
        if extra is not None:  # a JSONL key (a CSV header was checked as a whole)
            raise ProblemError(f"{where}: unknown field {_echo(extra)!r}")
        kernel = row.get("kernel")
        if kernel in (None, ""):
            kernel = row.get("kernel_name")
        kernel = str(kernel if kernel is not None else "").strip()
        if not kernel:
            raise ProblemError(f"{where}: no 'kernel' value")
        direction = row.get("direction")
        direction = None if direction is None or str(direction).strip() == "" else str(direction).strip()
        cells = tuple((k, v) for k, v in row.items() if k in _INTEGERS)
        key = tuple((k, type(v), v) for k, v in cells) if jsonl else cells  # JSON: true == 1 in Python
        try:
            values = read.get(key)
        except TypeError:  # a JSON list or object: _int names it
            key = values = None
        if values is None:
            try:  # the integers are read here, so that every reader refuses a bad one before its own checks
                values = tuple((k, _int(k, v, False)) for k, v in cells if v is not None and str(v).strip() != "")
            except ProblemError as exc:
                raise ProblemError(f"{where}: {exc}") from None
            if key is not None:
                read[key] = values
        kernel = shared.setdefault(kernel, kernel)
        out.append(Measurement(name, line, kernel, _score(where, row.get("tflops"), row.get("time_ms")), values,
                               direction, _non_zero(where, row.get("non_zero")), row.get("run_id") == MADE_UP))
    if not out:
        raise ProblemError(f"{path}: no measurements")
    return out


def _non_zero(where: str, raw) -> float | None:
    """The ``non_zero`` count: a number, not negative; None when the cell is empty or absent."""
    if raw is None or str(raw).strip() == "":
        return None
    value = _number(where, "non_zero", raw)
    if value < 0:
        raise ProblemError(f"{where}: field non_zero: {value} must not be negative")
    return value


def _score(where: str, tflops, time_ms) -> float:
    """TFLOPS, or 1 / time_ms without them: a finite number, not negative."""
    if tflops not in (None, ""):
        score = _number(where, "tflops", tflops)
        if score < 0:
            raise ProblemError(f"{where}: field tflops: {score} must not be negative")
        return score
    if time_ms in (None, ""):
        raise ProblemError(f"{where}: needs 'tflops' or 'time_ms'")
    t = _number(where, "time_ms", time_ms)
    if t <= 0:
        raise ProblemError(f"{where}: field time_ms: {t} must be positive")
    score = 1.0 / t
    if score == float("inf"):  # 1 / 1e-320: a score no comparison can use
        raise ProblemError(f"{where}: field time_ms: {t!r} is too small (1 / time_ms is not a finite number)")
    return score


def read_perf(path: str | Path, known_kernels: set[str] | None = None,
              rows: list[Measurement] | None = None) -> dict[Problem, dict[str, float]]:
    """{problem: {kernel: score}} (``rows``: the file already read by ``read_measurement_file``)."""
    return perf_scores(read_measurement_file(path) if rows is None else rows, known_kernels)


def perf_scores(rows: list[Measurement], known_kernels: set[str] | None = None) -> dict[Problem, dict[str, float]]:
    """{problem: {kernel: score}} of rows naming kernels by their full names; the best measurement of a
    repeated pair counts."""
    out: dict[Problem, dict[str, float]] = {}
    for m in rows:
        if known_kernels is not None and m.kernel not in known_kernels:
            raise ProblemError(f"{m.where}: unknown kernel {m.kernel[:120]!r} (not a kernel of the rule set for "
                               f"the arch)")
        pairs = out.setdefault(m.problem(_direction(m.where, m.kernel)), {})
        pairs[m.kernel] = max(pairs.get(m.kernel, 0.0), m.tflops)
    return out


def measured_scores(measured: Mapping[str, float] | None, kernels: Sequence[str]) -> list[float]:
    """The one measured rule (``minimize --perf`` and the measured scorer): each kernel's best measurement on a
    problem (``measured``: the problem's {kernel: score}, or None), and 0 for a kernel the problem's
    measurements leave out -- so an unmeasured kernel never outranks a measured one, and a problem with no
    measurement scores every kernel 0."""
    if not measured:
        return [0.0] * len(kernels)
    return [measured.get(k, 0.0) for k in kernels]


def _direction(where: str, kernel: str) -> str:
    try:
        return _name_direction(kernel)
    except CksolveError as exc:
        raise ProblemError(f"{where}: {exc}") from None


@MEMOS.cached("workload.perf._name_direction", maxsize=1 << 16)
def _name_direction(kernel: str) -> str:
    from ..space.naming import parse_name  # deferred: only a perf file needs kernel names read

    return VARIANTS[parse_name(kernel).variant].direction


#: A measurement as text: ASCII decimal digits, an optional fraction and exponent (float() would also
#: read '1_0' as 10 and other scripts' digits); JSON numbers are taken as they are, JSON true is not 1.
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?", re.ASCII)


def _number(where: str, field: str, raw) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) and not _DECIMAL.fullmatch(str(raw).strip()):
        shown = str(raw).lower() if isinstance(raw, bool) else repr(str(raw)[:60])
        raise ProblemError(f"{where}: field {field}: {shown} is not a number")
    try:
        value = float(raw.strip() if isinstance(raw, str) else raw)
    except (TypeError, ValueError, OverflowError):  # OverflowError: a JSON integer of 400 digits
        raise ProblemError(f"{where}: field {field}: {str(raw)[:60]!r} is not a finite number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ProblemError(f"{where}: field {field}: {raw!r} is not a finite number")
    return value
