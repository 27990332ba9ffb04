"""Measured results (``minimize --perf``): the score of a (problem, kernel) pair from a benchmark.

A file is CSV or JSONL with the problem's fields, ``kernel`` (its name) and
``tflops`` (higher is better) or ``time_ms`` (lower is better; scored as
1 / time_ms) -- what CK's tile-engine benchmark writes. A problem with at least
one measured kernel scores its unmeasured kernels 0, so an unknown pair is never
preferred over a measured one; a problem with no measurement at all scores every
kernel 0, so any kernel that runs it is good enough.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from .problem import FIELDS, Problem, ProblemError, _from_mapping

__all__ = ["read_perf"]

MAX_FILE_BYTES = 256 * 1024 * 1024


def read_perf(path: str | Path, known_kernels: set[str] | None = None) -> dict[Problem, dict[str, float]]:
    """{problem: {kernel: score}}; the best measurement of a repeated pair counts."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ProblemError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ProblemError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ProblemError(f"{path}: not UTF-8 (byte {exc.start})") from None
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    rows = list(_jsonl(path, text) if first.lstrip().startswith("{") else _csv(path, text))
    if not rows:
        raise ProblemError(f"{path}: no measurements")
    out: dict[Problem, dict[str, float]] = {}
    for line, row in rows:
        where = f"{path}:{line}"
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


def _number(where: str, field: str, raw) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ProblemError(f"{where}: field {field}: {str(raw)[:60]!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ProblemError(f"{where}: field {field}: {raw!r} is not a finite number")
    return value


def _csv(path: Path, text: str):
    reader = csv.reader(io.StringIO(text))
    header = None
    for row in reader:
        if not row or all(not c.strip() for c in row):
            continue
        if header is None:
            header = [h.strip() for h in row]
            continue
        if len(row) != len(header):
            raise ProblemError(f"{path}:{reader.line_num}: {len(row)} values for {len(header)} columns")
        yield reader.line_num, dict(zip(header, row))


def _jsonl(path: Path, text: str):
    for line, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except (ValueError, RecursionError):
            raise ProblemError(f"{path}:{line}: not a JSON object") from None
        if not isinstance(row, dict):
            raise ProblemError(f"{path}:{line}: not a JSON object")
        yield line, row
