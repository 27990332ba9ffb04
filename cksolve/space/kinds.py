"""The kernel kind as a value: everything that differs between GEMM and depthwise kernels, in one place.

A ``KernelKind`` holds its name (the string data files and configs carry:
``config.kind``, axes.toml ``kind``, a rule set's ``applies_to``), its axes
(axes.toml), its config class (built from kinds.toml and axes.toml), its name
grammar (``naming``), its spelling and its tile shape (kinds.toml ``tile``).
Code that behaves per kind looks the value up (``kernel_kind(config.kind)``)
instead of comparing strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import Callable

from ..errors import CksolveError
from .axes import KIND_NAMES, kind_axes, kind_fields, kind_tile
from .config import DepthwiseConfig, KernelConfig
from .naming import KIND_GRAMMAR
from .spelling import (GEMM_GROUP_AXES, GEMM_HEAD_AXES, GEMM_TAIL_PARTS, depthwise_name, gemm_name, spell_gemm_head,
                       spell_gemm_values)

__all__ = ["KernelKind", "GEMM", "DEPTHWISE", "KINDS", "kernel_kind"]


@dataclass(frozen=True)
class KernelKind:
    """One kind of kernel config (see the module docstring)."""

    name: str
    config: type  # the config class
    axes: tuple[str, ...]  # axes.toml order
    fields: tuple[str, ...]  # the config class's field order
    tile: tuple[str, ...]  # the tile shape's fields
    grammar: re.Pattern  # a kernel name of the kind (fullmatch)
    spell: Callable  # config -> its kernel name
    head_axes: tuple[str, ...]  # fields whose values spell a name's head (the listing's order; spelling.py)
    group_axes: tuple[str, ...]  # head fields a combination can leave free, listed one value at a time
    spell_values: Callable  # the field values, positionally in field order -> the kernel name (no config made)
    tail_parts: tuple[tuple[str, ...], ...] = ()  # leading tail fields whose text comes first, alone (spelling.py)
    spell_head: Callable | None = None  # the head values, positionally in head_axes order -> the head's text

    def __str__(self) -> str:
        return self.name

    def tile_of(self, config) -> tuple[int, ...]:
        """``config``'s tile shape (its ``tile`` fields' values)."""
        return tuple(getattr(config, f) for f in self.tile)


def _kind(name: str, config: type, spell: Callable, head: "tuple[str, ...] | None" = None,
          group: tuple[str, ...] = (), spell_values: "Callable | None" = None, tail_parts: tuple = (),
          spell_head: "Callable | None" = None) -> KernelKind:
    fields = kind_fields(name)
    if spell_values is None:
        raw = getattr(spell, "__wrapped__", spell)  # not the name memo: names spelled from values are asked once
        make = partial(tuple.__new__, config)

        def spell_values(*values):
            return raw(make(values))
    return KernelKind(name, config, kind_axes(name), fields, kind_tile(name), KIND_GRAMMAR[name], spell,
                      fields if head is None else head, group, spell_values, tail_parts,
                      spell_values if head is None else spell_head)  # all head: the head is the name


GEMM = _kind(KernelConfig.kind, KernelConfig, gemm_name, GEMM_HEAD_AXES, GEMM_GROUP_AXES, spell_gemm_values,
             GEMM_TAIL_PARTS, spell_gemm_head)
#: A depthwise name is all head: every field spells it, none is listed group by group.
DEPTHWISE = _kind(DepthwiseConfig.kind, DepthwiseConfig, depthwise_name)
#: Every kind by name, in kinds.toml's order.
KINDS: dict[str, KernelKind] = {k.name: k for k in (GEMM, DEPTHWISE)}

if tuple(KINDS) != KIND_NAMES:  # pragma: no cover - a kind in kinds.toml without its config class here
    raise ImportError(f"kinds.toml names the kinds {', '.join(KIND_NAMES)}; kinds.py has {', '.join(KINDS)}")


def kernel_kind(kind: "str | KernelKind") -> KernelKind:
    """The kind named ``kind`` (a value passes through); an unknown name is bad input."""
    if isinstance(kind, KernelKind):
        return kind
    found = KINDS.get(kind)
    if found is None:
        raise CksolveError(f"unknown kernel kind {kind!r}; valid: {', '.join(KINDS)}")
    return found
