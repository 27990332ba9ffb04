"""Which combinations a command works on (``Selection``) and what a listing yields per kernel (``Record``).

Below the workload, features and audit layers, which take a selection and
return records too, and above ``arch`` and ``space``, whose registries give the
valid values. Leaving a selection option out selects everything; giving it
empty must not (``split_values``). Messages name the parameter, not a CLI flag:
the command line adds the flag (``CksolveError.option``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

from .arch.facts import BUNDLED_ARCHS, archs as known_archs
from .arch.target_id import base_arch, is_target_id
from .errors import CksolveError, did_you_mean, shorten, valid_list
from .space.axes import AXES
from .space.combo import Combo, kind_of
from .space.kinds import GEMM
from .space.variants import VARIANTS as VARIANT_TABLES

__all__ = ["Selection", "select", "split_values", "split_archs", "arch_spellings", "canonical_order", "gemm_variants", "Record",
           "BUNDLED_ARCHS", "VARIANTS", "DTYPES", "NDIMS", "VARIANT_ALIASES"]

VARIANTS: tuple[str, ...] = AXES["variant"].domain
DTYPES: tuple[str, ...] = AXES["dtype"].domain
NDIMS: tuple[int, ...] = AXES["ndim"].domain


def split_values(values: Iterable[str] | None, option: str = "value") -> list[str]:
    """Comma-separated, repeatable option values; an empty one (``--arch ''``, ``--arch a,``) is an error.

    Leaving an option out selects everything; giving it empty must not.
    """
    out: list[str] = []
    for v in values or ():
        parts = [p.strip() for p in str(v).split(",")]
        if not all(parts):
            raise CksolveError(f"empty {{option}} in {shorten(str(v))}", option=option)
        out.extend(parts)
    return out


#: what separates archs in one value: a comma, CK's GPU_TARGETS semicolon (``gfx942;gfx950``), or blanks
_ARCH_SEPARATOR = re.compile(r"\s*[,;]\s*|\s+")


def split_archs(values: Iterable[str] | None) -> list[str]:
    """Arch values as CK and ROCm write lists: comma-, semicolon- (``GPU_TARGETS``) or blank-separated,
    repeatable; an empty one (``''``, ``gfx942;``) is an error."""
    out: list[str] = []
    for v in values or ():
        text = str(v).strip()
        parts = _ARCH_SEPARATOR.split(text) if text else [""]
        if not all(parts):
            raise CksolveError(f"empty {{option}} in {shorten(str(v))}", option="arch")
        out.extend(parts)
    return out


def _product(text: str) -> tuple[str, tuple[str, ...]] | None:
    """(arch, products) when ``text`` is a product name (``devices.toml``), else None; an arch or target ID
    (``gfx...``) is never one, and reads no device data."""
    if is_target_id(text):
        return None
    from .arch.devices import product_arch  # deferred: devices.toml is read only for a value that is no gfx arch

    return product_arch(text)


def _arch_of(text: str) -> str:
    """The arch one value selects: a product name's (``MI300X``: gfx942), else a target ID's base arch."""
    product = _product(text)
    return product[0] if product else base_arch(text)


def arch_spellings(values: Iterable[str] | None) -> tuple[list[str], list[tuple[str, str]]]:
    """(the archs or target IDs ``values`` name, each product name replaced by its arch; [(product, arch)] for
    the product names used). Lists are split as :func:`split_archs` does; an ambiguous product name is an
    error naming its candidates. Unknown archs are the selection's to refuse (it knows the CK version)."""
    names, products = [], []
    for v in split_archs(values):
        product = _product(v)
        names.append(product[0] if product else v)
        if product:
            products.append((v, product[0]))
    return names, products


def _variant_aliases() -> dict[str, str]:
    """The spellings CK uses for a variant besides its name: its name tag (``fwd``, ``bwd_data``), and
    both with ``-`` for ``_`` (``bwd-data``, ``bwd-weight``, ``forward-depthwise``) -- from the variants table."""
    out = {}
    for name, v in VARIANT_TABLES.items():
        for spelling in (v.tag, v.tag.replace("_", "-"), name.replace("_", "-")):
            out.setdefault(spelling, name)
    out.update((name, name) for name in VARIANT_TABLES)
    return out


#: variant spellings accepted besides the canonical names (``--variant fwd``)
VARIANT_ALIASES: dict[str, str] = _variant_aliases()


def _choose(option: str, given: Iterable[str] | None, valid: Sequence, convert=str, split=split_values) -> tuple:
    raw = split(given, option)
    if not raw:
        return tuple(valid)
    chosen = []
    for v in raw:
        try:
            value = convert(v)
        except ValueError:
            value = None
        if value not in valid:
            raise CksolveError(f"unknown {option} {shorten(v)}; valid: {valid_list(valid)}"
                               f"{did_you_mean(v, valid)}")
        if value not in chosen:
            chosen.append(value)
    return tuple(x for x in valid if x in chosen)  # canonical order


def _ndim(v: str) -> int:
    digits = v[:-1] if v.lower().endswith("d") else v
    if not (digits.isascii() and digits.isdigit() and len(digits) < 4):  # '٢' is a digit to int(), not to us
        raise ValueError(v)
    return int(digits)


@dataclass(frozen=True)
class Selection:
    """The archs, variants, dtypes and ndims a command works on; ``combos()`` in canonical order."""

    archs: tuple[str, ...]
    variants: tuple[str, ...]
    dtypes: tuple[str, ...]
    ndims: tuple[int, ...]

    def combos(self) -> list[Combo]:
        """Combinations in canonical order: arch, variant, dtype, ndim."""
        return [Combo(a, v, d, n) for a in self.archs for v in self.variants for d in self.dtypes for n in self.ndims]

    @property
    def one_kind(self) -> bool:
        """Whether every selected variant builds one kernel kind (a csv of its records has one header)."""
        return len(set(map(kind_of, self.variants))) == 1


def _not_in_this_version(archs) -> None:
    """An arch cksolve knows that the active version does not (an ``--arch-specs`` file without it): the error
    names the version (the file) and the way out, not a near spelling of another arch."""
    from .arch.versions import active  # deferred: only a version that lacks a bundled arch needs it

    for v in split_archs(archs):
        try:
            arch = base_arch(v)
        except ValueError:
            continue
        if arch in BUNDLED_ARCHS and arch not in known_archs():
            version = active()
            way = ("drop {opt:arch_specs} (the bundled CK versions know it) or give a file that lists it"
                   if version.source else "choose another {opt:ck}")
            raise CksolveError(f"arch {arch!r} is not in {version.label}, which lists "
                               f"{', '.join(known_archs())}: {way}")


def select(archs=None, variants=None, dtypes=None, ndims=None) -> Selection:
    _not_in_this_version(archs)
    return Selection(
        # a ROCm target ID (gfx942:xnack-) selects by its base arch, a product name (MI300X) by its arch
        _choose("arch", archs, known_archs(), _arch_of, lambda given, _: split_archs(given)),
        _choose("variant", variants, VARIANTS, lambda v: VARIANT_ALIASES.get(v, v)),
        _choose("dtype", dtypes, DTYPES),
        _choose("ndim", ndims, NDIMS, _ndim),
    )


def canonical_order(configs: Iterable) -> list:
    """Configs of one arch in ``enumerate``'s order: variant, dtype, ndim (domain order), then name."""
    return sorted(configs, key=lambda c: (VARIANTS.index(c.variant), DTYPES.index(c.dtype), NDIMS.index(c.ndim),
                                          c.name()))


def gemm_variants(variants: Sequence[str]) -> list[str]:
    """The variants whose kernels have a GEMM pipeline (depthwise ones do not)."""
    return [v for v in variants if kind_of(v) == GEMM.name]


class Record(NamedTuple):
    """One enumerated kernel (a named tuple: tens of thousands are made per listing)."""

    rule_set: str
    combo: Combo
    config: object

    @property
    def name(self) -> str:
        return self.config.name()

    def as_dict(self) -> dict:
        d = {"rule_set": self.rule_set, "arch": self.combo.arch, "variant": self.combo.variant,
             "dtype": self.combo.dtype, "ndim": self.combo.ndim, "name": self.name, "kind": self.config.kind}
        for k, v in self.config.as_dict().items():
            d.setdefault(k, v)
        if self.config.kind == GEMM.name:
            d["block_per_cu"] = self.config.block_per_cu
        return d
