"""ROCm target IDs: ``gfx942:sramecc+:xnack-``, ``gfx90a:xnack+`` -- what ``GPU_TARGETS`` often holds.

A target ID is a base arch and target features, each ``:<feature>+`` (on) or
``:<feature>-`` (off). The base arch alone decides which kernels exist (the
features change how the compiler builds code, not which tile configurations
are legal), so selection uses :func:`base_arch`; the full ID is handed on
unchanged to ``--offload-arch`` and names the emitted tree. The compiler
decides whether a feature applies to the arch; here only the spelling is
checked (known feature names, ``+``/``-``, each at most once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import CksolveError

__all__ = ["FEATURES", "TargetId", "parse_target_id", "base_arch", "is_target_id", "is_arch_name", "ARCH_NAME_HELP"]

#: the target features ROCm's target IDs know (LLVM AMDGPU "target ID" syntax)
FEATURES = ("sramecc", "xnack")
_BASE = re.compile(r"gfx[0-9a-z]+")
_FEATURE = re.compile(r"([a-z]+)([+-])")
#: an arch name a facts file may introduce: CK's (and LLVM's) processor names, ``gfx`` and hex digits
_ARCH_NAME = re.compile(r"gfx[0-9a-f]{1,8}")
#: how messages describe a valid arch name
ARCH_NAME_HELP = "gfx and up to 8 hex digits (gfx942, gfx90a), optionally with target features (gfx942:xnack-)"


@dataclass(frozen=True)
class TargetId:
    """An LLVM target id: the base arch and its target features."""

    base: str                      # the arch the kernels are selected for, e.g. gfx942
    features: tuple[str, ...] = ()  # e.g. ("sramecc+", "xnack-"), in the order given

    def __str__(self) -> str:
        return ":".join((self.base, *self.features))


def parse_target_id(text: str) -> TargetId:
    """``gfx942:sramecc+:xnack-`` -> TargetId('gfx942', ('sramecc+', 'xnack-')); CksolveError naming the bad part.

    The base is not checked against the known archs here (the caller's
    selection does that, with its list of valid archs).
    """
    if not isinstance(text, str):
        raise CksolveError(f"bad target {text!r}: expected a gfx arch such as gfx942 or gfx942:xnack-")
    base, *features = text.split(":")
    if not _BASE.fullmatch(base):
        raise CksolveError(f"bad target {text!r}: expected a gfx arch such as gfx942 or gfx942:xnack-")
    seen = set()
    for f in features:
        m = _FEATURE.fullmatch(f)
        if not m or m.group(1) not in FEATURES:
            raise CksolveError(f"bad target feature {f!r} in {text!r}; valid: "
                               + ", ".join(f"{n}+, {n}-" for n in FEATURES))
        if m.group(1) in seen:
            raise CksolveError(f"bad target {text!r}: {m.group(1)} given twice")
        seen.add(m.group(1))
    return TargetId(base, tuple(features))


def base_arch(text: str) -> str:
    """The arch a target ID selects kernels for (``gfx942:xnack-`` -> ``gfx942``); ValueError if malformed.

    ValueError (not CksolveError) so that an option parser can report it as
    an unknown value in its own words.
    """
    try:
        return parse_target_id(text).base
    except CksolveError as exc:
        raise ValueError(str(exc)) from None


def is_target_id(text: object) -> bool:
    """Whether ``text`` is spelled as a target ID (an emitted tree's directory name, an arch a library caller passes)."""
    try:
        parse_target_id(text)
    except CksolveError:
        return False
    return True


def is_arch_name(text: object) -> bool:
    """Whether ``text`` may name an arch a facts file introduces: ``gfx`` and hex digits, optionally with target
    features (``gfx942:xnack-``). Anything else -- a path (``../../x``), a newline, a blank -- is not: arch names
    become directory names and ``# arch:`` lines."""
    if not isinstance(text, str) or not is_target_id(text):
        return False
    return _ARCH_NAME.fullmatch(text.split(":")[0]) is not None
