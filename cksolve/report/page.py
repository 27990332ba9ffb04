"""The report as one HTML page: inline CSS and SVG, no script, no link to anything outside it.

Sections (each an element with a fixed ``id``, which tests look for): ``summary``, ``kernels``
(per arch and variant, per arch and pipeline), ``audit`` (combinations that lose everything or
most of it, and the arch rules blocking them), ``coverage`` (with a workload: problem groups x
archs) and ``minimize`` (when asked).
"""

from __future__ import annotations

from html import escape

from .data import ReportData, pipeline_of
from .svg import heat_map, stacked_bars

__all__ = ["render", "SECTIONS", "short_count"]


def short_count(n: int) -> str:
    """``n`` in at most four characters, for a heat-map cell (the tooltip keeps the exact number): as is below
    1000, then 1.2k, 12k, 123k, 1.2M, ... -- rounded down, so that 99,999 of 100,000 never reads as all."""
    if n < 1000:
        return str(n)
    for unit, scale in (("k", 10 ** 3), ("M", 10 ** 6), ("G", 10 ** 9), ("T", 10 ** 12)):
        if n < 1000 * scale or unit == "T":
            if n < 10 * scale:
                tenths = n * 10 // scale
                return f"{tenths // 10}.{tenths % 10}{unit}" if tenths % 10 else f"{tenths // 10}{unit}"
            return f"{n // scale}{unit}"
    raise AssertionError("unreachable")  # pragma: no cover

#: the section ids, in page order
SECTIONS = ("summary", "kernels", "audit", "coverage", "minimize")

_CSS = """
body { font-family: sans-serif; margin: 24px 32px; color: #222; max-width: 1100px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; } td.n { text-align: right; }
.muted { color: #666; font-size: 13px; } code { font-size: 12px; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; font-size: 14px; }
dt { color: #555; } dd { margin: 0; }
"""


def _table(header, rows, numeric=()) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="n">{v:,}</td>' if i in numeric
                                    else f"<td>{escape(str(v))}</td>" for i, v in enumerate(row)) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _summary(d: ReportData) -> str:
    sel = d.selection
    items = [("rule set", f"{d.rule_set}: {d.description}"), ("CK version", d.ck), ("archs", ", ".join(sel.archs)),
             ("variants", ", ".join(sel.variants)), ("dtypes", ", ".join(sel.dtypes)),
             ("ndims", ", ".join(f"{n}d" for n in sel.ndims)), ("kernels", f"{d.total:,}"),
             ("audit findings", ", ".join(f"{k} {v}" for k, v in d.findings.items()))]
    if d.problems is not None:
        items.append(("workload", d.problems))
    body = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items)
    return f'<section id="summary"><h1>cksolve report: {escape(d.rule_set)}</h1><dl>{body}</dl></section>'


def _kernels(d: ReportData) -> str:
    sel = d.selection
    bars = stacked_bars([(a, [d.by_variant[a, v] for v in sel.variants]) for a in sel.archs], sel.variants)
    most = max(d.by_pipeline.values(), default=0) or 1

    def cell(arch, pipeline):
        n = d.by_pipeline.get((arch, pipeline), 0)
        return (n / most if n else None), (f"{n:,}" if n else "-"), f"{arch} {pipeline}: {n:,} kernels"

    grid = heat_map(list(sel.archs), list(d.pipelines), cell, "amount") if d.pipelines else "<p>No kernels.</p>"
    return (f'<section id="kernels"><h2>Kernels per arch and variant</h2>{bars}'
            f"<h2>Kernels per arch and pipeline</h2>{grid}</section>")


def _audit(d: ReportData) -> str:
    if not d.lossy:
        return ('<section id="audit"><h2>Audit: empty combinations (0)</h2>'
                "<p>No combination loses its kernels to the arch rules.</p></section>")
    sel = d.selection
    groups: dict[tuple[str, str, str], list] = {}  # (arch, variant, blocking rules) -> findings
    for f in d.lossy:
        groups.setdefault((f.combo.arch, f.combo.variant, ", ".join(f.blocking) or "-"), []).append(f)
    per_cell: dict[tuple[str, str], list] = {}
    for f in d.lossy:
        per_cell.setdefault((f.combo.arch, f.combo.variant), []).append(f)
    of = len(sel.dtypes) * len(sel.ndims)

    def cell(arch, variant):
        found = per_cell.get((arch, variant), [])
        rules = sorted({r for f in found for r in f.blocking})
        tip = f"{arch} {variant}: {len(found)} of {of} combinations lose their kernels" + (
            f"; blocking: {', '.join(rules)}" if rules else "")
        return (1 - len(found) / of), (f"{len(found)}/{of}" if found else "-"), tip

    grid = heat_map(list(sel.archs), list(sel.variants), cell)
    rows = [(arch, variant, " ".join(f"{f.combo.dtype}/{f.combo.ndim}d" for f in found),
             sum(f.proposed for f in found), sum(f.accepted for f in found), rules)
            for (arch, variant, rules), found in groups.items()]
    return (f'<section id="audit"><h2>Audit: empty combinations ({len(d.lossy)})</h2>'
            f'<p class="muted">Combinations (dtype, ndim) where the arch rules reject every config the rule set '
            f"proposes (or 90% or more), per arch and variant, and a minimal set of arch rules whose removal "
            f"brings configs back.</p>{grid}"
            + _table(["arch", "variant", "combinations", "proposed", "accepted", "blocking rules"], rows, (3, 4))
            + "</section>")


def _coverage(d: ReportData) -> str:
    archs = list(d.selection.archs)

    def cell(group, arch):
        c = d.coverage.get((group, arch))
        if c is None:
            return None, "-", f"{group} on {arch}: no problems"
        why = d.uncovered.get((group, arch), {})
        tip = f"{group} on {arch}: {c.covered}/{c.total} covered" + "".join(
            f"; {n} blocked by {rule}" for rule, n in sorted(why.items(), key=lambda kv: (-kv[1], kv[0])))
        return c.covered / c.total, f"{short_count(c.covered)}/{short_count(c.total)}", tip

    grid = heat_map(list(d.groups), archs, cell)
    rows = [(g, a, n, rule) for (g, a), why in d.uncovered.items() for rule, n in
            sorted(why.items(), key=lambda kv: (-kv[1], kv[0]))]
    detail = _table(["problem group", "arch", "uncovered", "rule rejecting most kernels"], rows, (2,)) if rows else \
        "<p>Every problem has a kernel on every arch.</p>"
    return (f'<section id="coverage"><h2>Coverage of {escape(d.problems)}</h2>'
            f'<p class="muted">Problems (per dtype) that some kernel can run, per problem group and arch.</p>'
            f"{grid}{detail}</section>")


def _minimize(d: ReportData) -> str:
    plan = d.plan
    s = d.minimize  # workload.minimize_summary: the numbers of minimize --summary-format json
    solver = s["solver"]
    items = [("kept", f"{s['kept']} of the {s['candidates']} kernels that run some problem"),
             ("problems covered", f"{s['covered']} of {s['problems']} (those {s['rule_set']} covers); {s['good']} keep "
                                  f"a kernel scoring >= {s['request']['keep']} x the best"),
             ("score ratio", (f"worst {s['ratio']['worst']:.3f}, mean {s['ratio']['mean']:.3f}"
                              if s["covered"] else "none: no problem covered") + f" ({s['scored_by']})"),
             ("solver", f"{solver['status']}, {solver['objective']} {solver['value']}, bound {solver['bound']:g}, "
                        f"gap {solver['gap']:.1%}")]  # not its seconds: the same inputs give the same page
    body = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items)
    per: dict[str, list[str]] = {}
    for c in plan.configs():
        per.setdefault(pipeline_of(c), []).append(c.name())
    rows = [(p, n) for p in sorted(per) for n in sorted(per[p])]
    return (f'<section id="minimize"><h2>Minimum kernel set on {escape(d.minimize_arch)}: '
            f"{s['kept']} kernels</h2><dl>{body}</dl>{_table(['pipeline', 'kernel'], rows)}</section>")


def render(d: ReportData) -> str:
    """The page (UTF-8 text)."""
    parts = [_summary(d), _kernels(d), _audit(d)]
    if d.coverage is not None:
        parts.append(_coverage(d))
    if d.plan is not None:
        parts.append(_minimize(d))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>cksolve report: {escape(d.rule_set)}</title><style>{_CSS}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")
