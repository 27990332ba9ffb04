"""The human-readable coverage report: uncovered problems first, then a summary.

Kept apart from the CLI so the same rows serve a notebook, and apart from
``coverage`` so the library returns data only.
"""

from __future__ import annotations

from .coverage import NO_KERNELS, CoverageRecord

__all__ = ["coverage_table", "summary"]


def _dims(values: tuple[int, ...]) -> str:
    return "x".join(map(str, values))


def coverage_table(records: list[CoverageRecord], with_kernels: bool = False):
    """(header, rows, summary lines): uncovered (problem, dtype) first, each with its most-blocking rule."""
    header = ["row", "direction", "dtype", "N", "G", "C", "K", "input", "filter", "stride", "pad", "applicable",
              "blocked by"]
    if with_kernels:
        header.append("kernels")
    ordered = sorted(records, key=lambda r: (r.applicable > 0, r.row))
    rows = []
    for r in ordered:
        s = r.problem.spatial()
        p = r.problem
        blocked = "" if r.applicable else (f"{r.blocking_rule} ({r.rejected[0][1]}/{r.candidates})"
                                           if r.rejected else NO_KERNELS)
        row = [str(r.row), p.direction, r.dtype, str(p.N), str(p.G), str(p.C), str(p.K), _dims(s["input"]),
               _dims(s["filter"]), _dims(s["stride"]), _dims(s["pad"]), str(r.applicable), blocked]
        if with_kernels:
            row.append(" ".join(sorted(r.kernels)))
        rows.append(row)
    return header, rows, summary(records)


def summary(records: list[CoverageRecord]) -> list[str]:
    """``covered/total`` per (direction, dtype), in first-seen order, then the total."""
    tally: dict[tuple[str, str], list[int]] = {}
    for r in records:
        count(tally, r)
    return tally_lines(tally)


def count(tally: dict[tuple[str, str], list[int]], r: CoverageRecord) -> None:
    """Add one record to ``tally``: (direction, dtype) -> [covered, total]."""
    g = tally.setdefault((r.problem.direction, r.dtype), [0, 0])
    g[0] += r.applicable > 0
    g[1] += 1


def tally_lines(tally: dict[tuple[str, str], list[int]]) -> list[str]:
    lines = [f"covered {direction} {dtype}: {c}/{t}" for (direction, dtype), (c, t) in tally.items()]
    lines.append(f"covered: {sum(c for c, _ in tally.values())}/{sum(t for _, t in tally.values())}")
    return lines
