"""The base of every bad-input error: the CLI turns it into a single line and exit code 2.

The library's own errors (``RuleSetError``, ``NameError_``, ``EmitError``) derive
from it, so no caller has to translate them.
"""

import re

__all__ = ["CksolveError", "shorten", "did_you_mean", "valid_list"]


class CksolveError(Exception):
    """Bad input: an unknown value, an unreadable or malformed file, an unwritable output.

    The library never knows the command line's flags: a message about a
    parameter says ``{option}`` (the error's own ``option=``) or ``{opt:NAME}``
    where it goes. ``str()`` gives the parameter's name (``limit -1 must not be
    negative``), :meth:`for_flag` the flag (``--limit -1 ...``).
    """

    option: str | None = None  # a subclass that does not call this __init__ has none

    def __init__(self, *args, option: str | None = None):
        super().__init__(*args)
        self.option = option

    def __str__(self) -> str:
        return self._render()

    def for_flag(self, flags: dict[str, str] | None = None) -> str:
        """The message naming command-line flags (``--`` + the parameter, ``_`` as ``-``; ``flags`` maps a
        parameter whose flag is spelled otherwise, e.g. ``{"out_dir": "--out"}``)."""
        return self._render(flags or {})

    def _render(self, flags: dict[str, str] | None = None) -> str:
        def name(m: re.Match) -> str:
            param = m.group(1) or self.option
            if param is None:
                return m.group(0)
            if flags is None:
                return param
            return flags.get(param) or "--" + param.replace("_", "-")

        return _PLACEHOLDER.sub(name, super().__str__())  # not format(): the message holds the user's text


_PLACEHOLDER = re.compile(r"\{(?:opt:([a-z_]+)|option)\}")


def shorten(value: object, limit: int = 200, quote: bool = True) -> str:
    """A user's value for an error line (``repr`` unless ``quote`` is false), cut to about ``limit`` characters.

    Inputs can be arbitrarily long (a 100,000-character option, a line of
    /dev/zero); the error line must stay one readable line.
    """
    if not isinstance(value, str):  # a number or a list from a TOML file: its repr, not quoted again
        value, quote = repr(value), False
    text = value
    show = repr if quote else str
    if len(text) <= limit:
        return show(text)
    return f"{show(text[:limit])}... ({len(text):,} characters)"


def did_you_mean(value: object, valid) -> str:
    """``"; did you mean 'x'?"`` when one of ``valid`` is close to ``value`` (a typo, a missing letter), else ``""``:
    the tail of an "unknown ..." message, after the list of valid values."""
    from difflib import get_close_matches  # deferred: only an error line needs it

    text = str(value)
    if not text or len(text) > 100:
        return ""
    close = get_close_matches(text.lower(), [str(v).lower() for v in valid], n=1, cutoff=0.6)
    if not close:
        return ""
    match = next(str(v) for v in valid if str(v).lower() == close[0])
    return f"; did you mean {match!r}?"


#: the longest list of valid values an error line gives whole (characters)
LIST_WIDTH = 120


def valid_list(values, see: str | None = None, width: int = LIST_WIDTH) -> str:
    """``values`` joined by ", " for an error line's "valid: ..." part; a list longer than ``width`` characters is
    its first few, an ellipsis and how many there are (``see``: where the whole list is, e.g. a doc or a command):
    ``N, G, C, … (32 in all; see docs/measurements.md)``. The did-you-mean (:func:`did_you_mean`) still looks
    at all of them."""
    names = [str(v) for v in values]
    whole = ", ".join(names)
    if len(whole) <= width:
        return whole
    tail = f"… ({len(names)} in all" + (f"; see {see})" if see else ")")
    shown: list[str] = []
    used = 0
    for name in names:
        if used + len(name) + 2 > width - len(tail):
            break
        shown.append(name)
        used += len(name) + 2
    return ", ".join([*shown, tail])
