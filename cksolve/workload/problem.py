"""A convolution problem: CK's ``GroupedConvProblem`` as a value, and the facts the rules read.

CK's problem files give C and K as totals over all G groups, while CK Tile's
run-time checks (``ConvParam``) see them per group. Mixing the two is the most
common way to get applicability wrong, so a ``Problem`` keeps CK's fields exactly
as written and derives everything else once (``facts()``): per-group C and K,
output sizes, and the implicit-GEMM sizes of its direction.
"""

from __future__ import annotations

import csv
import difflib
import json
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Iterable

from ..errors import CksolveError, did_you_mean, valid_list
from ..space.textfile import read_text
from ..space.variants import VARIANTS
from .problem_facts import Facts, derive, output_sizes

__all__ = ["Problem", "ProblemFacts", "ProblemError", "DIRECTIONS", "FIELDS", "parse_problem", "read_workload",
           "as_problem"]

#: The convolution directions, and the kernel variants that can run each (variants.toml ``direction``).
DIRECTIONS: dict[str, tuple[str, ...]] = {
    d: tuple(n for n, v in VARIANTS.items() if v.direction == d)
    for d in dict.fromkeys(v.direction for v in VARIANTS.values())
}

#: Distinct rows the reader remembers to skip re-reading repeats (bounds its memory on all-distinct files).
_SEEN = 100_000
#: Longest field value echoed in an error line.
_ECHO = 60


class ProblemError(CksolveError):
    """A malformed problem: names the file and line (or the spec) and the field."""


@dataclass(frozen=True)
class Problem:
    """One grouped-convolution problem, with CK's field names and defaults.

    C and K are totals over the G groups (CK requires both divisible by G). Pads
    are symmetric. A problem is 3D when Di > 1, Z > 1 or pad_d > 0, else 2D (CK's rule).
    """

    N: int = 1
    G: int = 1
    C: int = 64
    K: int = 128
    Di: int = 1
    Hi: int = 28
    Wi: int = 28
    Z: int = 1
    Y: int = 3
    X: int = 3
    stride_d: int = 1
    stride_h: int = 1
    stride_w: int = 1
    pad_d: int = 0
    pad_h: int = 0
    pad_w: int = 0
    dilation_d: int = 1
    dilation_h: int = 1
    dilation_w: int = 1
    direction: str = "forward"
    split_k: int = 1

    def __post_init__(self):
        _validate(self)

    @property
    def ndim(self) -> int:
        return 3 if (self.Di > 1 or self.Z > 1 or self.pad_d > 0) else 2

    def spatial(self) -> dict[str, tuple[int, ...]]:
        """Per spatial dimension (D, H, W for 3D; H, W for 2D): input, filter, stride, pad, dilation, output."""
        dims = "dhw" if self.ndim == 3 else "hw"
        inputs = {"d": self.Di, "h": self.Hi, "w": self.Wi}
        filters = {"d": self.Z, "h": self.Y, "w": self.X}
        stride = tuple(getattr(self, f"stride_{d}") for d in dims)
        pad = tuple(getattr(self, f"pad_{d}") for d in dims)
        dil = tuple(getattr(self, f"dilation_{d}") for d in dims)
        inp = tuple(inputs[d] for d in dims)
        filt = tuple(filters[d] for d in dims)
        out = output_sizes(inp, filt, stride, pad, dil)
        return {"input": inp, "filter": filt, "stride": stride, "pad": pad, "dilation": dil, "output": out}

    def facts(self) -> Facts:
        return _facts(self)

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def spec(self) -> str:
        """The fields that differ from CK's defaults, as ``parse_problem`` reads them."""
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                        if getattr(self, f.name) != f.default) or "defaults"

    def replace(self, **changes) -> "Problem":
        return replace(self, **changes)


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Problem))


def _brief(names: tuple[str, ...]) -> str:
    """``names`` for an error line, each run of ``x_d, x_h, x_w`` written ``x_{d,h,w}`` (as the docs write them)."""
    out: list[str] = []
    for n in names:
        stem, _, axis = n.rpartition("_")
        if axis == "w" and out and out[-1] == f"{stem}_{{d,h}}":
            out[-1] = f"{stem}_{{d,h,w}}"
        elif axis == "h" and out and out[-1] == f"{stem}_d":
            out[-1] = f"{stem}_{{d,h}}"
        else:
            out.append(n)
    return ", ".join(out)


#: FIELDS as an error line lists them (N, G, ..., stride_{d,h,w}, ...)
FIELDS_TEXT = _brief(FIELDS)


def columns_text(columns: tuple[str, ...]) -> str:
    """The valid columns of a file for an error line: a problem file's fields, or a measurement file's first
    few and where the rest are (docs/measurements.md)."""
    return FIELDS_TEXT if tuple(columns) == FIELDS else valid_list(columns, see="docs/measurements.md", width=90)
_INT_FIELDS = tuple(f for f in FIELDS if f != "direction")


#: The facts the rules read (``facts.Facts``; this name is the one-problem view's).
ProblemFacts = Facts


def _facts(p: Problem) -> Facts:
    s = p.spatial()
    return derive(p.direction, p.ndim, p.N, p.G, p.C, p.K, p.split_k, s["input"], s["filter"], s["stride"], s["pad"],
                  s["dilation"])


def _validate(p: Problem) -> None:
    for name in _INT_FIELDS:
        v = getattr(p, name)
        if type(v) is not int:
            raise ProblemError(f"field {name}: {v!r} is not an integer")
    if p.direction not in DIRECTIONS:
        raise ProblemError(f"field direction: unknown {_echo(p.direction)!r}; valid: {', '.join(DIRECTIONS)}")
    positive = ("N", "G", "C", "K", "Di", "Hi", "Wi", "Z", "Y", "X", "stride_d", "stride_h", "stride_w",
                "dilation_d", "dilation_h", "dilation_w", "split_k")
    for name in positive:
        if getattr(p, name) < 1:
            raise ProblemError(f"field {name}: {getattr(p, name)} must be at least 1")
    for name in ("pad_d", "pad_h", "pad_w"):
        if getattr(p, name) < 0:
            raise ProblemError(f"field {name}: {getattr(p, name)} must not be negative")
    for name in ("C", "K"):
        if getattr(p, name) % p.G:
            raise ProblemError(f"field {name}: {getattr(p, name)} is not divisible by G={p.G}")
    out = p.spatial()["output"]
    if min(out) < 1:
        dims = "DHW"[-len(out):]
        bad = next(d for d, o in zip(dims, out) if o < 1)
        raise ProblemError(f"output size {bad}o={min(out)} is below 1 (filter larger than the padded input)")


def _echo(value) -> str:
    text = str(value)
    return text if len(text) <= _ECHO else text[:_ECHO] + "..."


#: The most digits a problem field may have, however it is written (spec, CSV cell, JSON string or number).
MAX_DIGITS = 18


def _int(field: str, raw, echo: bool = True) -> int:
    """A field's value: a decimal integer of ASCII digits (a string), or a JSON number with an integral value.

    JSON's ``true`` is not 1; ``4.0`` is 4 (JSON writers do not tell integers from floats), ``4.5`` is
    an error; a number of more than ``MAX_DIGITS`` digits is refused whatever its form. ``echo`` false (a
    file's cell): the error says what was expected, not what the cell holds -- a file's contents are never
    echoed; the caller names the file and line.
    """
    try:
        return _integer(field, raw)
    except ProblemError:
        if echo:
            raise
    if isinstance(raw, float) and raw.is_integer():  # JSON 1e18: an integer, of 19 digits
        raw = int(raw)
    digits = str(abs(raw)) if isinstance(raw, int) and not isinstance(raw, bool) else str(raw).strip().lstrip("+-")
    too_long = digits.isascii() and digits.isdigit() and len(digits) > MAX_DIGITS
    raise ProblemError(f"field {field}: " + (f"more than {MAX_DIGITS} digits" if too_long else
                                             f"not an integer (expected decimal ASCII digits, at most {MAX_DIGITS})"))


def _integer(field: str, raw) -> int:
    if isinstance(raw, bool):
        raise ProblemError(f"field {field}: {str(raw).lower()} is not an integer")
    if isinstance(raw, float):
        if not raw.is_integer():  # 4.5, and inf / nan
            raise ProblemError(f"field {field}: {raw!r} is not an integer")
        raw = int(raw)
    if isinstance(raw, int):
        if len(str(abs(raw))) > MAX_DIGITS:
            raise ProblemError(f"field {field}: {_echo(raw)} has more than {MAX_DIGITS} digits")
        return raw
    text = str(raw).strip()
    # ASCII digits only: int() would also accept other scripts' digits and '1_000'.
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        raise ProblemError(f"field {field}: {_echo(text)!r} is not an integer")
    if len(body) > MAX_DIGITS:
        raise ProblemError(f"field {field}: {_echo(text)!r} has more than {MAX_DIGITS} digits")
    return int(text)


def _from_mapping(values: dict, echo: bool = True) -> Problem:
    unknown = [k for k in values if k not in FIELDS]
    if unknown:
        raise ProblemError(f"unknown field {_echo(unknown[0])!r}; valid: {FIELDS_TEXT}"
                           f"{did_you_mean(unknown[0], FIELDS)}")
    kwargs = {}
    for key, raw in values.items():
        if raw is None or (isinstance(raw, str) and raw.strip() == ""):
            continue  # an empty CSV cell takes CK's default
        kwargs[key] = str(raw).strip() if key == "direction" else _int(key, raw, echo)
    return Problem(**kwargs)


def parse_problem(spec: str) -> Problem:
    """``"N=4,G=4,C=256,K=256,Hi=28,Wi=28,Y=1,X=1"``: CK's field names, omitted fields take CK's defaults."""
    values: dict[str, str] = {}
    for part in spec.split(","):
        part = part.strip()
        if not part:  # as for --arch 'a,,b': an empty item is a mistake, not "nothing"
            raise ProblemError(f"problem spec {_echo(spec)!r}: an empty FIELD=VALUE")
        key, eq, value = part.partition("=")
        if not eq:
            raise ProblemError(f"problem spec {_echo(spec)!r}: {_echo(part)!r} is not FIELD=VALUE")
        key = key.strip()
        if key in values:
            raise ProblemError(f"problem spec {_echo(spec)!r}: field {key!r} given twice")
        if not value.strip():  # in a file an empty cell takes CK's default; typed out, 'N=' is a slip
            raise ProblemError(f"problem spec {_echo(spec)!r}: field {_echo(key)!r} has no value")
        values[key] = value
    try:
        return _from_mapping(values)
    except ProblemError as exc:
        raise ProblemError(f"problem spec {_echo(spec)!r}: {exc}") from None


def as_problem(problem: Problem | str) -> Problem:
    """A library entry point's problem: a ``Problem`` as it is, a FIELD=VALUE spec (the CLI's string) parsed."""
    if isinstance(problem, Problem):
        return problem
    if isinstance(problem, str):
        return parse_problem(problem)
    raise ProblemError(f"a problem is a Problem or a FIELD=VALUE spec, not a {type(problem).__name__}")


#: Keys a per-problem record writes besides the fields: a label column may not take them.
RECORD_KEYS = ("row", "ndim", "dtype", "applicable", "blocked_by", "kernels")


def looks_like_a_field(column: str) -> bool:
    """Whether an extra column is more likely a misspelt field (``Hi_``, ``stirde_h``, ``n``) than a label."""
    key = "".join(ch for ch in column.lower() if ch.isalnum())
    if any(key == "".join(ch for ch in f.lower() if ch.isalnum()) for f in FIELDS):
        return True
    return bool(difflib.get_close_matches(column, FIELDS, n=1, cutoff=0.75))


def read_workload(path: str | Path, text: str | None = None) -> tuple[list[Problem], tuple[str, ...], list[tuple]]:
    """(problems, label columns, labels per row) of a workload file (or of its ``text``, already read): the
    row reader, which defines every answer and error; ``problem_table.read_table`` reads plain CSV by columns
    and leaves the rest to this.

    A workload may carry extra columns (a model or layer name): they are kept as
    text, in file order, for every per-problem record. A column that looks like
    a misspelt field is still an error (``looks_like_a_field``).
    """
    rows = read_rows(path, FIELDS, labels=True, text=text)
    names: dict[str, None] = {}
    for _, values in rows:
        for k in values:
            if k not in FIELDS and k not in names:  # each label column is judged once, not on every row
                if looks_like_a_field(k):
                    raise ProblemError(f"{path}: unknown field {_echo(k)!r}; valid: {FIELDS_TEXT}"
                                      f"{did_you_mean(k, FIELDS)}")
                check_label(path, k)
                names.setdefault(k, None)
    columns = tuple(names)
    labels = [tuple("" if values.get(k) is None else str(values.get(k)) for k in columns) for _, values in rows] \
        if columns else []
    problems = _problems(path, [(w, {k: v for k, v in values.items() if k in FIELDS}) for w, values in rows]
                         if columns else rows)
    return problems, columns, labels


def check_label(path, column: str) -> None:
    """A label column may not take a name the records write."""
    if column in RECORD_KEYS:
        raise ProblemError(f"{path}: column {column!r} is a name the records use ({', '.join(RECORD_KEYS)}); "
                           f"rename it")


def _problems(path, rows) -> list[Problem]:
    problems = []
    seen: dict[tuple, Problem] = {}  # identical rows are read once (a workload often repeats its shapes)
    for where, values in rows:
        key = tuple((k, type(v), v) for k, v in values.items())  # types too: JSON true == 1 in Python
        try:
            p = seen.get(key)
        except TypeError:  # a JSON value that is a list or an object: _from_mapping names it
            p = None
        if p is None:
            try:
                p = _from_mapping(values, echo=False)  # a file's cells: named, not echoed
            except ProblemError as exc:
                raise ProblemError(f"{where}: {exc}") from None
            if len(seen) < _SEEN:
                try:
                    seen[key] = p
                except TypeError:
                    pass
        problems.append(p)
    if not problems:
        raise ProblemError(f"{path}: no problems")
    return problems


def read_rows(path: str | Path, columns: Iterable[str], labels: bool = False, text: str | None = None
              ) -> list[tuple[str, dict]]:
    """``(file:line, {key: raw value})`` of a CSV file whose header names only ``columns``, or of a JSONL file
    (``text``: the file's text when the caller has read it).

    Problem files and measured-results files share this reader so that both bound
    what they read, accept a BOM, and name the file and line of a bad row alike.
    """
    path = Path(path)
    if text is None:
        text = read_file(path)
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    rows = (_jsonl_rows(path, text) if first.lstrip().startswith("{")
            else _csv_rows(path, text, tuple(columns), labels))
    return [(f"{path}:{line}", values) for line, values in rows]


def read_file(path: Path, head=None) -> str:
    """The text of a problem file, read once (``textfile.read_text``; ``head`` checks its first lines)."""
    try:
        return read_text(path, "problem file", head=head)
    except CksolveError as exc:  # the workload face raises ProblemError for every bad file
        raise ProblemError(str(exc)) from None


def _csv_rows(path: Path, text: str, columns: tuple[str, ...], labels: bool = False) -> Iterable[tuple[int, dict]]:
    reader = csv.reader(_lines(text))
    header = None
    for row in reader:
        line = reader.line_num
        if skipped(row):
            continue
        if header is None:
            header = csv_header(path, line, row, columns, labels)
            continue
        if len(row) != len(header):
            raise ProblemError(f"{path}:{line}: {len(row)} values for {len(header)} columns")
        yield line, dict(zip(header, row))


def _lines(text: str) -> Iterable[str]:
    """The lines of ``text`` split at "\\n" only, ends kept (as ``io.StringIO(text)`` reads them, without its copy
    of the whole text at four bytes a character)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        end = size if end < 0 else end + 1
        yield text[start:end]
        start = end


def skipped(row: list[str]) -> bool:
    """Whether a CSV row is no row at all: empty, blank cells only, or a comment."""
    return not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#")


def csv_header(path, line: int, row: list[str], columns: tuple[str, ...], labels: bool = False) -> list[str]:
    """The header's column names; an unknown one (or, with ``labels``, one like a misspelt field) is an error."""
    header = [h.strip() for h in row]
    unknown = next((i for i, h in enumerate(header, 1) if h not in columns and (not labels or looks_like_a_field(h))),
                   None)
    if unknown is not None:  # named by its place, not its text: a file's contents are never echoed (/etc/passwd)
        raise ProblemError(f"{path}:{line}: column {unknown} of the header is not a column name; "
                           f"valid: {columns_text(columns)}{did_you_mean(header[unknown - 1], columns)}")
    if labels and not any(h in columns for h in header):  # any text's first line would be a label column
        raise ProblemError(f"{path}:{line}: the header names no problem field ({', '.join(columns[:4])}, ...); "
                           f"is this a workload?")
    unnamed = next((i for i, h in enumerate(header, 1) if not h), None)
    if unnamed is not None:  # a spreadsheet's trailing comma: a label with no name to write it under
        raise ProblemError(f"{path}:{line}: column {unnamed} of the header has no name")
    twice = next((h for i, h in enumerate(header) if h in header[:i]), None)
    if twice is not None:  # csv's dict of a row would keep the last cell of the two
        raise ProblemError(f"{path}:{line}: column {_echo(twice)!r} given twice")
    return header


def _jsonl_rows(path: Path, text: str) -> Iterable[tuple[int, dict]]:
    for line, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            values = json.loads(raw)
        except (ValueError, RecursionError):
            raise ProblemError(f"{path}:{line}: not a JSON object") from None
        if not isinstance(values, dict):
            raise ProblemError(f"{path}:{line}: not a JSON object")
        yield line, values
