"""The base of every bad-input error: the CLI turns it into a single line and exit code 2.

The library's own errors (``RuleSetError``, ``NameError_``, ``EmitError``) derive
from it, so no caller has to translate them.
"""

__all__ = ["CksolveError"]


class CksolveError(Exception):
    """Bad input: an unknown value, an unreadable or malformed file, an unwritable output."""
