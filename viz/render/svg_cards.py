"""Node "cards" for the built-in SVG: boxes of text cells sized from estimated text widths.

A card is what ``dot`` makes of a node's HTML-like table (``viz.render.dot``): the
same cells, in the same order (op symbol, name, shape, data rows, grad,
attrs), so that the stepper finds the gradient text where it expects it.

Text width estimate
-------------------
No font can be measured without a browser, so widths are estimated from
Helvetica's published advance widths (Arial, Liberation Sans and macOS's
Helvetica share them), per character, times ``SAFETY`` = 1.16, so that the
font a browser falls back to when none of those is installed (DejaVu Sans,
measured in Chromium up to ~17 % wider than Helvetica's widths) still fits;
Liberation Sans texts measure at most ~87 % of the estimate.  Other characters
count as ``OTHER`` em (wide East-Asian ones as 1 em).  Each cell leaves
``PAD_X`` on either side, so text never touches a border; a browser test
checks every text's box lies inside its node's.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from .derivative_orders import order_color, order_mark
from .dot import scalar_fields
from .numbers import visible

__all__ = ["text_width", "Cell", "Card", "node_card", "saved_card", "released_card", "box_card",
           "legend_card", "FONT", "FONT_SIZE", "SMALL", "LINE"]

FONT = "Helvetica,Arial,sans-serif"
FONT_SIZE = 11.0  # node text, as in dot
SMALL = 9.0  # saved values and the legend
LINE = 1.25  # line height, in font sizes
PAD_X, PAD_Y = 5.0, 4.0
SAFETY = 1.16
OTHER = 0.75
BOLD = 1.08  # bold Helvetica is up to ~8 % wider than regular

# Helvetica advance widths (1/1000 em) of the printable ASCII characters, space to "~".
_ASCII = [int(w) for w in (
    "278 278 355 556 556 889 667 191 333 333 389 584 278 333 278 278 556 556 556 556 556 556 "
    "556 556 556 556 278 278 584 584 584 556 1015 667 667 722 722 667 611 778 722 278 500 667 "
    "556 833 722 778 667 778 722 667 611 722 667 944 667 667 611 278 278 278 469 556 333 556 "
    "556 500 556 556 278 556 556 222 222 500 222 833 556 556 556 556 333 500 278 556 500 722 "
    "500 500 500 334 260 334 584").split()]
_SPECIAL = {"—": 1000, "…": 1000, "→": 1000, "×": 584, "·": 278, "−": 584, "Σ": 650,
            "∂": 560, "²": 333, "³": 333, "√": 549, "∇": 720}


def _char_width(ch: str) -> float:
    code = ord(ch)
    if 32 <= code < 127:
        return _ASCII[code - 32] / 1000
    if ch in _SPECIAL:
        return _SPECIAL[ch] / 1000
    if unicodedata.combining(ch):
        return 0.0
    return 1.0 if unicodedata.east_asian_width(ch) in "WF" else OTHER


def text_width(text: str, size: float = FONT_SIZE, bold: bool = False) -> float:
    """An upper estimate of ``text``'s width in pixels (see the module docstring)."""
    em = sum(_char_width(ch) for ch in text)
    return em * size * SAFETY * (BOLD if bold else 1.0)


@dataclass
class Cell:
    """A rectangle of text lines; ``x``/``y`` are relative to the card."""

    lines: list  # texts
    bold: bool = False
    align: str = "center"  # or "left"
    size: float = FONT_SIZE
    fill: str | None = None  # its own background and border (legend rows)
    stroke: str | None = None
    color: str | None = None  # text colour (None: black)
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0

    def natural(self) -> tuple[float, float]:
        w = max(text_width(t, self.size, self.bold) for t in self.lines) + 2 * PAD_X
        return w, len(self.lines) * self.size * LINE + 2 * PAD_Y


@dataclass
class Card:
    """A node's box: background, outline and cells, sized to its text."""

    key: str
    cls: str  # after the leading "node"
    fill: str
    border: str
    cells: list
    outline: float = 0.0  # border width around the whole card (0: none)
    cell_borders: bool = True
    dashed: bool = False
    rounded: bool = False
    w: float = 0.0
    h: float = 0.0
    rows: list = field(default_factory=list)  # cells grouped in rows (layout helper)


def _stack(card: Card, rows: list) -> Card:
    """Lay rows of cells out top to bottom, each row stretched to the widest."""
    sizes = [[c.natural() for c in row] for row in rows]
    width = max(sum(w for w, _ in row) for row in sizes)
    y = 0.0
    for row, row_sizes in zip(rows, sizes):
        height = max(h for _, h in row_sizes)
        extra = (width - sum(w for w, _ in row_sizes)) / len(row)
        x = 0.0
        for cell, (w, _) in zip(row, row_sizes):
            cell.x, cell.y, cell.w, cell.h = x, y, w + extra, height
            x += w + extra
        y += height
    card.w, card.h, card.rows = width, y, rows
    card.cells = [c for row in rows for c in row]
    return card


def _matrix_lines(what: str, preview: str) -> list[str]:
    """A small matrix one row per line, as ``viz.render.dot`` shows it."""
    if not preview.startswith("[[") or "…" in preview:
        return [f"{what} {preview}"]
    rows = preview.split("], [")
    lines = [r + ("]," if i < len(rows) - 1 else "") for i, r in enumerate(rows)]
    lines = [f"{what} {lines[0]}"] + [" [" + r for r in lines[1:]]
    return lines


def node_card(n, show_attrs: bool, colors: dict, highlighted: bool,
              stacked: bool = False) -> Card:
    """The card of graph node ``n`` (a ``ViewNode``), cells in dot's order; a ``stacked``
    scalar card has one field a row (``viz.render.dot.stacks_fields``), as dot draws it; a node
    of order >= 1 starts with its mark on a band of its order's colour
    (``viz.render.derivative_orders``)."""
    if n.kind == "group":  # a box of the overview (viz.render.overview)
        fill, border = colors[n.role]
        card = Card(n.key, "node " + n.classes, fill, border, [], 2.0, cell_borders=False,
                    rounded=True)
        rows = [[Cell([visible(n.symbol)], bold=True)]]
        rows += [[Cell([visible(t)], align="left")] for t in n.detail]
        return _stack(card, rows)
    fill, border = colors["module" if n.op == "checkpoint" else n.role]  # a collapsed block
    cls = "node " + n.classes
    outline = 0.0
    if n.order:
        border = order_color(n.order)
    stub = n.stub and not highlighted
    if stub:  # of an order not shown: one grey dashed outline
        border, outline = colors["input"][1], 1.0
    if highlighted:
        border, outline = colors["highlight"][1], 3.0
        cls += " highlight"
    card = Card(n.key, cls, fill, border, [], outline, cell_borders=not stub, dashed=stub,
                rounded=n.op == "checkpoint")

    def cell(text, **kw):
        return Cell([visible(str(text))], **kw)

    mark = []
    if n.order:
        color = order_color(n.order)
        mark = [cell(order_mark(n.order), bold=True, fill=color, stroke=color, color="white")]
    if n.kind == "scalar":
        row = list(mark) + [cell(text, bold=bold) for text, bold in scalar_fields(n, show_attrs)]
        return _stack(card, [[c] for c in row] if stacked else [row])
    rows = []
    head = list(mark)
    if n.symbol is not None:
        head.append(cell(n.symbol, bold=True))
    if n.name is not None:
        head.append(cell(n.name))
    if head:
        rows.append(head)
    if n.shape is not None:  # (a multi-output op's record has no shape of its own)
        rows.extend([cell(line)] for line in n.shape_lines)
    if n.tiny:
        rows.append([Cell([visible(t) for t in _matrix_lines(n.data_word, n.data)],
                          align="left")])
    if n.grad_label is not None:  # one text: the stepper rewrites it as gradients flow in
        rows.append([cell(n.grad_label, align="left")])
    if show_attrs and n.attrs:
        rows.append([cell(n.attrs, align="left")])
    return _stack(card, rows)


def saved_card(item, colors: dict) -> Card:
    fill, border = colors["saved"]
    card = Card(item.key, "node saved", fill, border, [], 1.0, cell_borders=False, dashed=True)
    return _stack(card, [[Cell([visible(row)], size=SMALL)] for row in item.rows])


def released_card(n, colors: dict) -> Card:
    fill, border = colors["saved"]
    card = Card(f"s_{n.id}_released", "node saved released", fill, border, [], 1.0,
                cell_borders=False, dashed=True)
    return _stack(card, [[Cell(["saved: released"], size=SMALL)]])


def box_card(key: str, lines: list, colors: dict, highlighted: bool) -> Card:
    """A module collapsed into one box (``modules="box"``): title, counts, output shape."""
    fill, border = colors["module"]
    cls, outline = "node module box", 1.0
    if highlighted:
        cls += " highlight"
        border, outline = colors["highlight"][1], 3.0
    card = Card(key, cls, fill, border, [], outline, cell_borders=False, rounded=True)
    rows = [[Cell([visible(lines[0])], bold=True)]] + [[Cell([visible(t)])] for t in lines[1:]]
    return _stack(card, rows)


def legend_card(entries: list) -> Card:
    """``entries``: ``(fill, border, text, width, dashed)`` rows
    (``viz.render.dot.legend_entries``)."""
    card = Card("legend", "node legend", "#ffffff", "#ffffff", [], cell_borders=False)
    rows = [[Cell(["legend"], bold=True, size=SMALL)]]
    rows += [[Cell([text], size=SMALL, fill=fill, stroke=border)]
             for fill, border, text, _, _ in entries]
    return _stack(card, rows)
