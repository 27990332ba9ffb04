"""The base of every bad-input error: the CLI turns it into a single line and exit code 2.

The library's own errors (``RuleSetError``, ``NameError_``, ``EmitError``) derive
from it, so no caller has to translate them.
"""

__all__ = ["CksolveError", "shorten"]


class CksolveError(Exception):
    """Bad input: an unknown value, an unreadable or malformed file, an unwritable output."""


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
