"""A workload as integer columns: read, validated and collapsed without a Python object per row.

Reading a CSV row by row into ``Problem`` objects cost about 0.25 ms a row (a
million-row file took minutes and gigabytes). A plain workload file -- CK's
fields only, ASCII, no quoting -- is parsed here by numpy's C reader into one
int64 matrix, checked a column at a time, and its identical rows collapsed
before any rule runs. What the columns cannot say exactly (a bad value's
message, quoting, JSONL) goes through ``problem.read_workload``, the reader
that defines the answers: the first bad row found by the column checks is
re-read by it, so its one-line error is the same as it always was. Either way
the file is opened and read once.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .problem_facts import output_sizes
from .problem import (DIRECTIONS, FIELDS, MAX_DIGITS, RECORD_KEYS, Problem, ProblemError, _from_mapping,
                      check_label, csv_header, read_file, read_workload, skipped)

__all__ = ["DIRECTION_NAMES", "ProblemTable", "ndims", "problem_of", "read_problems", "read_table", "rows_of",
           "table_of"]

#: Direction names in code order: the direction column holds the index of the name.
DIRECTION_NAMES: tuple[str, ...] = tuple(DIRECTIONS)
DIRECTION = FIELDS.index("direction")
INTS = tuple(i for i, f in enumerate(FIELDS) if f != "direction")
#: Field values at or above this are checked one row at a time, and decided alone on Python ints
#: (products of two fields then stay inside int64 in the column checks and the rules over columns).
FIELD_LIMIT = 2 ** 31
#: The longest direction cell the C reader keeps; a cell this long may have been cut, so the row reader decides.
_DIRECTION_WIDTH = 16
#: A value of more than 18 digits is at least 10**18 (``_invalid`` finds it) or starts with a zero (this does).
_DIGITS_19 = re.compile(r"0[0-9]{18}")
_MAX_DIGITS_VALUE = 10 ** MAX_DIGITS
#: A row the row reader skips as a comment (its first cell starts with '#'), which the C reader would read.
_COMMENT = re.compile(r"(?:^|\n)[ \t]*#")
_COL = {f: i for i, f in enumerate(FIELDS)}
_POSITIVE = [_COL[f] for f in ("N", "G", "C", "K", "Di", "Hi", "Wi", "Z", "Y", "X", "stride_d", "stride_h",
                               "stride_w", "dilation_d", "dilation_h", "dilation_w", "split_k")]
_PADS = [_COL[f] for f in ("pad_d", "pad_h", "pad_w")]
_DIMS = [(_COL[i], _COL[f], _COL[f"stride_{d}"], _COL[f"pad_{d}"], _COL[f"dilation_{d}"])
         for i, f, d in (("Di", "Z", "d"), ("Hi", "Y", "h"), ("Wi", "X", "w"))]


@dataclass
class ProblemTable:
    """The rows of a workload: ``values`` (rows, FIELDS) int64 with the direction as its code, labels if any."""

    values: np.ndarray
    label_columns: tuple[str, ...] = ()
    labels: Sequence[tuple] = ()
    big: np.ndarray | None = None  # rows with a field past 2**31 (the column engine leaves them to the per-pair path)
    _distinct: tuple[np.ndarray, np.ndarray] | None = None

    def __post_init__(self):
        if self.big is None:
            self.big = (np.abs(self.values[:, INTS]) >= FIELD_LIMIT).any(axis=1)

    def __len__(self) -> int:
        return len(self.values)

    def problem(self, row: int) -> Problem:
        return problem_of(self.values[row])

    def distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """(first row of each distinct problem, distinct index of every row): identical rows are one problem."""
        if self._distinct is None:
            self._distinct = distinct_rows(self.values)
        return self._distinct


def problem_of(values: np.ndarray) -> Problem:
    kwargs = {f: int(v) for f, v in zip(FIELDS, values.tolist())}
    kwargs["direction"] = DIRECTION_NAMES[kwargs["direction"]]
    return Problem(**kwargs)


def ndims(values: np.ndarray) -> np.ndarray:
    """CK's rule per row: 3D when Di > 1, Z > 1 or pad_d > 0."""
    return np.where((values[:, _COL["Di"]] > 1) | (values[:, _COL["Z"]] > 1) | (values[:, _COL["pad_d"]] > 0), 3, 2)


def distinct_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each distinct row, in first-seen order; distinct index of every row).

    Rows are hashed to one integer and the hashes made unique (a sort of one
    column, not of twenty); a collision -- two different rows with one hash --
    is caught by comparing every row with its representative, and then the rows
    themselves are made unique.
    """
    if not len(values):
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    mult = np.random.default_rng(20).integers(1, 2 ** 62, size=values.shape[1], dtype=np.uint64) | np.uint64(1)
    h = np.zeros(len(values), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(values.shape[1]):  # a column at a time: no (rows x columns) temporaries
            h += values[:, k].astype(np.uint64) * mult[k]
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    same = len(first) == len(values) or all(np.array_equal(values[first[inverse], k], values[:, k])
                                            for k in range(values.shape[1]))
    if not same:
        rows = np.ascontiguousarray(values).view(np.dtype((np.void, values.shape[1] * 8))).ravel()
        _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    # first-seen order, as a dict of problems would give
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.ravel()]


def rows_of(problems: Sequence[Problem]) -> list[list[int]]:
    """Each problem's fields in FIELDS order, the direction as its code (Python ints: any size)."""
    code = {d: i for i, d in enumerate(DIRECTION_NAMES)}
    return [[code[v] if f == "direction" else v for f, v in zip(FIELDS, (getattr(p, f) for f in FIELDS))]
            for p in problems]


def table_of(problems: Sequence[Problem], label_columns: tuple[str, ...] = (), labels: Sequence[tuple] = ()
             ) -> ProblemTable:
    """The table of problems read from a file (a JSONL file, labels): values of at most 18 digits."""
    values = np.array(rows_of(problems), dtype=np.int64).reshape(len(problems), len(FIELDS))
    return ProblemTable(values, label_columns, labels)


def read_table(path: str | Path) -> ProblemTable:
    """The workload file as a table, the one reader of every ``--problems``: the file is opened and read once
    (a FIFO or a process substitution works), its header checked before the body is read; a plain CSV is
    parsed by columns, anything else by ``read_workload`` (the row reader), whose errors are the answer, word
    for word. Label columns (a model or layer name) are kept."""
    text = read_file(Path(path), head=lambda head: _check_header(path, head))
    table = _plain_csv(path, text)
    if table is None:
        problems, label_columns, labels = read_workload(path, text)
        table = table_of(problems, label_columns, labels)
    return table


def read_problems(path: str | Path) -> list[Problem]:
    """The problems of a workload file (CSV with CK's header, or JSONL with the same keys), in file order,
    label columns read and dropped: ``read_table``'s rows, one ``Problem`` per distinct row shared by its
    copies."""
    table = read_table(path)
    first, inverse = table.distinct()
    distinct = [table.problem(int(f)) for f in first]
    return [distinct[k] for k in inverse.tolist()]


def _check_header(path, head: str) -> None:
    """The CSV header's errors, from the first lines of the file (before the body is read)."""
    if '"' in head:
        return  # a quoted header may span lines: the whole file's reading judges it
    reader = csv.reader(io.StringIO(head))
    for row in reader:
        if skipped(row):
            continue
        if not row[0].lstrip().startswith("{"):  # JSONL has no header
            for column in csv_header(path, reader.line_num, row, FIELDS, labels=True):
                if column not in FIELDS:
                    check_label(path, column)
        return


def _plain_csv(path, text: str) -> ProblemTable | None:
    """The table of a CSV with CK's fields (and label columns), ASCII and unquoted; None when the row reader
    must decide."""
    if ('"' in text or "\x00" in text or not text.isascii() or text.count("\r") != text.count("\r\n")
            or _DIGITS_19.search(text) or ("#" in text and _COMMENT.search(text))):
        return None  # quotes, NUL, non-ASCII, a lone CR, 19 digits, a comment row: the row reader's cases
    reader = csv.reader(io.StringIO(text))
    header = None
    for row in reader:
        if skipped(row):
            continue
        if row[0].lstrip().startswith("{"):
            return None  # JSONL
        header = csv_header(path, reader.line_num, row, FIELDS, labels=True)
        break
    if header is None or len(set(header)) != len(header) or set(header) & set(RECORD_KEYS):
        return None  # a label named like a record key: the row reader's error
    header_line = reader.line_num
    label_columns = tuple(h for h in header if h not in FIELDS)
    dtype = [(h, f"U{_DIRECTION_WIDTH}" if h == "direction" else "i8" if h in FIELDS else "O") for h in header]
    # numpy reads the text a line at a time from its ASCII bytes (a StringIO of the text would hold it four
    # times over); the file is not opened again.
    lines = io.TextIOWrapper(io.BytesIO(text.encode("ascii")), encoding="ascii", newline=None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "no data": the row reader says so in its words
            cells = np.loadtxt(lines, delimiter=",", dtype=dtype, ndmin=1, comments=None, skiprows=header_line)
    except ValueError:
        return None
    values = np.empty((len(cells), len(FIELDS)), dtype=np.int64)
    for f in FIELDS:
        if f not in header:
            values[:, _COL[f]] = Problem.__dataclass_fields__[f].default if f != "direction" else 0
    for f in header:
        if f != "direction" and f in FIELDS:
            values[:, _COL[f]] = cells[f]
    if "direction" in header:
        codes = _direction_codes(cells["direction"])
        if codes is None:
            return None
        values[:, DIRECTION] = codes
    labels = LabelRows([_shared(cells[c].tolist()) for c in label_columns]) if label_columns else ()
    del cells
    if not len(values):
        return None
    first, inverse = distinct_rows(values)  # checked once per distinct problem: its first row is the first bad
    bad, big = _invalid(values[first])
    if bad.any():
        _raise_first(Path(path), text[_offset_of_line(text, header_line):], header_line, header,
                     int(first[bad].min()))
        return None  # the row reader finds nothing wrong with it: let it read the file
    return ProblemTable(values, label_columns, labels, big=big[inverse], _distinct=(first, inverse))


class LabelRows:
    """Label columns' text by row (``labels[row]``: a tuple, ``labels[a:b]``: a list of them), kept as columns."""

    def __init__(self, columns: list[list[str]]):
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, at):
        if isinstance(at, slice):
            return list(zip(*(c[at] for c in self.columns)))
        return tuple(c[at] for c in self.columns)


def _shared(cells: list[str]) -> list[str]:
    """The cells with one string object per distinct text (a label column repeats a few names)."""
    one: dict[str, str] = {}
    return [one.setdefault(c, c) for c in cells]


def _direction_codes(cells: np.ndarray) -> np.ndarray | None:
    """Each direction cell's code (-1: unknown); None when a cell may have been cut to the reader's width."""
    codes = np.full(len(cells), -1, dtype=np.int64)
    codes[cells == ""] = 0  # an empty cell takes CK's default
    for i, name in enumerate(DIRECTION_NAMES):
        codes[cells == name] = i
    rest = np.flatnonzero(codes < 0)
    if len(rest):  # spaces around a name, or no name at all: as the row reader strips them
        names, index = np.unique(np.char.strip(cells[rest]), return_inverse=True)
        if any(len(n) >= _DIRECTION_WIDTH for n in names.tolist()):
            return None
        known = {"": 0, **{d: i for i, d in enumerate(DIRECTION_NAMES)}}
        codes[rest] = np.array([known.get(n, -1) for n in names.tolist()], dtype=np.int64)[index.ravel()]
    return codes


def _invalid(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows ``Problem`` would refuse, rows with a value past ``FIELD_LIMIT``: ``Problem`` itself checks those)."""
    col = {f: values[:, i] for f, i in _COL.items()}
    bad = values[:, DIRECTION] < 0
    big = np.zeros(len(values), dtype=bool)
    for i in _POSITIVE:
        bad |= values[:, i] < 1
    for i in _PADS:
        bad |= values[:, i] < 0
    for i in INTS:
        big |= np.abs(values[:, i]) >= FIELD_LIMIT
        bad |= (values[:, i] >= _MAX_DIGITS_VALUE) | (values[:, i] <= -_MAX_DIGITS_VALUE)
    safe = ~big & ~bad  # the arithmetic below is exact and divides by at least 1 on these rows
    one = np.int64(1)
    v = col if safe.all() else {f: np.where(safe, c, one) for f, c in col.items()}
    wrong = (v["C"] % v["G"] != 0) | (v["K"] % v["G"] != 0)
    three = (v["Di"] > 1) | (v["Z"] > 1) | (v["pad_d"] > 0)
    for n, (i, f, st, p, dl) in enumerate(_DIMS):
        i, f, st, p, dl = (v[FIELDS[k]] for k in (i, f, st, p, dl))
        (out,) = output_sizes((i,), (f,), (st,), (p,), (dl,))
        wrong |= (out < 1) & (three if n == 0 else True)
    bad |= safe & wrong
    for row in np.flatnonzero(big & ~bad):
        try:
            problem_of(values[row])
        except ProblemError:
            bad[row] = True
    return bad, big


def _offset_of_line(text: str, line: int) -> int:
    """Where the line after line ``line`` (1-based) starts in ``text``."""
    at = 0
    for _ in range(line):
        at = text.find("\n", at) + 1
        if not at:
            return len(text)
    return at


def _raise_first(path, body: str, header_line: int, header: list[str], index: int) -> None:
    """Raise the row reader's error for the ``index``-th row of ``body`` (rows: its non-empty lines)."""
    seen = -1
    for n, line in enumerate(body.split("\n")):
        if not line.rstrip("\r"):
            continue
        seen += 1
        if seen == index:
            row = line.rstrip("\r").split(",")
            try:
                _from_mapping({k: v for k, v in zip(header, row) if k in FIELDS}, echo=False)
            except ProblemError as exc:
                raise ProblemError(f"{path}:{header_line + 1 + n}: {exc}") from None
            return
