"""The live view's panels as small self-contained SVG strings.

Hand-written SVG rather than matplotlib: a frame is redrawn every few steps while the
model trains, and a matplotlib figure costs hundreds of milliseconds where these cost
about one. Each panel is one ``<svg class="panel" data-panel="...">`` element, so a test
(or a student's CSS) finds it by name; coordinates are rounded to 0.1 px, so a frame's
text is the same run after run for the same numbers.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np

__all__ = ["PALETTE", "line_chart", "histogram", "ratio_chart", "boundary_map"]

PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#ea580c", "#7c3aed", "#0891b2", "#ca8a04",
           "#db2777", "#4b5563", "#65a30d")
W, H = 260, 150           # panel size
L, R, T, B = 44, 8, 20, 20  # margins: left (tick labels), right, top (title), bottom


def _n(x: float) -> str:
    return f"{x:.1f}" if math.isfinite(x) else "0"


def _tick(v: float) -> str:
    if v == 0:
        return "0"
    if v == int(v) and abs(v) < 1e6:  # steps, counts
        return str(int(v))
    if 100 <= abs(v) < 1e6:
        return f"{v:.0f}"
    return f"{v:.2g}" if 1e-2 <= abs(v) < 100 else f"{v:.0e}"


def _open(panel: str, title: str, width: int = W, height: int = H) -> list[str]:
    return [f'<svg class="panel" data-panel="{escape(panel)}" xmlns="http://www.w3.org/2000/svg" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'font-family="sans-serif" font-size="10">',
            f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
            f'<text x="{width / 2:.0f}" y="13" text-anchor="middle" font-weight="bold">'
            f"{escape(title)}</text>"]


def _axes(lo: float, hi: float, log: bool, x0: float, x1: float, labels=True) -> list[str]:
    """The plot frame and two y tick labels (bottom and top of the range)."""
    out = [f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" '
           f'stroke="#9ca3af" stroke-width="0.5"/>']
    if labels:
        bottom, top = (10 ** lo, 10 ** hi) if log else (lo, hi)
        out.append(f'<text x="{L - 3}" y="{H - B}" text-anchor="end">{_tick(bottom)}</text>')
        out.append(f'<text x="{L - 3}" y="{T + 8}" text-anchor="end">{_tick(top)}</text>')
        out.append(f'<text x="{L}" y="{H - 6}">{_tick(x0)}</text>')
        out.append(f'<text x="{W - R}" y="{H - 6}" text-anchor="end">{_tick(x1)}</text>')
    return out


def _scale(lo: float, hi: float, a: float, b: float):
    span = hi - lo if hi > lo else 1.0
    return lambda v: a + (v - lo) / span * (b - a)


def _range(values: np.ndarray, log: bool) -> tuple[float, float]:
    v = values[np.isfinite(values)]
    if log:
        v = np.log10(v[v > 0])
    if v.size == 0:
        return (-4.0, 0.0) if log else (0.0, 1.0)
    lo, hi = float(v.min()), float(v.max())
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


MAX_POINTS = W - L - R  # a curve has at most one point per pixel column


def _polyline(xs, ys, fx, fy, color: str, log: bool, cls: str) -> str:
    xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    keep = np.isfinite(ys) & ((ys > 0) if log else True)
    xs, ys = xs[keep], ys[keep]
    if log:
        ys = np.log10(ys)
    if xs.size == 0:
        return ""
    if xs.size > MAX_POINTS:  # hundreds of steps: the mean of each run of steps
        cut = np.linspace(0, xs.size, MAX_POINTS + 1).astype(int)
        xs, ys = (np.add.reduceat(a, cut[:-1]) / np.diff(cut) for a in (xs, ys))
    px, py = fx(xs), fy(ys)
    if px.size == 1:
        return (f'<circle class="{cls}" cx="{px[0]:.1f}" cy="{py[0]:.1f}" r="2" '
                f'fill="{color}"/>')
    pairs = np.empty(2 * px.size)
    pairs[0::2], pairs[1::2] = px, py
    text = ("%.1f,%.1f " * px.size % tuple(pairs.tolist()))[:-1]  # one format for all
    return (f'<polyline class="{cls}" points="{text}" fill="none" stroke="{color}" '
            f'stroke-width="1.5"/>')


def line_chart(panel: str, title: str, steps, series: dict, log: bool = False,
               guide: float | None = None) -> str:
    """Curves over steps, one colour per series, with a legend; ``guide`` draws a dashed
    horizontal line at that value (the ratio panel's 1e-3)."""
    steps = np.asarray(steps, dtype=np.float64)
    arrays = {k: np.asarray(v, dtype=np.float64) for k, v in series.items()}
    allv = np.concatenate([a for a in arrays.values()] + ([np.array([guide])] if guide else [])) \
        if arrays else np.array([])
    lo, hi = _range(allv, log)
    x0, x1 = (float(steps.min()), float(steps.max())) if steps.size else (0.0, 1.0)
    fx, fy = _scale(x0, x1, L, W - R), _scale(lo, hi, H - B, T)
    out = _open(panel, title) + _axes(lo, hi, log, x0, x1)
    if guide is not None:
        gy = fy(math.log10(guide) if log else guide)
        out.append(f'<line class="guide" x1="{L}" x2="{W - R}" y1="{_n(gy)}" y2="{_n(gy)}" '
                   f'stroke="#6b7280" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{W - R - 2}" y="{_n(gy - 2)}" text-anchor="end" fill="#6b7280">'
                   f"{_tick(guide)}</text>")
    for i, (name, ys) in enumerate(arrays.items()):
        color = PALETTE[i % len(PALETTE)]
        out.append(_polyline(steps[-len(ys):], ys, fx, fy, color, log, "series"))
        out.append(f'<text x="{L + 4}" y="{T + 10 + 10 * i}" fill="{color}">{escape(name)}</text>')
    out.append("</svg>")
    return "".join(out)


def histogram(panel: str, title: str, counts, edges, color: str = PALETTE[0]) -> str:
    """Bars of ``np.histogram`` output; the x labels are the first and last bin edges."""
    counts = np.asarray(counts, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.float64)
    top = float(counts.max()) if counts.size and counts.max() > 0 else 1.0
    fy = _scale(0.0, top, H - B, T)
    width = (W - L - R) / max(len(counts), 1)
    out = _open(panel, title) + _axes(0.0, top, False, float(edges[0]), float(edges[-1]))
    i = np.flatnonzero(counts > 0)
    if i.size:  # every bar's numbers in one format operation (a frame draws many bars)
        y = fy(counts[i])
        numbers = np.empty((i.size, 3))
        numbers[:, 0], numbers[:, 1], numbers[:, 2] = L + i * width, y, H - B - y
        bar = (f'<rect class="bar" x="%.1f" y="%.1f" width="{_n(max(width - 0.5, 0.5))}" '
               f'height="%.1f" fill="{color}"/>')
        out.append(bar * i.size % tuple(numbers.ravel().tolist()))
    out.append("</svg>")
    return "".join(out)


def ratio_chart(steps, ratios: dict, guide: float = 1e-3) -> str:
    """Update-to-weight ratio per layer over steps, log scale, with the ~1e-3 guide."""
    return line_chart("ratio", "update / weight (std, log)", steps, ratios, log=True,
                      guide=guide)


def boundary_map(grid, X, y, max_points: int = 400) -> str:
    """Class regions as runs of equal cells per grid row, the data points on top."""
    size_y, size_x = grid.classes.shape
    side = H - T - 6
    out = _open("boundary", "decision boundary", width=side + 12, height=H)
    fx = _scale(float(grid.xs[0]), float(grid.xs[-1]), 6, 6 + side)
    fy = _scale(float(grid.ys[0]), float(grid.ys[-1]), T + side, T)
    cw, ch = side / size_x, side / size_y
    for i in range(size_y):
        row, j = grid.classes[i], 0
        while j < size_x:
            k = j
            while k < size_x and row[k] == row[j]:
                k += 1
            color = PALETTE[int(row[j]) % len(PALETTE)]
            out.append(f'<rect class="cell" x="{_n(6 + j * cw)}" y="{_n(T + side - (i + 1) * ch)}" '
                       f'width="{_n((k - j) * cw + 0.3)}" height="{_n(ch + 0.3)}" fill="{color}" '
                       f'fill-opacity="0.25"/>')
            j = k
    X = np.asarray(X, dtype=np.float64)[:max_points]
    y = np.asarray(y).reshape(-1)[:max_points]
    for (a, b), label in zip(X, y):
        out.append(f'<circle class="point" cx="{_n(fx(a))}" cy="{_n(fy(b))}" r="2.2" '
                   f'fill="{PALETTE[int(label) % len(PALETTE)]}" stroke="#000" '
                   f'stroke-width="0.3"/>')
    out.append("</svg>")
    return "".join(out)
