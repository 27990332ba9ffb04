"""Generate docs/constraints.md from the constraint data, so the reference cannot drift.

    python -m cksolve.docs > docs/constraints.md

A test regenerates the page and compares it with the committed file.
"""

from __future__ import annotations

import sys

from .arch.arch_constraints import gemm_constraints, wmma_k_constraint
from .arch.devices import DEFAULT_DEVICE, device
from .arch.facts import arch_facts, archs
from .arch.versions import active
from .space.axes import AXES
from .space.canonical import SPACE_CONSTRAINTS
from .space.constraints import Check, Table
from .space.pipelines import PIPELINES
from .space.values import VALUES
from .space.variants import VARIANTS
from .rulesets import RULE_SETS, RuleSetError, get_rule_set, rule_set_description
from .space.combo import Combo
from .workload.rules import every_rule

__all__ = ["constraints_page"]

# Rule sets are documented on a representative combination; builder sets need files.
_SAMPLE = Combo("gfx942", "forward", "fp16", 2)
_SAMPLE_BWD = Combo("gfx942", "bwd_weight", "fp16", 2)


def _rows(n: int) -> str:
    return f"{n} row{'' if n == 1 else 's'}"


def _form(c, per_kind=()) -> str:
    """A table's size; ``per_kind`` (the rule's tables, one per kernel kind) when they differ."""
    if isinstance(c, Table):
        sizes = {t.applies_to: len(t.rows) for t in per_kind}
        size = (", ".join(f"{kind}: {_rows(n)}" for kind, n in sizes.items()) if len(set(sizes.values())) > 1
                else _rows(len(c.rows)))
        return f"{'forbidden' if c.forbid else 'allowed'} table ({size})"
    assert isinstance(c, Check)
    return f"check `{c.test.__name__}`"


def _row(c, per_kind=()) -> str:
    scope = ", ".join(c.scope)
    doc = (c.doc or c.message).replace("|", "\\|")
    return f"| `{c.name}` | {scope} | {_form(c, per_kind)} | {doc} | {c.source} |"


def _yes(flag: bool) -> str:
    return "yes" if flag else ""


def _pipelines_section() -> list[str]:
    lines = ["", "## Pipelines", "",
             "One table per pipeline in `cksolve/space/pipelines.toml`; the arch constraints below, blocks per",
             "CU and the emitted C++ read them. Intrawave-only: layer 1 (TraitConfigBase) / layer 2 (arch filter).",
             "",
             "| pipeline | CK enum | LDS buffering | LDS bytes at 60b27664 | intrawave-only | backward | rejected for | async |",
             "|---|---|---|---|---|---|---|---|"]
    for p in PIPELINES.values():
        only = "/".join(s for s, f in (("1", p.intrawave_only), ("2", p.filter_intrawave_only)) if f)
        lines.append(f"| `{p.name}` | {p.ck_enum} | {p.lds_buffering} | {p.lds_capacity} | {only} | "
                     f"{_yes(p.backward)} | {', '.join(p.rejected_variants)} | {_yes(p.async_copy)} |")
    return lines


def _variants_section() -> list[str]:
    lines = ["", "## Variants", "",
             "One table per variant in `cksolve/space/variants.toml` (name tag, kind, arch-filter operator and",
             "tile rules, stream-K, the C++ kernel spellings).", "",
             "| variant | kind | name tag | direction | operator | tile min (M, N, K) | tile align | backward | stream-K |",
             "|---|---|---|---|---|---|---|---|---|"]
    for v in VARIANTS.values():
        lines.append(f"| `{v.name}` | {v.kind} | `{v.tag}` | {v.direction} | {v.operator} | "
                     f"{', '.join(map(str, v.tile_min))} | {', '.join(map(str, v.tile_align))} | "
                     f"{_yes(v.backward)} | {_yes(v.streamk)} |")
    return lines


def _archs_section() -> list[str]:
    lines = ["", "## Architectures", "",
             "One table per architecture in `cksolve/arch/facts.toml`; the arch constraints, the run-time",
             "checks (stream-K backward weight, async copy) and `features` (CK's hardware profile) read them.",
             "A device (CUs, clock, bandwidth) is not an arch: `cksolve/arch/devices.toml` holds each part and",
             "each arch's default one, which `minimize`'s score and the performance model read.", "",
             "| arch | family | warp size | wave splits | LDS | default device | hardware profile | stream-K bwd_weight | async copy |",
             "|---|---|---|---|---|---|---|---|---|"]
    for arch in archs():
        a = arch_facts(arch)
        splits = " ".join("x".join(map(str, w)) for w in a.wave_splits)
        lds = f"{a.lds_capacity // 1024} KB" if a.lds_capacity is not None else ""
        lines.append(f"| {arch} | {a.family} | {a.warp_size} | {splits} | {lds} | {_device(arch)} | "
                     f"{_yes(a.hw_profile is not None)} | {_yes(a.streamk_bwd_weight)} | {_yes(a.async_copy)} |")
    return lines


def _device(arch: str) -> str:
    if arch not in DEFAULT_DEVICE:
        return "none"
    d = device(arch)
    return f"{d.name} ({d.cus} CUs{', a stand-in, not a product' if d.stand_in else ''})"


def _values_section() -> list[str]:
    lines = ["", "## Values", "",
             "One table per value in `cksolve/space/values.toml`: how CK spells it in names, kernel code",
             "and the dispatcher's key, and its facts. The names, the emitted C++ and the run-time checks",
             "read them."]
    for kind, values in VALUES.items():
        facts = list(next(iter(values.values())))
        lines += ["", f"| `{kind}` | {' | '.join(facts)} |", "|---" * (len(facts) + 1) + "|"]
        for v, f in values.items():
            cells = (", ".join(map(str, x)) if isinstance(x, list) else _yes(x) if isinstance(x, bool) else str(x)
                     for x in f.values())
            lines.append(f"| `{v}` | {' | '.join(cells)} |")
    return lines


def constraints_page() -> str:
    lines = [
        "# Constraint reference",
        "",
        "Generated from the constraint data by `python -m cksolve.docs`; do not edit by hand.",
        "Every constraint has a stable name (what `check` and `explain` report), the axes it",
        "touches, its form (a table the solvers use directly, or a named check that the",
        "solvers tabulate over the finite domains), and the CK rule it encodes.",
        "",
        f"Facts and rule variants of {active().label}, the default; `--ck` answers at another CK version",
        "(ck-versions.md).",
        "",
        "## Axes",
        "",
        "| axis | kernel kind | domain | meaning |",
        "|---|---|---|---|",
    ]
    for a in AXES.values():
        lines.append(f"| `{a.name}` | {a.kind} | {', '.join(map(str, a.domain))} | {a.doc} |")
    lines += _values_section()
    lines += _variants_section()
    lines += _pipelines_section()
    lines += _archs_section()
    header = ["", "| name | scope | form | what it checks | CK rule |", "|---|---|---|---|---|"]
    lines += ["", "## Space constraints", "", "They make a point of the raw domains a well-formed config.", *header]
    by_name = {}
    for c in SPACE_CONSTRAINTS:  # one row per rule, not per kind
        by_name.setdefault(c.name, []).append(c)
    lines += [_row(tables[0], tables) for tables in by_name.values()]
    lines += [
        "", "## Architecture constraints", "",
        "Built per architecture from `cksolve/arch/facts.toml` and the pipeline and variant tables;",
        "shown here for gfx942 (table sizes vary by arch). Applied to every rule set, in CK's order.",
        f"Architectures: {', '.join(archs())}.",
        "Depthwise kernels have no arch constraints: CK applies none to them.",
        *header,
    ]
    lines += [_row(c) for c in gemm_constraints("gfx942")]
    lines += [_row(wmma_k_constraint("gfx1201"))]
    lines += ["", "`arch.wmma_k` is added by rule sets whose CK configs carry a dtype tag (`full` and",
              "its subsets, `tests`, `profiler`); `default`'s configs carry none, so CK skips it there."]
    lines += ["", "## Rule-set constraints", "",
              f"Shown for {_SAMPLE.key} (and {_SAMPLE_BWD.key} where it differs).", ""]
    documented: set[str] = set()
    for name in RULE_SETS:
        lines += [f"### `{name}`", "", rule_set_description(name), ""]
        try:
            rs = get_rule_set(name)
            seen = {}
            for combo in (_SAMPLE, _SAMPLE_BWD):
                for c in rs.constraints(combo):
                    if not c.name.startswith("arch.") and c.name not in documented:
                        seen.setdefault(c.name, c)
            documented.update(seen)
        except RuleSetError:
            lines += ["Reads CK Builder `.conf` files (`--builder-configs`): one allowed table,",
                      "`rules.<set>.instances`, over all axes of the kernel kind, per combination.", ""]
            continue
        lines += header[1:]
        lines += [_row(c) for c in seen.values()]
        lines.append("")
    lines += _applicability_section(header)
    return "\n".join(lines).rstrip() + "\n"


def _applicability_section(header: list[str]) -> list[str]:
    lines = ["", "## Applicability constraints", "",
             "CK Tile's run-time checks (`IsSupportedArgument`): whether a kernel can run a given",
             "convolution problem (`applicable`, `coverage`, `explain --problem`). The problem is fixed,",
             "so each rule is a check over the kernel axes it reads, with the problem's facts (C and K",
             "per group, filter, stride, pad, dilation, output sizes, split_k, GEMM sizes), the arch and",
             "the dtype as parameters. Data: `cksolve/workload/applicability.toml`.",
             "Kernel kind `depthwise` rules apply to forward_depthwise kernels only.",
             *header]
    for name, r in every_rule():
        scope = ", ".join(r.scope)
        doc = r.doc.replace("|", "\\|")
        lines.append(f"| `{name}` | {scope} | check `{r.check}` ({'/'.join(r.kinds)}) | {doc} | {r.source} |")
    return lines


if __name__ == "__main__":
    sys.stdout.write(constraints_page())
