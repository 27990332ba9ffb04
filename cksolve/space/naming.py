"""Kernel names: CK's exact spelling, and the way back.

Names are the identity of a kernel and the contract with CK's build, so the
format follows ``GroupedConvKernelConfig.name`` / ``DepthwiseConvKernelConfig.name``
to the letter: optional parts appear only when they differ from CK's default,
in CK's order. ``parse_name`` is the inverse; ``parse_name(c.name()) == c`` for
every config (a property test holds us to it).

A *kernel name* is the name CK gives a point of the space: it follows the
grammar, every field is a value of its axis (``axes.toml``), and it is spelled
exactly as CK spells it (ASCII digits, no leading zeros, no default part
written out). Anything else is not a kernel name (``NameError_``: bad input,
exit 2), so that ``fp8``, ``4d``, a tile of ``0x0x0`` or ``0128`` never reach
the constraints as an "invalid kernel"; a kernel name that breaks a constraint
for the arch is an invalid kernel (``check`` / ``explain`` exit 1).
"""

from __future__ import annotations

import re
from typing import Iterator

from ..errors import CksolveError, shorten
from .axes import AXES, kind_axes, value_text
from .config import DepthwiseConfig, KernelConfig
from .spelling import (DEFAULT_GROUPS_TO_MERGE, DEFAULT_VECTORS as _DEFAULT_VECTORS, DEFAULT_WAVE_GROUPS,
                       DEPTHWISE_PREFIX, SPECIALIZATION_SUFFIX, STREAMK_WORD, VARIANT_TAG, depthwise_name, gemm_name)

__all__ = ["gemm_name", "depthwise_name", "parse_name", "parse_names", "name_entries", "line_reason", "NameError_",
           "VARIANT_TAG"]

_TAG_VARIANT = {v: k for k, v in VARIANT_TAG.items()}
#: name word -> value, for the axes CK spells by a word of their own (values.toml ``name``); a
#: specialization without a suffix is the one whose suffix is empty
_SPECIALIZATION_OF = {suffix[1:]: v for v, suffix in SPECIALIZATION_SUFFIX.items()}
_STREAMK_OF = {word: v for v, word in STREAMK_WORD.items()}
_SK_DEFAULT = AXES["streamk_strategy"].default_for("gemm")


class NameError_(CksolveError, ValueError):
    """A string that is not a cksolve/CK kernel name."""


def _alternatives(axis: str, words=None) -> str:
    # Longest first, so that e.g. "basic_async_v1" wins over "basic_v1" prefixes.
    values = sorted((str(v) for v in (AXES[axis].domain if words is None else words) if str(v)), key=len, reverse=True)
    return "|".join(re.escape(v) for v in values)


#: Fields a name spells as a number (every ``_n`` group).
_NUMBERS: set[str] = set()


def _n(field: str) -> str:
    """A number in a name, as the group named after the config field it spells."""
    _NUMBERS.add(field)
    return rf"(?P<{field}>\d+)"


_GEMM_RE = re.compile(
    rf"grouped_conv_(?P<variant>{'|'.join(map(re.escape, VARIANT_TAG.values()))})_(?P<dtype>[a-z0-9]+)_(?P<layout>[a-z]+)_{_n('ndim')}d"
    rf"_(?P<pipeline>{_alternatives('pipeline')})_(?P<epilogue>{_alternatives('epilogue')})"
    rf"_(?P<scheduler>{_alternatives('scheduler')})"
    rf"_{_n('tile_m')}x{_n('tile_n')}x{_n('tile_k')}_{_n('wave_m')}x{_n('wave_n')}x{_n('wave_k')}"
    rf"_{_n('warp_tile_m')}x{_n('warp_tile_n')}x{_n('warp_tile_k')}"
    rf"(?:_vec{_n('vector_a')}_{_n('vector_b')}_{_n('vector_c')})?"
    rf"(?:_wg(?P<wg>\d+))?"
    rf"(?:_gm(?P<gm>\d+))?"
    rf"(?P<dsb>_dsb)?"
    rf"(?P<stage2>_2stage)?"
    rf"(?:_(?P<spec>{_alternatives('specialization', _SPECIALIZATION_OF)}))?"
    rf"(?P<explicit>_explicit_gemm)?"
    rf"(?:_streamk_(?P<sk>{_alternatives('streamk_strategy', _STREAMK_OF)})(?P<persistent>_persistent)?)?"
    rf"(?P<split>_large_tensor)?"
    rf"(?:_pad(?P<pad>[01]{{3}}))?",
    re.ASCII,  # \d is 0-9 only: an Arabic-Indic digit is not a tile size
)
_DEPTHWISE_RE = re.compile(
    re.escape(DEPTHWISE_PREFIX) + rf"(?P<dtype>[a-z0-9]+)_(?P<layout>[a-z]+)_{_n('ndim')}d"
    rf"_{_n('tile_h')}x{_n('tile_w')}_f{_n('filt')}_s{_n('str_h')}x{_n('str_w')}_p{_n('pad_h')}x{_n('pad_w')}"
    rf"_nb{_n('nbatch')}_sub{_n('sub_h')}x{_n('sub_w')}_vec{_n('in_vec')}_{_n('out_vec')}",
    re.ASCII,
)

#: The name grammar of each kernel kind (``kinds.KernelKind.grammar``).
KIND_GRAMMAR = {KernelConfig.kind: _GEMM_RE, DepthwiseConfig.kind: _DEPTHWISE_RE}

#: No kernel name is longer; a longer string is rejected before any number in it is converted
#: (Python refuses integers over 4,300 digits, and none is a tile size anyway).
MAX_NAME = 400


def parse_name(name: str) -> KernelConfig | DepthwiseConfig:
    """Turn a kernel name back into its config; raise ``NameError_`` if it is not one (module docstring).

    A name with every value in its domain parses whatever the arch thinks of
    it (an LDS overflow, an unsupported warp tile): the constraints judge it.
    """
    name = name.strip()
    if len(name) > MAX_NAME:
        raise NameError_(f"not a grouped-conv kernel name (longer than {MAX_NAME} characters): {shorten(name)}")
    config = _read(name)
    for axis in kind_axes(config.kind):
        value = getattr(config, axis)
        domain = AXES[axis].domain
        if not any(type(value) is type(d) and value == d for d in domain):
            shown = shorten(value_text(value), 40, quote=isinstance(value, str))
            raise NameError_(f"not a kernel name: {shorten(name)} ({axis} {shown} is not one of "
                             f"{', '.join(map(value_text, domain))})")
    canonical = config.name()
    if canonical != name:
        raise NameError_(f"{shorten(name)} is not CK's spelling of this kernel; CK names it {canonical!r}")
    return config


def _read(name: str) -> KernelConfig | DepthwiseConfig:
    """The grammar alone (fields converted, nothing checked): a group named after a field spells it (a number
    of digits, or the word itself); the GEMM name's words and flags (``_wg``, ``_dsb``, ...) are read here."""
    m = _DEPTHWISE_RE.fullmatch(name)
    if m:
        return DepthwiseConfig(**_spelt(m, DepthwiseConfig))
    m = _GEMM_RE.fullmatch(name)
    if not m:
        raise NameError_(f"not a grouped-conv kernel name: {shorten(name)}")
    vectors = m.group(*_VECTORS)
    vector_a, vector_b, vector_c = map(int, vectors) if vectors[0] is not None else _DEFAULT_VECTORS
    pad = m["pad"] or "111"
    num = lambda k: int(m[k])  # noqa: E731 - the hot path: 40k names, each field by its group's name
    return KernelConfig(
        variant=_TAG_VARIANT[m["variant"]], dtype=m["dtype"], ndim=num("ndim"), layout=m["layout"],
        pipeline=m["pipeline"], epilogue=m["epilogue"], scheduler=m["scheduler"],
        tile_m=num("tile_m"), tile_n=num("tile_n"), tile_k=num("tile_k"),
        wave_m=num("wave_m"), wave_n=num("wave_n"), wave_k=num("wave_k"),
        warp_tile_m=num("warp_tile_m"), warp_tile_n=num("warp_tile_n"), warp_tile_k=num("warp_tile_k"),
        vector_a=vector_a, vector_b=vector_b, vector_c=vector_c,
        wave_groups=int(m["wg"] or DEFAULT_WAVE_GROUPS), groups_to_merge=int(m["gm"] or DEFAULT_GROUPS_TO_MERGE),
        double_smem_buffer=bool(m["dsb"]), two_stage=bool(m["stage2"]),
        specialization=_SPECIALIZATION_OF[m["spec"] or ""], explicit_gemm=bool(m["explicit"]),
        streamk=m["sk"] is not None, streamk_strategy=_STREAMK_OF[m["sk"]] if m["sk"] else _SK_DEFAULT,
        streamk_persistent=bool(m["persistent"]), split_image=bool(m["split"]),
        pad_m=pad[0] == "1", pad_n=pad[1] == "1", pad_k=pad[2] == "1",
    )


def _spelt(m: re.Match, cls) -> dict:
    """The fields a match spells (its groups named after a field of ``cls``): digits as integers (depthwise
    names; a GEMM name, 40k a run, is read field by field above)."""
    numbers, words = _SPELT[cls]
    out = dict(zip(numbers, map(int, m.group(*numbers))))
    out.update(zip(words, m.group(*words)))
    return out


#: A GEMM name's vector sizes: written together or not at all (then the defaults).
_VECTORS = ("vector_a", "vector_b", "vector_c")
#: The groups of the depthwise grammar named after a field (every field but the variant), as (numbers, words).
_SPELT = {DepthwiseConfig: (tuple(k for k in _DEPTHWISE_RE.groupindex if k in _NUMBERS),
                            tuple(k for k in _DEPTHWISE_RE.groupindex if k not in _NUMBERS))}


def name_entries(numbered_lines) -> Iterator[tuple[int, str]]:
    """(line number, name) of a names file's (line number, line) pairs: the one syntax of names files.

    ``#`` starts a comment anywhere on a line; blank lines and surrounding
    white space (a CRLF's ``\\r`` included) are skipped.
    """
    for no, line in numbered_lines:
        name = line.split("#", 1)[0].strip()
        if name:
            yield no, name


def parse_names(lines, source: str = "names") -> list:
    """Configs of a names file's lines (see ``name_entries``).

    Raises ``NameError_`` naming ``source`` and the first bad line: one that is
    not a kernel name, or one CK would spell differently (e.g. with the default
    vector sizes written out) -- such a name would not match CK's files.
    ``lines`` are strings or, from ``textfile.numbered_lines``, (number, line) pairs.
    """
    out = []
    numbered = (item if isinstance(item, tuple) else (no, item) for no, item in enumerate(lines, 1))
    for no, name in name_entries(numbered):
        try:
            out.append(parse_name(name))
        except NameError_ as exc:
            raise NameError_(f"{source}:{no}: {line_reason(name, exc)}") from None
    return out


def line_reason(name: str, exc: NameError_) -> str:
    """A names file's error for one line: "not a kernel name: NAME", with why when the grammar matched."""
    text = str(exc)
    if text.startswith("not a kernel name:") or "is not CK's spelling" in text:
        return text
    return f"not a kernel name: {shorten(name)}"
