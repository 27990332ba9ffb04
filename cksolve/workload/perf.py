"""Measured results (``minimize --perf``): the score of a (problem, kernel) pair from a benchmark.

A file is CSV or JSONL with the problem's fields, ``kernel`` (its name) and
``tflops`` (higher is better) or ``time_ms`` (lower is better; scored as
1 / time_ms) -- what CK's tile-engine benchmark writes. A problem with at least
one measured kernel scores its unmeasured kernels 0, so an unknown pair is never
preferred over a measured one; a problem with no measurement at all scores every
kernel 0, so any kernel that runs it is good enough.
"""

from __future__ import annotations

import re
from pathlib import Path

from .problem import FIELDS, Problem, ProblemError, _from_mapping, read_rows

__all__ = ["read_perf"]

#: The columns of a measured-results file besides the problem's fields.
MEASURES = ("kernel", "tflops", "time_ms")


def read_perf(path: str | Path, known_kernels: set[str] | None = None) -> dict[Problem, dict[str, float]]:
    """{problem: {kernel: score}}; the best measurement of a repeated pair counts."""
    rows = read_rows(path, (*FIELDS, *MEASURES))
    if not rows:
        raise ProblemError(f"{path}: no measurements")
    out: dict[Problem, dict[str, float]] = {}
    for where, row in rows:
        kernel = str(row.pop("kernel", "") or "").strip()
        if not kernel:
            raise ProblemError(f"{where}: no 'kernel' value")
        if known_kernels is not None and kernel not in known_kernels:
            raise ProblemError(f"{where}: unknown kernel {kernel[:120]!r} (not a kernel of the rule set for the arch)")
        tflops, time_ms = row.pop("tflops", None), row.pop("time_ms", None)
        score = _number(where, "tflops", tflops) if tflops not in (None, "") else None
        if score is None:
            if time_ms in (None, ""):
                raise ProblemError(f"{where}: needs 'tflops' or 'time_ms'")
            t = _number(where, "time_ms", time_ms)
            if t <= 0:
                raise ProblemError(f"{where}: field time_ms: {t} must be positive")
            score = 1.0 / t
        if score < 0:
            raise ProblemError(f"{where}: field tflops: {score} must not be negative")
        extra = [k for k in row if k not in FIELDS]
        if extra:
            raise ProblemError(f"{where}: unknown field {extra[0][:60]!r}")
        try:
            problem = _from_mapping(row)
        except ProblemError as exc:
            raise ProblemError(f"{where}: {exc}") from None
        pairs = out.setdefault(problem, {})
        pairs[kernel] = max(pairs.get(kernel, 0.0), score)
    return out


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

