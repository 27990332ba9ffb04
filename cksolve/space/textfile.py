"""Reading the user's text files (names, rule sets, .conf) with bounds and one clear error.

Every reader here decodes UTF-8 itself (a leading BOM is dropped, CRLF line
ends are fine) instead of trusting the locale or ``PYTHONIOENCODING``, and
reads at most a bounded number of bytes, so ``/dev/zero`` or a binary file
given by mistake is an error line, not an exhausted memory.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Callable, Iterator

from ..errors import CksolveError, shorten

__all__ = ["read_text", "numbered_lines", "parse_toml", "parse_json", "MAX_FILE", "MAX_LINE"]

#: Largest rule-set or .conf file read (a rule set listing every `full` kernel is ~10 MB).
MAX_FILE = 64 << 20
#: Longest line of a names file (kernel names are under 200 characters).
MAX_LINE = 4096

_BOM = b"\xef\xbb\xbf"


def _open(source: str | Path, what: str):
    if str(source) == "-":
        if sys.stdin is None:
            _fail(f"cannot read the {what} from stdin: it is closed")
        if sys.stdin.buffer.closed:  # read_text closes it after reading it whole
            _fail(f"cannot read the {what} from stdin: it was read already for another input; give - to one only")
        return sys.stdin.buffer
    if not str(source):
        _fail(f"empty path for the {what}")
    try:
        return open(source, "rb")
    except (OSError, ValueError) as exc:  # ValueError: an embedded NUL byte
        reason = getattr(exc, "strerror", None) or str(exc)
        _fail(f"cannot read {shorten(str(source), quote=False)}: {reason}")


def _fail(message: str):
    raise CksolveError(message)


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _fail(f"{where}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})")


#: What ``read_text`` reads before the rest when a caller checks the head of a file first.
HEAD = 64 << 10


def read_text(path: str | Path, what: str, limit: int = MAX_FILE, head: Callable[[str], None] | None = None) -> str:
    """The whole file as text, opened and read once (a FIFO or a process substitution works); an error names
    the file when it is unreadable, too big or not UTF-8. ``head(text)``, when given, sees the first whole
    line(s) (within ``HEAD`` bytes) before the rest is read, and may raise (a bad header fails before the body)."""
    fh = _open(path, what)
    where = shorten(str(path), quote=False)
    try:
        with fh:
            data = b""
            if head is not None:
                while len(data) < HEAD and b"\n" not in data:  # read1: a pipe's first line, not a full block
                    chunk = fh.read1(HEAD - len(data))
                    if not chunk:
                        break
                    data += chunk
                lines = data[:data.rfind(b"\n") + 1].removeprefix(_BOM)
                try:
                    text = lines.decode("utf-8")
                except UnicodeDecodeError:
                    text = None  # the whole file's decoding names the byte
                if text:
                    head(text)
            data += fh.read(limit + 1 - len(data))
    except OSError as exc:
        _fail(f"cannot read {where}: {exc.strerror}")
    if len(data) > limit:
        _fail(f"{where}: {what} is larger than {limit >> 20} MiB")
    return _decode(data.removeprefix(_BOM), where)


def numbered_lines(source: str | Path, what: str, max_line: int = MAX_LINE) -> Iterator[tuple[int, str]]:
    """(line number, line without its end) of a file or ``-`` (stdin), read one bounded line at a time."""
    fh = _open(source, what)
    where = "stdin" if str(source) == "-" else shorten(str(source), quote=False)
    try:
        for no, raw in enumerate(iter(lambda: fh.readline(max_line + 1), b""), 1):
            if len(raw) > max_line:
                _fail(f"{where}:{no}: line longer than {max_line} bytes; is this a {what}?")
            if no == 1:
                raw = raw.removeprefix(_BOM)
            yield no, _decode(raw, f"{where}:{no}").rstrip("\r\n")
    except OSError as exc:
        _fail(f"cannot read {where}: {exc.strerror}")
    finally:
        if fh is not getattr(sys.stdin, "buffer", None):
            fh.close()


def parse_toml(text: str, where: str, error: type[CksolveError] = CksolveError) -> dict:
    """A user's TOML text parsed, or ``error`` naming ``where``: a syntax error, nesting deeper than the parser
    recurses, an integer past Python's digit limit."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{where}: {exc}") from None
    except RecursionError:
        raise error(f"{where}: values nested too deeply") from None
    except ValueError as exc:  # an integer over Python's 4,300-digit conversion limit
        raise error(f"{where}: {shorten(str(exc).split(':')[0], 120, quote=False)}") from None


def parse_json(text: str, where: str, error: type[CksolveError] = CksolveError):
    """A user's JSON text parsed, or ``error`` naming ``where`` (as ``parse_toml``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:  # arrays or objects nested deeper than the decoder recurses
        raise error(f"{where}: nested too deeply") from None
    except ValueError as exc:  # an integer literal past Python's digit limit
        raise error(f"{where}: {shorten(str(exc).split(':')[0], quote=False)}") from None
