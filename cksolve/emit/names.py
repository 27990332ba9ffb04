"""The names emit accepts: kernel names as file names, tree targets (archs), and its one error type.

Shared by the writer and the ownership checks (which read a manifest's names with the same rules).
"""

from __future__ import annotations

import re
import string
from operator import itemgetter
from typing import Iterable

from ..arch.target_id import is_target_id
from ..errors import CksolveError
from ..space.config import DepthwiseConfig, KernelConfig
from .render import WRAPPER_PREFIX

__all__ = ["EmitError", "check_file_name", "all_plain", "check_arch", "ARCH", "names_to_configs"]

#: a kernel name must be a plain file name: these characters only, none of _NOT_FIRST first
#: (no separators, no leading dot)
_NAME_CHARS = string.ascii_letters + string.digits + "_.+-"
_NOT_FIRST = ".+-"
_PLAIN = re.compile(f"(?![{re.escape(_NOT_FIRST)}])[{re.escape(_NAME_CHARS)}]+")
_NAME_BYTES = _NAME_CHARS.encode()
_BAD_FIRST = frozenset(("", *_NOT_FIRST))
#: an arch as a manifest records it (a tree's target may be a ROCm target ID; kernels are rendered for its base arch)
ARCH = re.compile(r"gfx[0-9a-z]+")
_NAME_MAX = 255  # bytes per path component on the usual file systems
_LONGEST_PREFIX = len(WRAPPER_PREFIX) + len(".hpp")


class EmitError(CksolveError):
    """Emission failed; the message is one line fit for the user."""


def check_file_name(name: str) -> None:
    """Raise EmitError unless ``name`` can serve as a kernel (file) name."""
    if not isinstance(name, str) or not _PLAIN.fullmatch(name) or len(name) + _LONGEST_PREFIX > _NAME_MAX:
        raise EmitError(f"refusing kernel name {name!r}: not a plain file name")


def all_plain(names: list[str]) -> bool:
    """``check_file_name`` for many names at once, in C (a regex over 9k names took 15 ms)."""
    try:
        data = "".join(names).encode("ascii")
    except UnicodeEncodeError:
        return False
    return (not data.translate(None, _NAME_BYTES) and not _BAD_FIRST.intersection(map(itemgetter(slice(0, 1)), names))
            and max(map(len, names)) + _LONGEST_PREFIX <= _NAME_MAX)


def check_arch(arch) -> None:
    """Raise EmitError unless ``arch`` is a gfx target (an arch or a ROCm target ID)."""
    if not is_target_id(arch):
        raise EmitError(f"refusing arch {arch!r}: expected a gfx target such as gfx942 or gfx942:xnack-")


def names_to_configs(lines: Iterable[str], source: str = "names") -> list[KernelConfig | DepthwiseConfig]:
    """Configs of the kernel names in ``lines``; EmitError names the first bad line (see ``parse_names``)."""
    from ..space.naming import NameError_, parse_names  # deferred: only names given as input need the parser

    try:
        return parse_names(lines, source)
    except NameError_ as exc:
        raise EmitError(str(exc)) from None
