"""The report's pictures as inline SVG text: stacked bars and heat maps, no script, no external font.

Sizes are in SVG user units with a ``viewBox``, so the page scales them; every
shape carries a ``<title>`` (the browser's tooltip) with its exact number.
"""

from __future__ import annotations

from html import escape
from typing import Callable, Sequence

__all__ = ["PALETTE", "stacked_bars", "heat_map", "heat_colour"]

#: colours for categories (variants, pipelines), in order; repeated past its end
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#bab0ac")
_FONT = 'font-family="sans-serif" font-size="12"'


def _text(x: float, y: float, s: str, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}" {_FONT}{extra}>{escape(s)}</text>'


def stacked_bars(rows: Sequence[tuple[str, Sequence[int]]], segments: Sequence[str], unit: str = "kernels") -> str:
    """One horizontal bar per row (label, a value per segment), segments coloured and in a legend."""
    label_w, bar_w, row_h, top = 90, 520, 22, 30
    most = max((sum(vs) for _, vs in rows), default=0) or 1
    height = top + row_h * len(rows) + 10
    out = [f'<svg viewBox="0 0 {label_w + bar_w + 90} {height}" '
           f'width="{label_w + bar_w + 90}" height="{height}" role="img">']
    x = label_w
    for i, seg in enumerate(segments):  # legend
        colour = PALETTE[i % len(PALETTE)]
        out.append(f'<rect x="{x}" y="6" width="12" height="12" fill="{colour}"/>')
        out.append(_text(x + 16, 16, seg))
        x += 16 + 8 * len(seg) + 14
    for r, (label, values) in enumerate(rows):
        y = top + r * row_h
        out.append(_text(label_w - 6, y + 14, label, "end"))
        x = float(label_w)
        for i, (seg, v) in enumerate(zip(segments, values)):
            if not v:
                continue
            w = bar_w * v / most
            out.append(f'<rect x="{x:.1f}" y="{y + 2}" width="{w:.1f}" height="{row_h - 6}" '
                       f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(f"{label} {seg}: {v:,} {unit}")}</title></rect>')
            x += w
        out.append(_text(x + 6, y + 14, f"{sum(values):,}"))
    out.append("</svg>")
    return "".join(out)


def heat_colour(fraction: float | None, scale: str = "share") -> str:
    """``share`` (a part that should be whole, e.g. problems covered): red (0) through yellow to green (1);
    ``amount`` (how many, nothing good or bad about it): light to dark blue. Grey for no value."""
    if fraction is None:
        return "#e8e8e8"
    f = max(0.0, min(1.0, fraction))
    if scale == "amount":
        return f"hsl(212, 60%, {88 - 40 * f:.0f}%)"
    return f"hsl({120 * f:.0f}, 65%, 62%)"


def heat_map(rows: Sequence[str], columns: Sequence[str], cell: Callable[[str, str], tuple[float | None, str, str]],
             scale: str = "share") -> str:
    """A grid: ``cell(row, column)`` gives (fraction for the colour or None, the text shown, the tooltip);
    ``scale`` as :func:`heat_colour`."""
    label_w = max((7 * len(r) for r in rows), default=60) + 14
    cell_w, cell_h, top = max(78, max((7 * len(c) + 12 for c in columns), default=0)), 24, 24
    width = label_w + cell_w * len(columns) + 4
    height = top + cell_h * len(rows) + 4
    out = [f'<svg viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img">']
    for j, c in enumerate(columns):
        out.append(_text(label_w + j * cell_w + cell_w / 2, 16, c, "middle"))
    for i, r in enumerate(rows):
        y = top + i * cell_h
        out.append(_text(label_w - 6, y + 16, r, "end"))
        for j, c in enumerate(columns):
            fraction, shown, tip = cell(r, c)
            x = label_w + j * cell_w
            out.append(f'<rect x="{x + 1}" y="{y + 1}" width="{cell_w - 2}" height="{cell_h - 2}" '
                       f'fill="{heat_colour(fraction, scale)}"><title>{escape(tip)}</title></rect>')
            out.append(_text(x + cell_w / 2, y + 16, shown, "middle"))
    out.append("</svg>")
    return "".join(out)
