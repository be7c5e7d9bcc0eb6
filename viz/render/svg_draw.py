"""From a ``GraphView`` to SVG with no system program: ``viz.layout`` + node cards.

``render_svg`` draws what ``viz.render.dot.render_dot`` describes, with the same
element ids and classes (the table in ``viz.render.dot``), the same colours
(``viz.render.dot.COLORS``) and the same text elements in each node, in the same
order.  So the stepper's template (``viz.stepper.template``) and the HTML player work
on either picture.  Inside a node group the first shape is the background
(the stepper restyles it); an edge group holds its ``<path>`` and then its
arrowhead ``<polygon>``.

Units follow dot's: one user unit per point (``width="…pt"``), so text reads
at the same size in both pictures.
"""

from __future__ import annotations

from html import escape

from ..layout.layered import ARROW, layout
from .dot import (
    COLORS,
    auto_rankdir,
    box_contents,
    box_depth,
    drawn_edges,
    edge_label,
    in_frame,
    legend_entries,
    stacks_fields,
)
from .numbers import visible
from .saved_boxes import saved_boxes
from .svg_cards import (
    FONT,
    FONT_SIZE,
    LINE,
    PAD_X,
    PAD_Y,
    Card,
    box_card,
    legend_card,
    node_card,
    released_card,
    saved_card,
    text_width,
)
from .view import GraphView, cluster_key

__all__ = ["render_svg"]

MARGIN = 4.0
_EDGE = "#475569"
_TITLE = 10.0  # cluster title font size


def render_svg(view: GraphView, *, rankdir: str = "auto", show_attrs: bool = False,
               modules: str | None = "cluster", depth: int | None = None,
               highlight=frozenset(), legend: bool = False, edge_labels: bool = False,
               title: str | None = None) -> str:
    """The picture of ``view`` as SVG markup (starting at ``<svg``); options as ``viz.draw``."""
    if rankdir == "auto":
        rankdir = auto_rankdir(view, modules=modules, depth=depth, show_attrs=show_attrs)
    boxes = {}
    if modules == "box":
        level = box_depth(view) if depth is None else depth
        boxes = {n.id: cluster_key(n.scope[:level]) for n in view.nodes if len(n.scope) >= level}
    where = {n.id: boxes.get(n.id, n.key) for n in view.nodes}
    cards: dict[str, Card] = {}
    scopes: dict[str, tuple] = {}
    for n in view.nodes:
        if n.id in boxes:
            continue
        cards[n.key] = node_card(in_frame(n, modules), show_attrs, COLORS, n.id in highlight,
                                 stacks_fields(rankdir))
        if modules == "cluster":
            scopes[n.key] = n.scope
        extra = [saved_card(box, COLORS) for box in saved_boxes(n.saved)] if n.saved else []
        if n.saved is None:
            extra = [released_card(n, COLORS)]
        for card in extra:
            cards[card.key] = card
            scopes[card.key] = scopes.get(n.key, ())
    for key, lines, lit in box_contents(view, boxes, highlight):
        cards[key] = box_card(key, lines, COLORS, lit)

    edges = []  # (id, class, src, dst, slot label or None, highlighted)
    for e, src, dst, collapsed in drawn_edges(view, where):
        lit = e.parent in highlight and e.child in highlight
        cls = "edge data" + (" collapsed" if collapsed else "") + (" highlight" if lit else "")
        cls += " output_nr" if e.output_nr is not None else ""
        label = edge_label(view, e, edge_labels, collapsed)
        edges.append((e.key, cls, src, dst, label, lit))
    for n in view.nodes:
        if n.id in boxes:
            continue
        if n.saved:
            edges += [(f"se_{n.id}_{s.index}", "edge saved", s.key, n.key, None, False)
                      for s in saved_boxes(n.saved)]
        elif n.saved is None:
            edges.append((f"se_{n.id}_released", "edge saved", f"s_{n.id}_released", n.key,
                          None, False))

    labels = {c.path: (text_width(c.title, _TITLE), _TITLE * LINE + 2) for c in view.clusters}
    placed = layout({k: (c.w, c.h) for k, c in cards.items()}, [(e[2], e[3]) for e in edges],
                    scopes=scopes, rankdir=rankdir, labels=labels,
                    arrows=[e[1] != "edge saved" for e in edges])
    top = MARGIN + (FONT_SIZE * LINE + 6 if title else 0.0)
    out = []
    titles = {c.path: c for c in view.clusters}
    for path, rect in sorted(placed.clusters.items(), key=lambda kv: (len(kv[0]), kv[0])):
        out.append(_cluster(titles[path], rect, MARGIN, top))
    for (key, cls, _, dst, text, lit), route in zip(edges, placed.routes):
        x, y, w, h = placed.boxes[dst]
        out.append(_edge(key, cls, route, text, lit, (x + MARGIN, y + top, w, h), MARGIN, top))
    for key, card in cards.items():
        x, y, _, _ = placed.boxes[key]
        out.append(_card(card, x + MARGIN, y + top))
    width, height = placed.width, placed.height
    if legend:
        card = legend_card(legend_entries(view))
        out.append(_card(card, MARGIN, top + height + 12))
        height += 12 + card.h
        width = max(width, card.w)
    if title:
        width = max(width, text_width(title, FONT_SIZE + 1))
    total_w, total_h = width + 2 * MARGIN, height + top + MARGIN
    head = [
        f'<svg width="{total_w:.0f}pt" height="{total_h:.0f}pt" viewBox="0.00 0.00 '
        f'{total_w:.2f} {total_h:.2f}" xmlns="http://www.w3.org/2000/svg" '
        'xmlns:xlink="http://www.w3.org/1999/xlink">',
        '<g id="graph0" class="graph">',
        f'<rect fill="white" stroke="transparent" x="0" y="0" width="{total_w:.2f}" '
        f'height="{total_h:.2f}"/>',
    ]
    if title:
        head.append(_text(visible(title), total_w / 2, MARGIN + FONT_SIZE + 1, FONT_SIZE + 1,
                          anchor="middle"))
    return "\n".join(head + out + ["</g>", "</svg>"])


# --------------------------------------------------------------------- pieces


def _f(v: float) -> str:
    return f"{v:.2f}"


def _text(text: str, x: float, y: float, size: float, *, bold: bool = False,
          anchor: str = "start", color: str | None = None) -> str:
    weight = ' font-weight="bold"' if bold else ""
    fill = f' fill="{color}"' if color else ""
    return (f'<text text-anchor="{anchor}" x="{_f(x)}" y="{_f(y)}" font-family="{FONT}"'
            f'{weight} font-size="{size:.2f}"{fill}>{escape(text, quote=False)}</text>')


def _rect(x, y, w, h, fill, stroke, width: float = 1.0, extra: str = "") -> str:
    return (f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width:g}"{extra}/>')


def _card(card: Card, x: float, y: float) -> str:
    """A node group: background first (the shape the stepper restyles), then borders, texts."""
    rounded = ' rx="6"' if card.rounded else ""
    out = [f'<g id="{card.key}" class="{card.cls}">',
           _rect(x, y, card.w, card.h, card.fill, "transparent", 1.0, rounded)]
    if card.outline:
        dash = ' stroke-dasharray="5,2"' if card.dashed else ""
        out.append(_rect(x, y, card.w, card.h, "none", card.border, card.outline, rounded + dash))
    for c in card.cells:
        cx, cy = x + c.x, y + c.y
        if c.fill or c.stroke:
            out.append(_rect(cx + 1.5, cy + 1.5, c.w - 3, c.h - 3, c.fill or "none",
                             c.stroke or "none"))
        elif card.cell_borders:
            out.append(_rect(cx, cy, c.w, c.h, "none", card.border))
        step = c.size * LINE
        first = cy + PAD_Y + (c.h - 2 * PAD_Y - step * len(c.lines)) / 2
        for k, line in enumerate(c.lines):
            base = first + k * step + c.size * 0.95  # baseline: one ascent below the line top
            if c.align == "left":
                out.append(_text(line, cx + PAD_X, base, c.size, bold=c.bold, color=c.color))
            else:
                out.append(_text(line, cx + c.w / 2, base, c.size, bold=c.bold, anchor="middle",
                                 color=c.color))
    out.append("</g>")
    return "\n".join(out)


def _edge(key, cls, route, label, lit, head, dx, dy) -> str:
    color, width = (COLORS["highlight"][1], 2.5) if lit else (_EDGE, 1.0)
    saved = cls == "edge saved"
    if saved:
        color = COLORS["saved"][1]
    out = [f'<g id="{key}" class="{cls}">']
    if route is not None:
        pts = [(x + dx, y + dy) for x, y in route.points]
        d = f"M{_f(pts[0][0])},{_f(pts[0][1])}"
        for j in range(1, len(pts), 3):
            d += "C" + " ".join(f"{_f(px)},{_f(py)}" for px, py in pts[j:j + 3])
        dash = ' stroke-dasharray="5,2"' if saved else ""
        out.append(f'<path fill="none" stroke="{color}" stroke-width="{width:g}"{dash} d="{d}"/>')
        if route.tip is not None:
            (bx, by), (tx, ty) = pts[-1], (route.tip[0] + dx, route.tip[1] + dy)
            ux, uy = (tx - bx) / ARROW, (ty - by) / ARROW  # along the flow, unit length
            half = ARROW * 0.45
            corners = [(tx, ty), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]
            points = " ".join(f"{_f(px)},{_f(py)}" for px, py in corners)
            out.append(f'<polygon fill="{color}" stroke="{color}" points="{points}"/>')
            if label is not None:  # beside the arrowhead, on the outer side of the port
                hx, hy, hw, hh = head
                side = (tx - hx - hw / 2) * -uy + (ty - hy - hh / 2) * ux
                side = 1.0 if side > 0 else -1.0
                lx, ly = bx - ux * 6 - uy * side * 9, by - uy * 6 + ux * side * 9
                out.append(_text(label, lx, ly + FONT_SIZE * 0.35, FONT_SIZE, anchor="middle",
                                 color="#1e293b"))
    out.append("</g>")
    return "\n".join(out)


def _cluster(cluster, rect, dx, dy) -> str:
    x, y, w, h = rect
    fill, border = COLORS["module"]
    return "\n".join([
        f'<g id="{cluster.key}" class="cluster module">',
        _rect(x + dx, y + dy, w, h, fill, border, 1.0, ' rx="6"'),
        _text(visible(cluster.title), x + dx + 8, y + dy + _TITLE + 3, _TITLE),
        "</g>",
    ])


