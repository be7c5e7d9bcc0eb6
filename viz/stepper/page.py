"""The standalone HTML player: one self-contained page (or ``<div>``) per step-through.

The page holds the SVG template rendered at the first step, the CSS, the
frames as compact per-step changes (``step_payload``) and the player's module
(``viz/assets/player.js``, compacted) inline, which swaps classes and texts; no kernel, no network,
works offline.  The markup (``player_markup``) and the module are the notebook
widget's too (``viz.stepper.widgets``): one front end, two hosts.
"""

from __future__ import annotations

import html
import json

from ..assets import module_script
from ..render.derivative_orders import legend_orders, order_color, order_title
from ..render.view import node_key
from .cursor import counter_text
from .template import (
    HOOK_COLOR,
    HOOK_FILL,
    NEW_COLOR,
    NEW_FILL,
    READY_COLOR,
    READY_FILL,
    RECOMPUTE_COLOR,
    RECOMPUTE_FILL,
    SvgTemplate,
    companion_strings,
    css,
    grad_strings,
)

__all__ = ["SPEEDS", "LEGEND", "default_title", "legend", "module_script", "panel_html",
           "player_data", "player_fragment", "player_html", "player_markup"]

SPEEDS = (("slow", 1400), ("normal", 700), ("fast", 300), ("very fast", 100))


def panel_html(title: str, text: str) -> str:
    """The side panel: a bold title and the step's text (kept as plain, escaped text)."""
    return (
        f'<div class="mg-panel"><div class="mg-title">{html.escape(title)}</div>'
        f'<div class="mg-text">{html.escape(text)}</div></div>'
    )


_PASSES = {"forward": "forward pass", "backward": "backward pass",
           "both": "forward and backward pass",
           "forward-mode": "forward-mode pass (tangents flowing forward)"}


def default_title(mode: str, subject: str) -> str:
    """A page title that says what is stepped through: ``neuron(a, b, c): the forward and
    backward pass, step by step`` (``subject``: a function call or the output's name)."""
    return f"{subject}: the {_PASSES.get(mode, mode)}, step by step"


# the key of each state a replay shows; the forward pass only creates nodes
_KEYS = (
    ("current", '<i style="border-color:#d62728"></i>current'),
    ("receiving", '<i style="border-color:#ff7f0e;background:#ffe8cc"></i>receiving a gradient'),
    ("has-grad", '<i style="border-color:#2ca02c"></i>has a gradient'),
    ("accumulated", '<i style="border-color:#9467bd;border-style:dashed"></i>'
                    "used several times: contributions add up"),
)
_FORWARD_KEYS = ('<i style="border-color:#d62728"></i>current: the node just created',
                 "the others appear in the order they were created")


def _legend(keys) -> str:
    return '<div class="mg-legend">' + "".join(f"<span>{k}</span>" for k in keys) + "</div>"


LEGEND = _legend(text for _, text in _KEYS)
# added to the legend when saved values are drawn
_FREED_KEY = ('<s style="opacity:0.45">saved</s> saved value released after its '
              "node's backward")


_TANGENT_KEYS = (
    '<i style="border-color:#d62728"></i>current: the node just created, the edge in use',
    '<i style="border-color:#ff7f0e;background:#ffe8cc"></i>receiving a tangent',
    '<i style="border-color:#2ca02c"></i>has a tangent ṫ',
)
_NOTE_KEYS = (
    ("ready", f'<i style="border-color:{READY_COLOR};background:{READY_FILL}"></i>ready: '
              "every contribution arrived (grad … · pending n counts them down)"),
    ("hooked", f'<i style="border-color:{HOOK_COLOR};background:{HOOK_FILL}"></i>'
               "a hook replaced the gradient"),
    ("recomputed", f'<i style="border-color:{RECOMPUTE_COLOR};border-style:dashed;'
                   f'background:{RECOMPUTE_FILL}"></i>recomputed: a checkpointed block, run '
                   "again by backward for its saved values"),
)


def legend(template: SvgTemplate | None = None, mode: str = "both", view=None,
           states=()) -> str:
    """The colour key under the panel: for ``mode="forward"`` the forward states only,
    otherwise the backward ones (and the struck-through saved value when drawn);
    when ``view`` (the frames' ``GraphView``) has a gradient's graph, its orders and
    the "just built" state too; ``states`` (``Frames.states``) adds the ready-queue
    and hook keys when a replay uses them."""
    if mode == "forward":
        return _legend(_FORWARD_KEYS)
    if mode == "forward-mode":
        return _legend(_TANGENT_KEYS)
    keys = [text for _, text in _KEYS]
    keys += [text for state, text in _NOTE_KEYS if state in states]
    orders = legend_orders(view.nodes) if view is not None else []
    if orders:
        keys.append(f'<i style="border-color:{NEW_COLOR};background:{NEW_FILL}"></i>just '
                    f"built by the backward pass (create_graph=True)")
        keys += [f'<i style="border-color:{order_color(k)}"></i>{html.escape(order_title(k))}'
                 for k in orders]
    if template is not None and not all(el.endswith("_released")
                                        for el, _ in template.companions):
        keys.append(_FREED_KEY)
    return _legend(keys)


def step_payload(frames, template: SvgTemplate | None, grad_text, start: int = 0) -> dict:
    """The frames as per-step changes, the compact form the inline script replays.

    ``c`` lists ``[element index, class combination]`` pairs that changed since
    the previous step, ``g`` the ``[grad slot, text index]`` pairs (``-1``: the
    node holds no gradient yet), ``s`` the ``[companion index, state]`` pairs
    (``""``, ``"hidden"``, ``"freed"``).
    """
    elements = list(frames.elements)
    position = {node_key(n): i for i, n in enumerate(frames.nodes)}
    grad_nodes = template.grad_nodes if template is not None else []
    slot_nodes = [(position[el], frames.nodes[position[el]]) for el in grad_nodes]
    gtexts: list[str] = []
    gindex: dict[str, int] = {}
    values = frames.grad_values
    frame_list = []
    prev_codes = prev_g = None
    prev_s = [""] * (len(template.companions) if template is not None else 0)
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
        states = companion_strings(frames, template, k)
        sdelta = [[j, st] for j, (st, p) in enumerate(zip(states, prev_s)) if st != p]
        prev_codes, prev_g, prev_s = row, grow, states
        frame_list.append({"t": fr.title, "x": fr.text, "c": delta, "g": g, "s": sdelta})
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


def player_data(frames, template: SvgTemplate | None, grad_text, *, start: int = 0,
                speed: str = "normal", info=()) -> dict:
    """What the player's script reads: ``step_payload``, the opening ``speed`` and each
    node's ``info`` for the inspector (``viz.stepper.node_info``).  The page carries it as
    JSON; the widget as its ``data`` traitlet."""
    payload = step_payload(frames, template, grad_text, start)
    payload["speed"] = speed
    payload["info"] = list(info)
    return payload


def player_markup(frames, template: SvgTemplate | None, grad_text, *, start: int = 0,
                  note: str | None = None, speed: str = "normal", extra: str = "",
                  tail: str = "") -> str:
    """The player's HTML, shown at step ``start`` before any script runs (a viewer that
    strips scripts shows that): controls, graph, ``extra`` under it (the memory strip,
    ``viz.stepper.memory_strip``), the node inspector, panel and legend; ``tail`` goes
    last inside the root (the page's data and script).  The widget and the page share it."""
    n = len(frames)
    if template is not None:
        classes = frames.class_strings(start)
        graph = template.render(classes, grad_strings(frames, start, grad_text),
                                companion_strings(frames, template, start, classes))
    else:
        graph = f'<div class="mg-nograph">{html.escape(note or "(no graph drawing)")}</div>'
    f0 = frames[start]
    options = "".join(
        f'<option value="{ms}"{" selected" if name == speed else ""}>{name}</option>'
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
        f'<span class="mg-counter">{counter_text(start, n)}</span></div>'
        f'<div class="mg-graph">{graph}</div>'
        + (f'<div class="mg-note">{html.escape(note)}</div>' if note and template else "")
        + f'{extra}'
        '<div class="mg-inspect" hidden></div>'
        f"{panel_html(f0.title, f0.text)}"
        f"{legend(template, frames.mode, frames.view, frames.states)}"
        f"{tail}</div>"
    )


def json_script(data: dict) -> str:
    """``data`` as a ``<script type="application/json" class="mg-data">`` block."""
    # Inside <script>, "</script", "<!--" or "<script" in a label would end or derail
    # the data block; "<" only occurs inside JSON strings, where \u003c means the same.
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" class="mg-data">{text}</script>'


def player_fragment(frames, template: SvgTemplate | None, grad_text, *, start: int = 0,
                    note: str | None = None, speed: str = "normal", extra: str = "",
                    info=()) -> str:
    """The player as an HTML fragment: a ``<div>`` with its CSS, data and module script;
    ``extra`` goes under the graph (the memory strip, ``viz.stepper.memory_strip``)."""
    data = player_data(frames, template, grad_text, start=start, speed=speed, info=info)
    return player_markup(frames, template, grad_text, start=start, note=note, speed=speed,
                         extra=extra, tail=json_script(data) + module_script())


def player_html(frames, template: SvgTemplate | None, grad_text, *,
                title: str = "minigrad step-through", note: str | None = None,
                speed: str = "normal", start: int = 0, extra: str = "", info=()) -> str:
    """One self-contained HTML page: inline SVG, CSS and script; works offline."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title>"
        "<style>body{margin:16px;max-width:1200px}"
        "h1{font:600 18px system-ui,sans-serif}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        + player_fragment(frames, template, grad_text, start=start, note=note, speed=speed,
                          extra=extra, info=info) +
        "</body></html>\n"
    )
