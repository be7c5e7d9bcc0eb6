"""Layout once, restyle per step: the SVG template and the state stylesheet.

The graph is laid out by graphviz exactly once (``viz.draw``).  ``SvgTemplate``
cuts that SVG into static pieces around the few spots a step changes: the
``class`` attribute of every node and edge group, and the ``<text>`` of each
node's gradient.  Nodes never move; only classes and gradient texts change.

A step is shown by classes (``css()``: the player's rules, see ``viz.stepper.page``;
the page and the widget run the same module, ``viz/assets/player.js``).  Element ids
are the view's (``viz.render.view.node_key``: ``n_<id>``, ``e_<child>_<parent>_<slot>``).
"""

from __future__ import annotations

import html
import re

from ..assets import asset
from ..render.draw import strip_prolog
from ..render.view import node_key

__all__ = [
    "STATE_RULES", "NEW_COLOR", "NEW_FILL", "READY_COLOR", "READY_FILL", "HOOK_COLOR",
    "HOOK_FILL", "RECOMPUTE_COLOR", "RECOMPUTE_FILL", "SvgTemplate", "css", "script",
    "svg_template", "companion_strings", "grad_strings",
]

_TAG = re.compile(r"<g\b[^>]*>")
_ID = re.compile(r'\bid="([^"]*)"')
_CLASS = re.compile(r'\bclass="([^"]*)"')
_TEXT = re.compile(r"(<text\b[^>]*>)(.*?)(</text>)", re.S)
_COMPANION = re.compile(r"^s[e]?_(\d+)_")
_GTAG = re.compile(r"<g\b|</g>")
_SHAPE = re.compile(r"<(?:polygon|ellipse|path|rect)\b")
_PATH = re.compile(r"<path\b")
_POLY = re.compile(r"<polygon\b")


def css() -> str:
    """The stylesheet of the player, the panel and the state classes (under ``.mg-stepper``),
    compacted (``viz.assets``): every player's markup carries it."""
    return asset("player.css", compact=True) + _class_rules()


def script() -> str:
    """The player's module as written (``viz/assets/player.js``, no dependencies): the
    widget's ``_esm``.  A saved player inlines it compacted (``viz.assets.module_script``)."""
    return asset("player.js")


class SvgTemplate:
    """A rendered SVG cut into static pieces and per-step slots.

    ``elements`` are the ids the frames know (``n_<id>``, ``e_<c>_<p>_<slot>``);
    those found in the SVG get a class slot.  ``grad_texts`` maps a node id to
    the gradient text the renderer printed for it (its final gradient): the
    ``<text>`` showing it becomes a slot too, so that each step can show the
    gradient the node holds *at that step*.  A node's saved values
    (``s_<id>_<k>``, ``se_<id>_<k>``, ``s_<id>_released``) are its
    ``companions``: hidden together with their node, and marked released
    once backward has freed them (``companion_classes``).
    """

    def __init__(self, svg: str, elements, grad_texts: dict[str, str] | None = None):
        svg = _readable(strip_prolog(svg))
        index = {el: i for i, el in enumerate(elements)}
        grad_texts = grad_texts or {}
        self.elements = tuple(elements)
        self.base: dict[str, str] = {}  # the renderer's own classes (node leaf param ...)
        self.grad_nodes: list[str] = []  # nodes whose gradient text is a slot
        self.companions: list[tuple[str, int]] = []  # (saved-value id, owner element index)
        pieces: list[str] = []
        slots: list[tuple] = []  # what follows each piece: (kind, key, extra)
        pos = 0
        for m in _TAG.finditer(svg):
            tag = m.group(0)
            idm = _ID.search(tag)
            if not idm:
                continue
            el = idm.group(1)
            kind = "class"
            if el in index:
                key = index[el]
            else:
                owner = _COMPANION.match(el)
                owner = node_key(int(owner.group(1))) if owner else None
                if owner not in index:
                    continue
                kind, key = "companion", len(self.companions)
                self.companions.append((el, index[owner]))
            cm = _CLASS.search(tag)
            base = html.unescape(cm.group(1)) if cm else ""
            self.base[el] = base
            marker = f' data-mg-base="{html.escape(base)}"'
            if cm:  # slot right before the closing quote of class="..."
                cut = m.start() + cm.end(1)
                pieces.append(svg[pos:cut])
                slots.append((kind, key, None))
                pieces.append(svg[cut:m.end() - 1] + marker)
            else:
                pieces.append(svg[pos:m.end() - 1] + ' class="')
                slots.append((kind, key, None))
                pieces.append('"' + marker)
            slots.append(("none", None, None))
            pos = m.end() - 1
            if kind != "class":
                continue
            end = self._group_end(svg, m.start())
            edits = []  # (start, end, text to insert | None for the gradient slot)
            for target, shape in self._targets(svg, m.end(), end, el):
                edits.append((shape, shape, f' id="{el}_{target}" class="mg-{target}"'))
            if el in grad_texts:
                found = self._grad_text(svg, m.end(), end, grad_texts[el])
                if found is not None:  # the whole <text> element becomes a slot
                    edits.append(found)
            for start, stop, insert in sorted(edits, key=lambda e: e[0]):
                if isinstance(insert, str):  # a static insertion
                    pieces.append(svg[pos:start] + insert)
                    slots.append(("none", None, None))
                else:
                    pieces.append(svg[pos:start])
                    slots.append(("grad", el, insert[0]))
                    self.grad_nodes.append(el)
                pos = stop
        pieces.append(svg[pos:])
        self._pieces = pieces
        self._slots = slots
        self.found = [el for el in self.elements if el in self.base]
        self.missing = [el for el in self.elements if el not in self.base]

    @staticmethod
    def _group_end(svg: str, start: int) -> int:
        depth = 0
        for t in _GTAG.finditer(svg, start):
            depth += 1 if t.group(0) == "<g" else -1
            if depth == 0:
                return t.start()
        return len(svg)

    @staticmethod
    def _targets(svg: str, start: int, end: int, el: str):
        """Where per-step styles land: a node's first shape (graphviz draws the
        background first, so it spans the node), an edge's line and arrowhead.
        Yields ``(target, position after the tag name)``."""
        wanted = (("s", _SHAPE),) if el.startswith("n_") else (("p", _PATH), ("a", _POLY))
        for target, pattern in wanted:
            m = pattern.search(svg, start, end)
            if m and "id=" not in svg[m.end():svg.index(">", m.end())]:
                yield target, m.end()

    @staticmethod
    def _grad_text(svg: str, start: int, end: int, final: str):
        """The last ``<text>`` element in this range that reads exactly ``final``: the
        gradient row comes after the node's name, which a user may have spelled the same."""
        found = None
        for t in _TEXT.finditer(svg, start, end):
            if html.unescape(t.group(2)).strip() == final:
                found = t.start(), t.end(), (t.group(1),)
        return found

    def companion_classes(self, classes: list[str], released=frozenset()) -> list[str]:
        """The state class of each companion (``""``, ``"hidden"`` or ``"freed"``).

        ``released`` holds the element ids of nodes whose saved values backward
        has freed by this step.  A saved value is hidden with its node and
        ``freed`` (faded, struck through) from then on; a "saved: released" box,
        drawn when the values were gone before they could be kept, shows only
        from then on, so the replay never claims a release that has not happened.
        """
        out = []
        for el, owner in self.companions:
            gone = self.elements[owner] in released
            if "hidden" in classes[owner].split() or (el.endswith("_released") and not gone):
                out.append("hidden")
            elif gone and not el.endswith("_released"):
                out.append("freed")
            else:
                out.append("")
        return out

    def render(self, classes: list[str], grads: dict[str, str] | None = None,
               companions: list[str] | None = None) -> str:
        """The SVG with ``classes[i]`` added to element ``i`` and the given gradient texts.

        Gradient ``<text>`` elements carry ``data-mg-grad="n_<id>"`` so that the
        standalone player's script can find them.  ``companions`` are the
        companions' classes (``companion_classes``; default: hidden with their node).
        """
        out = []
        add = out.append
        grads = grads or {}
        if companions is None:
            companions = self.companion_classes(classes)
        for piece, (kind, key, extra) in zip(self._pieces, self._slots):
            add(piece)
            if kind == "class":
                c = classes[key]
                if c:
                    add(" " + c)
            elif kind == "companion":
                if companions[key]:
                    add(" " + companions[key])
            elif kind == "grad":
                text = grads.get(key)
                add(_with_attrs(extra, f' data-mg-grad="{key}"'))
                add(html.escape(text if text is not None else "", quote=False))
                add("</text>")
        add(self._pieces[-1])
        return "".join(out)


_SVG_WIDTH = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)pt"')


def _readable(svg: str) -> str:
    """Give the ``<svg>`` a floor for its width, ``--mg-min-width`` (player.css).

    The page fits a wide graph to its column, and at 800 px a lesson's graph
    shrank to 7-9 px text.  graphviz writes sizes in points and its fonts at
    11-14 pt: not narrower than its width in pixels (3/4 of its natural size)
    keeps text at 11 px or more; a narrower column scrolls instead.
    """
    m = _SVG_WIDTH.search(svg)
    if m is None:
        return svg
    at = m.start() + len("<svg")
    return f'{svg[:at]} style="--mg-min-width:{round(float(m.group(1)))}px"{svg[at:]}'


def _with_attrs(open_tag: str, attrs: str, cls: str | None = None) -> str:
    """``<text ...>`` with extra attributes (and a class merged into any existing one)."""
    if cls:
        m = _CLASS.search(open_tag)
        if m:
            open_tag = open_tag[:m.start(1)] + cls + " " + open_tag[m.start(1):]
        else:
            attrs += f' class="{cls}"'
    return open_tag[:-1] + attrs + ">"


# How each state looks: (state, element kind, target, declarations).  The target
# is the element itself ("") or, inside it, the node's background shape ("s"),
# the edge's line ("p") or arrowhead ("a"): the template gives those an id
# (``n_3_s``, ``e_3_1_0_p``) and a class (``mg-s``, ``mg-p``, ``mg-a``).  Later
# rules win: has-grad < accumulated < passed < receiving < current.  ``css()``
# turns these into class rules (``.mg-stepper g.node.current > .mg-s``), which the
# player's module (page and widget alike) switches by setting each element's class.
NEW_COLOR, NEW_FILL = "#ca8a04", "#fef9c3"  # "new": just built (create_graph)
READY_COLOR, READY_FILL = "#0891b2", "#cffafe"  # "ready": waiting in the ready queue
HOOK_COLOR, HOOK_FILL = "#db2777", "#fce7f3"  # "hooked": a hook replaced the gradient
RECOMPUTE_COLOR, RECOMPUTE_FILL = "#7c3aed", "#f5f3ff"  # "recomputed": a checkpoint's block
STATE_RULES = (
    ("hidden", None, "", "opacity:0"),
    ("has-grad", "node", "s", "stroke:#2ca02c;stroke-width:2px"),
    ("has-tangent", "node", "s", "stroke:#2ca02c;stroke-width:2px"),
    ("accumulated", "node", "s", "stroke:#9467bd;stroke-width:3px;stroke-dasharray:6 3"),
    ("passed", "edge", "p", "stroke:#2ca02c;stroke-width:1.6px"),
    ("passed", "edge", "a", "stroke:#2ca02c;fill:#2ca02c"),
    # made by a checkpointed block's recompute in backward (viz.stepper.checkpoint_steps)
    ("recomputed", "node", "s", f"stroke:{RECOMPUTE_COLOR};stroke-width:2px;"
                                f"stroke-dasharray:5 3;fill:{RECOMPUTE_FILL}"),
    ("recomputed", "edge", "p", f"stroke:{RECOMPUTE_COLOR};stroke-dasharray:5 3"),
    ("receiving", "node", "s", "stroke:#ff7f0e;stroke-width:3.5px;fill:#ffe8cc"),
    # a ready-queue pass: every contribution arrived, waiting in the queue (engine_notes)
    ("ready", "node", "s", f"stroke:{READY_COLOR};stroke-width:3px;fill:{READY_FILL}"),
    ("current", "node", "s", "stroke:#d62728;stroke-width:3.5px"),
    # text made heavier by a thin outline, not font-weight: bold glyphs are wider than
    # the ones graphviz measured, and would run past their boxes
    ("current", "node", "", "stroke:currentColor;stroke-width:0.35px"),
    ("current", "edge", "p", "stroke:#d62728;stroke-width:3px"),
    ("current", "edge", "a", "stroke:#d62728;fill:#d62728"),
    # a node a create_graph backward just built, and the edges into it
    ("new", "node", "s", f"stroke:{NEW_COLOR};stroke-width:3.5px;fill:{NEW_FILL}"),
    ("new", "edge", "p", f"stroke:{NEW_COLOR};stroke-width:2.5px"),
    ("new", "edge", "a", f"stroke:{NEW_COLOR};fill:{NEW_COLOR}"),
    # a gradient hook just replaced this node's gradient
    ("hooked", "node", "s", f"stroke:{HOOK_COLOR};stroke-width:4px;fill:{HOOK_FILL}"),
)
# A saved value backward has freed: faded, its text struck through (a companion
# state, see SvgTemplate.companion_classes; not "released", which is the class of
# the "saved: released" box viz.draw makes when the values were gone already).
FREED_RULES = (("", "opacity:0.45"), (" text", "text-decoration:line-through"))


def _class_rules() -> str:
    rules = []
    for state, kind, target, decl in STATE_RULES:
        g = f"g.{kind}" if kind else ""
        sub = f" > .mg-{target}" if target else ""
        rules.append(f".mg-stepper {g}.{state}{sub}{{{decl}}}")
    for sub, decl in FREED_RULES:
        rules.append(f".mg-stepper g.saved.freed{sub}{{{decl}}}")
    return "\n".join(rules) + "\n"


def svg_template(frames, svg: str, grad_text, drawn: dict[str, str] | None = None
                 ) -> SvgTemplate:
    """Cut ``svg`` (drawn from the frames' graph) into a template.

    A node's gradient text becomes a slot when the SVG shows exactly what it was
    drawn with: ``drawn[element id]``, or by default what ``grad_text`` says for
    its current ``.grad`` (so both agree on the format).
    """
    if drawn is None:
        drawn = {node_key(n): grad_text(n, n.grad) for n in frames.nodes}
    return SvgTemplate(svg, frames.elements, drawn)


def companion_strings(frames, template: SvgTemplate | None, step: int,
                      classes: list[str] | None = None) -> list[str]:
    """The state of each of ``template``'s companions (saved values) at ``step``;
    ``classes`` are the step's ``frames.class_strings(step)`` if the caller has them."""
    if template is None or not template.companions:  # (no saved values drawn)
        return []
    if classes is None:
        classes = frames.class_strings(step)
    return template.companion_classes(classes, frames.released(step))


def grad_strings(frames, step: int, grad_text) -> dict[str, str]:
    """``{node element id: gradient text}`` at ``step``."""
    nodes = frames.nodes
    shown = frames.shown_grads(step)  # (with a ready-queue pass's pending counts)
    return {node_key(n): grad_text(n, g) for n, g in zip(nodes, shown.values())}
