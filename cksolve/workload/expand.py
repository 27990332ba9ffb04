"""Dispatcher short names -> the full kernel names they can stand for in a rule set.

A short name (``grouped_conv_forward_bf16_2d_64x64x64_compv3``, grammar in
``space.shortnames``) leaves out the wave split, warp tile, vectors and epilogue,
so in a rule set it stands for every kernel whose short name it is. Which one
CK's tile-engine runner builds for it is the label resolver's answer
(``workload.labels``: an ``exact`` or ``nearest`` kernel of the ``default`` rule set);
this module only lists the kernels and pairs them with that answer.

The verdict ``check`` gives a short name (one rule, here): it is valid for an arch when
it stands for at least one kernel of the ``default`` rule set there -- exactly when the
resolver finds it ``exact``, so ``train``/``evaluate`` use a kernel with this very short
name -- or, with a rule set, one kernel of that rule set (then it is also a member).
A short name CK's runner would only map to a ``nearest`` kernel is not valid.

API::

    from cksolve.workload.expand import expand_short
    e = expand_short("grouped_conv_forward_bf16_2d_64x64x64_compv3", "gfx950")   # rule_set: default
    e.kernels      # full names in the rule set with this short name, in name order
    e.resolved     # labels.Resolved: what CK's runner builds (its .kernel, .how)
    e.valid, e.member, e.why
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CksolveError, shorten
from ..rulesets import RuleSet, get_rule_set, takes_rule_set
from ..selection import DTYPES
from ..solver import enumerate_combo
from ..space.combo import Combo
from ..space.naming import NameError_
from ..space.shortnames import read_short
from .labels import RESOLVE_RULE_SET, LabelResolver, Resolved, SHORT_FIELDS

__all__ = ["Expansion", "expand_short"]


@dataclass(frozen=True)
class Expansion:
    """A short name in a rule set at an arch: the full names it stands for and what CK's runner builds."""

    short: str
    arch: str
    rule_set: str  # where ``kernels`` come from
    kernels: tuple[str, ...]
    resolved: Resolved  # the resolver's kernel (``default``): exact, nearest or unknown
    default_kernels: tuple[str, ...]  # the same list in ``default`` (== kernels when rule_set is default)
    asked_rule_set: bool = False  # a rule set was given (membership asked)
    resolved_rule_set: str = RESOLVE_RULE_SET  # where the resolver's kernel comes from

    @property
    def valid(self) -> bool:
        return bool(self.default_kernels or self.kernels)

    @property
    def member(self) -> bool | None:
        return bool(self.kernels) if self.asked_rule_set else None

    @property
    def why(self) -> str:
        """Why not valid (or not a member): one line; empty when valid (and a member if asked)."""
        r = self.resolved
        if not self.valid:
            if r.config is None:
                return r.why
            return (f"no kernel of the {RESOLVE_RULE_SET} rule set for {self.arch} has this short name; "
                    f"CK's runner would build the nearest, {r.kernel}")
        if self.member is False:
            return f"no kernel of rule set {self.rule_set} for {self.arch} has this short name"
        return ""

    def as_dict(self) -> dict:
        return {"short": self.short, "arch": self.arch, "rule_set": self.rule_set, "valid": self.valid,
                "kernels": list(self.kernels), "resolved": self.resolved.kernel, "how": self.resolved.how}


@takes_rule_set
def expand_short(short: str, arch: str, rule_set: RuleSet | None = None,
                 resolver: LabelResolver | None = None) -> Expansion:
    """The full names ``short`` stands for in ``rule_set`` (``default`` when None) at ``arch``, and the kernel
    CK's runner builds for it (``resolver``'s, one made for ``arch`` when None). A NameError_ (a CksolveError)
    when ``short`` is not a short name or names an unknown dtype."""
    fields = read_short(short)
    if fields is None:
        raise NameError_(f"{shorten(short)} is not a dispatcher short name "
                           "(grouped_conv_VARIANT_DTYPE_Nd_MxNxK_PIPELINE[_SCHEDULER][_gmG][_dsb][_si][_2stage])")
    want = dict(zip(SHORT_FIELDS, fields))
    if want["dtype"] not in DTYPES:
        raise NameError_(f"short name {shorten(short)}: unknown dtype {want['dtype']!r}; valid: {', '.join(DTYPES)}")
    resolver = resolver if resolver is not None else LabelResolver(arch)
    resolved = resolver.resolve(short)
    default = _matching(get_rule_set(RESOLVE_RULE_SET), arch, want)
    kernels = default if rule_set is None or rule_set.name == RESOLVE_RULE_SET else _matching(rule_set, arch, want)
    return Expansion(short, arch, RESOLVE_RULE_SET if rule_set is None else rule_set.name, kernels, resolved,
                     default, rule_set is not None)


def _matching(rule_set: RuleSet, arch: str, want: dict) -> tuple[str, ...]:
    combo = Combo(arch, want["variant"], want["dtype"], want["ndim"])
    try:
        configs = enumerate_combo(rule_set, combo)
    except CksolveError:  # a combination the rule set or arch does not have: no kernels
        return ()
    return tuple(c.name() for c in configs if all(getattr(c, f, None) == want[f] for f in SHORT_FIELDS))
