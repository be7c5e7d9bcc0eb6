"""Zoom and pan for ``viz.draw``'s notebook output when the graph is bigger than a cell.

A big graph (an MLP, a CNN) drawn at graphviz's size spills past the cell, and
shrunk to the cell's width its text is unreadable.  The step-through player
already solves this (``viz/assets/player.js``: ``zoomPan``, fit to the
box's width and height down to a readable floor, drag to pan, Ctrl+wheel and
buttons to zoom); a big drawing runs that same module, not a copy: its output is
the SVG in the player's scrolling box and a ``<script type="module">`` that
calls ``mountAll``.  Small graphs keep their plain output.  Where scripts do not
run (an untrusted notebook, GitHub) the box still scrolls.
"""

from __future__ import annotations

import re

from ..assets import asset, module_script

__all__ = ["BIG", "pan_zoom_html", "svg_size_px"]

#: (width, height) in CSS px above which a drawing gets zoom and pan: about a notebook
#: cell's width, and the player's box height (72% of the window) on a laptop screen
BIG = (860.0, 620.0)

_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)(pt|px)?"[^>]*?\bheight="([\d.]+)(pt|px)?"')


def svg_size_px(svg: str) -> tuple[float, float] | None:
    """The size graphviz drew ``svg`` at, in CSS px (it writes points: 1 pt = 4/3 px)."""
    m = _SIZE.search(svg or "")
    if not m:
        return None

    def px(value, unit):
        return float(value) * (4 / 3 if unit == "pt" else 1)

    return px(m.group(1), m.group(2)), px(m.group(3), m.group(4))


def pan_zoom_html(svg: str, notes: str = "", *, always: bool = False, extra: str = "",
                  expandable: bool = False) -> str | None:
    """``viz.draw``'s HTML for ``svg`` with zoom and pan, or ``None`` when it fits a cell
    (unless ``always``).  ``extra``: more markup for the module inside the output (an
    overview's other drawings, ``viz.render.overview_html``, marked ``expandable``)."""
    size = svg_size_px(svg)
    if not always and (size is None or (size[0] <= BIG[0] and size[1] <= BIG[1])):
        return None
    mark = ' data-mg-expand="1"' if expandable else ""
    return (
        f'<div class="minigrad-graph" data-mg-zoom-pan="1"{mark}><div class="mg-stepper '
        f'mg-pan-zoom"><style>{asset("player.css", compact=True)}</style><div class="mg-graph">'
        f'{svg}</div></div>{extra}{notes}{module_script()}</div>'
    )
