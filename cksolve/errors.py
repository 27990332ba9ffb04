"""The base of every bad-input error: the CLI turns it into a single line and exit code 2.

The library's own errors (``RuleSetError``, ``NameError_``, ``EmitError``) derive
from it, so no caller has to translate them.
"""

__all__ = ["CksolveError", "shorten"]


class CksolveError(Exception):
    """Bad input: an unknown value, an unreadable or malformed file, an unwritable output.

    A message about one parameter's value says ``{option}`` where the parameter
    goes and passes ``option=`` its name: the library's text names the parameter
    (``limit -1 must not be negative``), the command line's the flag
    (``--limit -1 ...``, :meth:`for_flag`); the library never knows the flags.
    """

    option: str | None = None  # a subclass that does not call this __init__ has none

    def __init__(self, *args, option: str | None = None):
        super().__init__(*args)
        self.option = option

    def __str__(self) -> str:
        text = super().__str__()
        return text.format(option=self.option) if self.option is not None else text

    def for_flag(self, flag: str | None = None) -> str:
        """The message naming the command-line flag (default ``--`` + the parameter, ``_`` as ``-``)."""
        text = super().__str__()
        if self.option is None:
            return text
        return text.format(option=flag or "--" + self.option.replace("_", "-"))


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
