"""The one exception type the CLI turns into a single line and exit code 2."""

__all__ = ["CksolveError"]


class CksolveError(Exception):
    """Bad input: an unknown value, an unreadable or malformed file, an unwritable output."""
