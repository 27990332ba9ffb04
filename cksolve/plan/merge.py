"""``plan merge``: the shards' result CSVs checked against their plans and joined into one measurement file.

Each results file belongs to the shard folder it sits in (its ``pairs.csv`` and ``shard.json``). Its
rows are read by the project's one reader (``workload.perf.read_measurement_file``) and checked by the
measurement-hygiene rules (``workload.hygiene.check_rows``: labels that resolve to no kernel, kernels
CK Tile's run-time rules refuse for the problem, runs that wrote too little of their output);
invalid rows are left out and counted by rule. Then each row is matched to its shard's plan by the
problem's dimensions and the label's fields (``candidates.label_key``; problem_idx is never used):

* a row of a planned pair is kept -- once: the pair measured again (in this shard or another) is a
  *duplicate*, an error;
* a row of a planned problem with a label the plan did not ask for is a *by-product* of the runner
  measuring every tile of a run's trait combination (``tile_engine``): dropped and counted, or kept
  with ``keep_extra``;
* a row of a problem the shard never planned is *unplanned*: an error (a file of another plan);
* planned pairs without a valid row are *missing*: counted (the runner only prints its failures).

The merged file has CK's 24 columns (``workload.perf.CK_COLUMNS``), ``problem_idx`` being the pair's
``--problems`` row, rows ordered by that row and then label: ``train`` reads it as it reads CK's files.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..errors import CksolveError, shorten
from ..formats import csv_writer
from ..space.textfile import parse_json, read_text
from ..space.variants import VARIANTS
from ..workload import Problem
from ..workload.hygiene import HygieneOptions, check_rows
from ..workload.perf import CK_COLUMNS, read_measurement_file
from .candidates import label_key
from .layout import PAIRS_COLUMNS, SHARD_FORMAT

__all__ = ["MergeResult", "merge_results", "read_shard_plan"]

_INTS = ("problem", "N", "G", "C", "K", "Di", "Hi", "Wi", "Z", "Y", "X", "stride_d", "stride_h", "stride_w",
         "pad_d", "pad_h", "pad_w", "dilation_d", "dilation_h", "dilation_w", "split_k")


@dataclass
class MergeResult:
    text: str  # the merged CSV
    kept: int = 0
    planned: int = 0
    missing: int = 0
    extra: int = 0  # by-products (dropped unless keep_extra)
    invalid: int = 0
    by_rule: dict = field(default_factory=dict)
    files: int = 0
    missing_pairs: list = field(default_factory=list)  # (row, label), first ones

    def line(self, keep_extra: bool = False) -> str:
        rules = f" ({', '.join(f'{k}: {v}' for k, v in self.by_rule.items())})" if self.by_rule else ""
        extra = "kept" if keep_extra else "dropped"
        return (f"merged {self.files} shard file{'s' if self.files != 1 else ''}: {self.kept} of {self.planned} "
                f"planned pairs measured, {self.missing} missing, {self.extra} by-product rows {extra}, "
                f"{self.invalid} invalid rows left out{rules}")


def read_shard_plan(folder: Path) -> tuple[dict, dict]:
    """(shard.json, {(Problem, label key): (row, label)}) of a shard folder."""
    info = parse_json(read_text(folder / "shard.json", "shard file"), f"{folder / 'shard.json'}: not JSON")
    if not isinstance(info, dict) or info.get("format") != SHARD_FORMAT:
        raise CksolveError(f"{folder / 'shard.json'}: not a cksolve plan shard (no format {SHARD_FORMAT!r})")
    path = folder / "pairs.csv"
    reader = csv.reader(io.StringIO(read_text(path, "plan file")))
    header = next(reader, None)
    if header is None or tuple(header) != PAIRS_COLUMNS:
        raise CksolveError(f"{path}: not a plan's pairs.csv (its header is not {','.join(PAIRS_COLUMNS)})")
    planned: dict = {}
    for row in reader:
        where = f"{path}:{reader.line_num}"
        cells = dict(zip(header, row))
        if len(row) != len(header):
            raise CksolveError(f"{where}: {len(row)} values for {len(header)} columns")
        try:
            ints = {k: int(cells[k]) for k in _INTS}
            problem = Problem(**{k: v for k, v in ints.items() if k != "problem"}, direction=cells["direction"])
        except (ValueError, TypeError, CksolveError) as exc:
            raise CksolveError(f"{where}: {shorten(str(exc), 160, quote=False)}") from None
        key = label_key(cells["label"])
        if key is None:
            raise CksolveError(f"{where}: label {shorten(cells['label'], 120)} is not a kernel name")
        planned[(problem, key)] = (ints["problem"], cells["label"])
    return info, planned


def _raw(path: Path, text: str) -> dict:
    """{line: {column: cell}} of a CSV file's rows (the cells the merged file copies); {} for JSONL."""
    if text.lstrip().startswith("{"):
        out = {}
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                out[n] = parse_json(line, f"{path}:{n}: not a JSON object")
        return out
    reader = csv.reader(io.StringIO(text, newline=""))
    header = None
    out = {}
    for row in reader:
        if not row or not "".join(row).strip():
            continue
        if header is None:
            header = [c.strip() for c in row]
            continue
        out[reader.line_num] = dict(zip(header, row))
    return out


def merge_results(paths: Sequence, keep_extra: bool = False) -> MergeResult:
    """Check and merge the results files (each in its shard folder)."""
    res = MergeResult("")
    seen: dict = {}  # (Problem, key) -> where first measured
    out_rows = []
    planned_all: dict = {}
    for path in map(Path, paths):
        rows = read_measurement_file(path)
        if not (path.parent / "shard.json").is_file():
            raise CksolveError(f"{path}: not in a shard folder of a plan (no shard.json beside it)")
        info, planned = read_shard_plan(path.parent)
        overlap = next((pk for pk in planned if pk in planned_all), None)
        if overlap is not None:
            raise CksolveError(f"{path.parent}: plans pair {planned[overlap][1]} of workload row "
                               f"{planned[overlap][0]} that another shard given also plans (the same shard twice?)")
        planned_all.update(planned)
        rows_of = {p: r for (p, _), (r, _) in planned.items()}
        raw = _raw(path, read_text(path, "measurement file"))
        kept, hyg = check_rows(rows, HygieneOptions(info.get("arch", "")))
        res.files += 1
        res.invalid += hyg.invalid_rows
        for rule, n in hyg.by_rule.items():
            res.by_rule[rule] = res.by_rule.get(rule, 0) + n
        for m in kept:
            key = label_key(m.kernel)
            if key is None:
                raise CksolveError(f"{m.where}: kernel {shorten(m.kernel, 120)} is not a kernel name")
            problem = m.problem(VARIANTS[key[0]].direction)
            if problem not in rows_of:
                raise CksolveError(f"{m.where}: unplanned: problem {problem.spec()} is not in the plan of "
                                   f"{path.parent}")
            pk = (problem, key)
            if pk in seen:
                raise CksolveError(f"{m.where}: duplicate: {shorten(m.kernel, 120)} on this problem was "
                                   f"measured already ({seen[pk]})")
            seen[pk] = m.where
            if pk not in planned:
                res.extra += 1
                if not keep_extra:
                    continue
            else:
                res.kept += 1
            cells = raw.get(m.line, {})
            out_rows.append((rows_of[problem], m.kernel, problem, cells, m))
        res.planned += len(planned)
        for pk, (row, label) in sorted(planned.items(), key=lambda t: t[1]):
            if pk not in seen:
                res.missing += 1
                if len(res.missing_pairs) < 20:
                    res.missing_pairs.append((row, label))
    out_rows.sort(key=lambda t: (t[0], t[1]))
    buf = io.StringIO()
    w = csv_writer(buf)
    w.writerow(CK_COLUMNS)
    for row, kernel, p, cells, m in out_rows:
        dims = [getattr(p, c) for c in CK_COLUMNS[2:21]]
        w.writerow([kernel, row, *dims, cells.get("latency_ms", ""), repr(m.tflops),
                    "" if m.non_zero is None else cells.get("non_zero", m.non_zero)])
    res.text = buf.getvalue()
    return res
