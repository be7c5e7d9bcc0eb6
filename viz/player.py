"""Layout once, restyle per step: the SVG template and the standalone HTML player.

The graph is laid out by graphviz exactly once (``viz.draw``).  ``SvgTemplate``
cuts that SVG into static pieces around the few spots a step changes: the
``class`` attribute of every node and edge group, and the text of each node's
gradient.  Rendering a step is then one ``"".join`` of the pieces with the
step's classes and gradients, so nodes never move and a step costs far less
than a millisecond (see ``benchmarks/stepper.py``).

``player_html`` packs the same SVG, the CSS and a small inline script with the
frames (as per-step changes) into one self-contained HTML page: no kernel, no
network, works offline, in slides and in static notebook viewers.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources
from pathlib import Path

__all__ = ["SvgTemplate", "css", "script", "panel_html", "player_html", "export_html"]

_TAG = re.compile(r"<g\b[^>]*>")
_ID = re.compile(r'\bid="([^"]*)"')
_CLASS = re.compile(r'\bclass="([^"]*)"')
_TEXT = re.compile(r"(<text\b[^>]*>)(.*?)(</text>)", re.S)
_COMPANION = re.compile(r"^s[e]?_(\d+)_")
_GTAG = re.compile(r"<g\b|</g>")
_GRAD_WORDS = ("grad", "∇", "∂")

SPEEDS = (("slow", 1400), ("normal", 700), ("fast", 300), ("very fast", 100))


@cache
def _asset(name: str) -> str:
    return resources.files("viz").joinpath("assets", name).read_text(encoding="utf-8")


def css() -> str:
    """The stylesheet for step classes and the player's controls (scoped to ``.mg-stepper``)."""
    return _asset("player.css")


def script() -> str:
    """The player's inline script (no dependencies)."""
    return _asset("player.js")


def strip_prolog(svg: str) -> str:
    """Drop the ``<?xml …?>``, comments and DOCTYPE before ``<svg``, for inlining in HTML."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


class SvgTemplate:
    """A rendered SVG cut into static pieces and per-step slots.

    ``elements`` are the ids the frames know (``n_<id>``, ``e_<c>_<p>_<slot>``);
    those found in the SVG get a class slot.  ``grad_texts`` maps a node id to
    the gradient text the renderer printed for it (its final gradient): the
    ``<text>`` showing it becomes a slot too, so that each step can show the
    gradient the node holds *at that step*.
    """

    def __init__(self, svg: str, elements, grad_texts: dict[str, str] | None = None):
        svg = strip_prolog(svg)
        index = {el: i for i, el in enumerate(elements)}
        grad_texts = grad_texts or {}
        self.elements = tuple(elements)
        self.base: dict[str, str] = {}  # the renderer's own classes (node leaf param ...)
        self.grad_nodes: list[str] = []  # nodes whose gradient text is a slot
        self.companions: list[tuple[str, int]] = []  # (saved-value id, owner element index)
        pieces: list[str] = []
        slots: list[tuple[str, object]] = []  # ("class", element index) | ("grad", node id)
        pos = 0
        for m in _TAG.finditer(svg):
            tag = m.group(0)
            idm = _ID.search(tag)
            if not idm:
                continue
            el = idm.group(1)
            kind = "class"
            if el not in index:
                # a node's saved values (s_<id>_<k>, se_<id>_<k>) appear and hide with it
                cm = _COMPANION.match(el)
                owner = f"n_{cm.group(1)}" if cm else None
                if owner not in index:
                    continue
                kind = "hidden-of"
                self.companions.append((el, index[owner]))
                el_index = index[owner]
            else:
                el_index = index[el]
            cm = _CLASS.search(tag)
            base = html.unescape(cm.group(1)) if cm else ""
            self.base[el] = base
            marker = f' data-mg-base="{html.escape(base)}"'
            if cm:
                cut = m.start() + cm.end(1)
                pieces.append(svg[pos:cut])
                slots.append((kind, el_index))
                pos = cut
                tail_cut = m.end() - 1
                pieces.append(svg[pos:tail_cut] + marker)
                slots.append(("none", None))
                pos = tail_cut
            else:
                cut = m.end() - 1
                pieces.append(svg[pos:cut] + ' class="')
                slots.append((kind, el_index))
                pieces.append('"' + marker)
                slots.append(("none", None))
                pos = cut
            if kind == "class" and el in grad_texts:
                found = self._grad_text(svg, m, grad_texts[el])
                if found is not None:
                    _start, end, open_tag_end = found
                    pieces.append(svg[pos:open_tag_end - 1] + f' data-mg-grad="{el}">')
                    slots.append(("grad", el))
                    self.grad_nodes.append(el)
                    pos = end
        pieces.append(svg[pos:])
        self._pieces = pieces
        self._slots = slots
        self.found = [el for el in self.elements if el in self.base]
        self.missing = [el for el in self.elements if el not in self.base]

    @staticmethod
    def _grad_text(svg: str, m, final: str):
        """Find the ``<text>`` in this group that reads exactly ``final`` (its gradient)."""
        depth, end = 0, len(svg)
        for t in _GTAG.finditer(svg, m.start()):
            depth += 1 if t.group(0) == "<g" else -1
            if depth == 0:
                end = t.start()
                break
        for t in _TEXT.finditer(svg, m.end(), end):
            if html.unescape(t.group(2)).strip() == final:
                return t.start(2), t.end(2), t.end(1)
        return None

    def render(self, classes: list[str], grads: dict[str, str] | None = None) -> str:
        """The SVG with ``classes[i]`` added to element ``i`` and the given gradient texts."""
        out = []
        add = out.append
        grads = grads or {}
        for piece, (kind, key) in zip(self._pieces, self._slots):
            add(piece)
            if kind == "class":
                c = classes[key]
                if c:
                    add(" " + c)
            elif kind == "hidden-of":
                if "hidden" in classes[key].split():
                    add(" hidden")
            elif kind == "grad":
                text = grads.get(key)
                if text is not None:
                    add(html.escape(text, quote=False))
        add(self._pieces[-1])
        return "".join(out)


def panel_html(title: str, text: str) -> str:
    """The side panel: a bold title and the step's text (kept as plain, escaped text)."""
    return (
        f'<div class="mg-panel"><div class="mg-title">{html.escape(title)}</div>'
        f'<div class="mg-text">{html.escape(text)}</div></div>'
    )


LEGEND = (
    '<div class="mg-legend">'
    '<span><i style="border-color:#d62728"></i>current</span>'
    '<span><i style="border-color:#ff7f0e;background:#ffe8cc"></i>receiving a gradient</span>'
    '<span><i style="border-color:#2ca02c"></i>has a gradient</span>'
    '<span><i style="border-color:#9467bd;border-style:dashed"></i>'
    "used several times: contributions add up</span></div>"
)


def _payload(frames, template: SvgTemplate | None, grad_text, start: int = 0) -> dict:
    """The frames as per-step changes, the compact form the inline script replays.

    ``c`` lists ``[element index, class combination]`` pairs that changed since
    the previous step, ``g`` the ``[grad slot, text index]`` pairs (``-1``: the
    node holds no gradient yet).
    """
    elements = list(frames.elements)
    position = {f"n_{n.id}": i for i, n in enumerate(frames.nodes)}
    grad_nodes = template.grad_nodes if template is not None else []
    slot_nodes = [(position[el], frames.nodes[position[el]]) for el in grad_nodes]
    gtexts: list[str] = []
    gindex: dict[str, int] = {}
    values = frames.grad_values
    frame_list = []
    prev_codes = prev_g = None
    for k, fr in enumerate(frames.frames):
        row = frames.codes[k].tolist()
        if prev_codes is None:
            delta = [[i, c] for i, c in enumerate(row) if c]
        else:
            delta = [[i, c] for i, (c, p) in enumerate(zip(row, prev_codes)) if c != p]
        grow = frames.grad_codes[k].tolist()
        g = []
        for j, (pos, node) in enumerate(slot_nodes):
            code = grow[pos]
            if prev_g is not None and code == prev_g[pos]:
                continue
            if code < 0:
                g.append([j, -1])
                continue
            text = grad_text(node, values[code])
            if text not in gindex:
                gindex[text] = len(gtexts)
                gtexts.append(text)
            g.append([j, gindex[text]])
        prev_codes, prev_g = row, grow
        frame_list.append({"t": fr.title, "x": fr.text, "c": delta, "g": g})
    return {
        "elements": elements,
        "combos": frames.combos,
        "frames": frame_list,
        "grad_nodes": [elements.index(el) for el in grad_nodes],
        "companions": [list(c) for c in template.companions] if template is not None else [],
        "no_grad": [grad_text(node, None) for _, node in slot_nodes],
        "gtexts": gtexts,
        "start": start,
    }


def player_fragment(frames, template: SvgTemplate | None, grad_text, *, start: int = 0,
                    note: str | None = None) -> str:
    """The player as an HTML fragment: a ``<div>`` with its CSS, data and script."""
    n = len(frames)
    payload = _payload(frames, template, grad_text, start)
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    if template is not None:
        graph = template.render(frames.class_strings(start), grad_strings(frames, start, grad_text))
    else:
        graph = f'<div class="mg-nograph">{html.escape(note or "(no graph drawing)")}</div>'
    f0 = frames[start]
    options = "".join(
        f'<option value="{ms}"{" selected" if name == "normal" else ""}>{name}</option>'
        for name, ms in SPEEDS
    )
    return (
        f'<div class="mg-stepper mg-player" tabindex="0" data-mg-step="{start}">'
        f"<style>{css()}</style>"
        '<div class="mg-controls">'
        '<button type="button" data-act="first" title="Jump to the start">« Start</button>'
        '<button type="button" data-act="prev" title="Previous step">◀ Prev</button>'
        '<button type="button" data-act="play" title="Play / pause">▶ Play</button>'
        '<button type="button" data-act="next" title="Next step">Next ▶</button>'
        '<button type="button" data-act="last" title="Jump to the end">End »</button>'
        f'<input type="range" class="mg-slider" min="0" max="{n - 1}" value="{start}" '
        'aria-label="step">'
        f'<label>speed <select class="mg-speed">{options}</select></label>'
        f'<span class="mg-counter">step {start + 1} / {n}</span></div>'
        f'<div class="mg-graph">{graph}</div>'
        f"{panel_html(f0.title, f0.text)}{LEGEND}"
        f'<script type="application/json" class="mg-data">{data}</script>'
        f"<script>{script()}</script></div>"
    )


def player_html(frames, template: SvgTemplate | None, grad_text, *,
                title: str = "minigrad step-through", note: str | None = None) -> str:
    """One self-contained HTML page: inline SVG, CSS and script; works offline."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title>"
        "<style>body{margin:16px;max-width:1200px}"
        "h1{font:600 18px system-ui,sans-serif}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        f"{player_fragment(frames, template, grad_text, note=note)}"
        "</body></html>\n"
    )


def svg_template(frames, svg: str, grad_text) -> SvgTemplate:
    """Cut ``svg`` (drawn from the frames' final graph) into a template.

    A node's gradient text becomes a slot when the SVG shows exactly what
    ``grad_text`` says for its final gradient (so both agree on the format).
    """
    final = {f"n_{n.id}": grad_text(n, n.grad) for n in frames.nodes}
    return SvgTemplate(svg, frames.elements, final)


def grad_strings(frames, step: int, grad_text) -> dict[str, str]:
    """``{node element id: gradient text}`` at ``step``."""
    nodes = frames.nodes
    return {f"n_{n.id}": grad_text(n, g) for n, g in zip(nodes, frames.grads(step).values())}


def export_html(tape, path, mode: str = "both", *, title: str | None = None, **draw_options):
    """Write the step-through of ``tape`` as ONE self-contained HTML file; returns the path.

    ``tape`` may also be a ``Stepper``.  The page needs no kernel and no
    network: open it in any browser, put it in slides, share it.
    """
    from .stepper import Stepper

    stepper = tape if isinstance(tape, Stepper) else Stepper(tape, mode=mode, **draw_options)
    path = Path(path)
    path.write_text(stepper.to_html(title=title), encoding="utf-8")
    return path
