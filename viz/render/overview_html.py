"""An overview's notebook output whose group boxes open when clicked.

``viz.draw``'s overview of a big graph (``viz.render.overview``) groups repeated structure
into boxes (``example × 100``); ``expand="example"`` draws one unit of a group beside the
others.  A notebook output has no kernel to ask for that drawing when a box is clicked (an
offline page, a saved notebook, GitHub), so the output carries it already: the overview and,
for each group box, the drawing with that group opened, then (breadth first) the groups those
drawings show, each its own ``expand=`` drawing.  The player's module (``player.js``:
``expandable``) swaps the shown SVG when a box is clicked; "back" (or clicking the opened
group's ``× k more`` box) folds it again.

Every drawing costs a layout and its SVG, so what is embedded is bounded: at most
``MAX_DRAWINGS`` opened drawings, none with more than ``MAX_ITEMS`` boxes and nodes, at most
``MAX_BYTES`` of SVG in all.  The caption says how many were embedded and how to open the
others (``viz.draw(root, expand=...)``).

Markup: each drawing ``k`` (0: the one drawn) is an SVG; the others sit inert in
``<template class="mg-alt" data-mg-alt="k">``; ``<script type="application/json"
class="mg-alts">`` holds ``[{"open": [names], "links": {group key: drawing}}, ...]``.
"""

from __future__ import annotations

import json
from html import escape

from .pan_zoom import pan_zoom_html

__all__ = ["MAX_DRAWINGS", "MAX_ITEMS", "MAX_BYTES", "Drawing", "expansions", "expandable_html"]

#: opened drawings embedded beside the overview, at most (each costs a layout)
MAX_DRAWINGS = 4
#: an opened drawing with more boxes and nodes than this is not embedded (too big to read)
MAX_ITEMS = 120
#: the SVG embedded in all, at most (bytes of text)
MAX_BYTES = 2_000_000


class Drawing:
    """One drawing of the output: the groups it opened, its ``Graph``, and which drawing
    each of its group boxes leads to (``links``: group key -> drawing index)."""

    def __init__(self, opened: tuple, graph):
        self.opened = opened
        self.graph = graph
        self.links: dict[str, int] = {}


def _boxes(graph):
    """``(key, name, opened)`` for each group box that names a repeat group: a box
    ``example × 100`` opens ``example``; ``example × 99 more`` is it opened."""
    for n in graph.view.nodes:
        if n.kind != "group" or n.is_leaf or " ×" not in n.symbol:
            continue
        name = n.symbol.split(" ×")[0]
        yield n.key, name, n.symbol.endswith(" more")


def expansions(graph, *, max_drawings: int = MAX_DRAWINGS, max_items: int = MAX_ITEMS,
               max_bytes: int = MAX_BYTES) -> tuple[list[Drawing], int]:
    """The drawings an overview ``graph`` embeds (``[0]`` is ``graph`` itself), linked, and
    how many openings were left out by the bounds."""
    base = tuple(sorted(set(_as_names(graph.options.expand))))
    drawings = [Drawing(base, graph)]
    index = {base: 0}
    size = len(graph.svg())
    skipped: set = set()
    queue = 0
    while queue < len(drawings):
        here = drawings[queue]
        queue += 1
        for key, name, opened in _boxes(here.graph):
            if opened:  # fold it: what stays open of what is embedded (its inner groups close)
                rest = set(here.opened) - {name}
                target = max((k for k, i in index.items() if i is not None and set(k) <= rest),
                             key=len, default=None)
                if target is None:  # (what expand= opened when drawn: nothing to fold to)
                    continue
            else:
                target = tuple(sorted(set(here.opened) | {name}))
            if target not in index:
                if len(drawings) - 1 >= max_drawings:
                    skipped.add(target)
                    continue
                other = _expanded(graph, target)
                svg = other.svg() if other is not None else ""
                if other is None or len(other.view.nodes) > max_items or \
                        size + len(svg) > max_bytes:
                    skipped.add(target)
                    index[target] = None  # (tried: not again)
                    continue
                size += len(svg)
                index[target] = len(drawings)
                drawings.append(Drawing(target, other))
            if index.get(target) is not None:
                here.links[key] = index[target]
    return drawings, len(skipped)


def _expanded(graph, names):
    """``graph`` with ``names`` opened, or ``None`` when the overview has no such group
    there (two groups of one title in different places open together)."""
    try:
        return graph.expanded(names)
    except ValueError:
        return None


def _as_names(expand) -> tuple:
    return (expand,) if isinstance(expand, str) else tuple(expand or ())


def expandable_html(graph, notes: str) -> str | None:
    """``graph``'s notebook output with its openings embedded (the player's box, zoom and
    pan, ``viz.render.pan_zoom``, fit each drawing to the box as it is shown), or ``None``
    when no group box can be opened."""
    drawings, skipped = expansions(graph)
    if len(drawings) == 1:
        return None
    data = [{"open": list(d.opened), "links": d.links} for d in drawings]
    alts = "".join(f'<template class="mg-alt" data-mg-alt="{k}">{d.graph.svg()}'
                   f'</template>' for k, d in enumerate(drawings) if k)
    payload = json.dumps(data).replace("</", "<\\/")
    caption = (f"Click a group box to open it (one unit drawn beside the others), \u201cback\u201d "
               f"to fold it: {len(drawings) - 1} opened drawing"
               f"{'s' if len(drawings) > 2 else ''} embedded"
               + (f"; {skipped} more left out (at most {MAX_DRAWINGS}, each of at most "
                  f"{MAX_ITEMS} boxes): viz.draw(root, expand=[\u2026]) draws them"
                  if skipped else "") + ".")
    extra = (f'{alts}<script type="application/json" class="mg-alts">{payload}</script>')
    return pan_zoom_html(graph.svg(), f"<p><small>{escape(caption)}</small></p>{notes}",
                         always=True, extra=extra, expandable=True)
