"""Pictures drawn both ways and the SVG parsing that compares them, for the tests of the
built-in layout (``viz/layout/layered.py``, ``viz/render/svg_draw.py``,
``viz/render/svg_cards.py``) and of the stepper on it.

Expected ids and classes are read from the DOT text (what ``dot`` would draw), so
these helpers need no graphviz.  Geometry is compared as relations (inside, apart,
touching), never as coordinates.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import minigrad as mg
import viz
from minigrad import Value
from minigrad.nn.scope import record_scopes, scope
from tests._graphs import Cube, neuron

SVG = "{http://www.w3.org/2000/svg}"
needs_dot = pytest.mark.skipif(not viz.dot_available(), reason="graphviz 'dot' not installed")


# --------------------------------------------------------------------- graphs


def _neuron(**kw):
    o, _ = neuron()
    o.backward()
    return viz.draw(o, **kw)


def _tensor_mlp(**kw):
    rng = np.random.default_rng(0)
    x = mg.Tensor(rng.standard_normal((4, 3)))
    w1 = mg.Tensor(rng.standard_normal((3, 5)), requires_grad=True, name="W1")
    b1 = mg.Tensor(np.zeros(5), requires_grad=True, name="b1")
    w2 = mg.Tensor(rng.standard_normal((5, 2)), requires_grad=True, name="W2")
    loss = (((x @ w1 + b1).relu() @ w2) ** 2).mean()
    loss.backward()
    return viz.draw(loss, **kw)


def _modules(**kw):
    x = mg.Tensor([[1.0, 2.0]], name="x")
    w = mg.Tensor([[1.0], [2.0]], requires_grad=True, name="w")
    with record_scopes() as scopes:
        with scope("net"):
            with scope("0"):
                h = (x @ w).relu()
            with scope("1"):
                y = h * 2.0 + h
        loss = y.sum() * 3.0
    return viz.draw(loss, scopes=scopes, **kw)


def _long_title(**kw):
    """A module whose title is far wider than the one small node it holds."""
    a = Value(2.0, label="a")
    with record_scopes() as scopes:
        with scope("a_module_with_a_title_much_wider_than_its_nodes"):
            b = a * 2.0
    return viz.draw((b + a).relu(), scopes=scopes, **kw)


def _function(**kw):
    a = Value(1.5, label="a")
    c = Cube.apply(a) * 2 + a
    c.backward()
    return viz.draw(c, **kw)


GRAPHS = {
    "scalar neuron": lambda: _neuron(),
    "tensor mlp, saved values": lambda: _tensor_mlp(show_saved=True),
    "custom function, attrs": lambda: _function(show_attrs=True),
    "legend, title, edge labels": lambda: _neuron(legend=True, title="neuron",
                                                  edge_labels=True, show_saved=True),
    "module clusters": lambda: _modules(),
    "module with a long title": lambda: _long_title(),
    "module with a long title, top to bottom": lambda: _long_title(rankdir="TB"),
    "module boxes": lambda: _modules(modules="box"),
    "module boxes, depth 1": lambda: _modules(modules="box", depth=1),
    "top to bottom": lambda: _tensor_mlp(rankdir="TB", legend=True),
    "scalar neuron, top to bottom": lambda: _neuron(rankdir="TB", show_saved=True),
}


def redraw(graph: viz.Graph, layout: str) -> viz.Graph:
    """The same drawing (same nodes, same options) laid out by ``layout``."""
    roots = [graph.view.by_id[i].node for i in graph.view.roots]
    return viz.draw(roots, options=graph.options.replace(layout=layout))


def _builtin_svg(graph: viz.Graph) -> str:
    return redraw(graph, "builtin").svg()


def groups(root: ET.Element) -> dict[str, ET.Element]:
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id") not in (None, "graph0")}


def texts(g: ET.Element) -> list[str]:
    return [t.text for t in g.iter(f"{SVG}text")]


def dot_elements(source: str) -> dict[str, str]:
    """``{id: class}`` of what dot draws from ``source``: dot puts ``node``, ``edge`` or
    ``cluster`` before the classes the DOT text gives."""
    out = {}
    for m in re.finditer(r'subgraph cluster_\w+ \{ id="([^"]+)"; class="([^"]+)"', source):
        out[m.group(1)] = "cluster " + m.group(2)
    for m in re.finditer(r'^\s*(\S+)( -> \S+)? \[id="([^"]+)", class="([^"]+)"', source, re.M):
        out[m.group(3)] = ("edge " if m.group(2) else "node ") + m.group(4)
    return out


def rect_of(g: ET.Element) -> tuple:
    """A node's box: its background, the first shape of its group."""
    r = g.find(f"{SVG}rect")
    return tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))


def apart(a, b) -> bool:
    return a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]


def inside(inner, outer, slack=0.01) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[0] + inner[2] <= outer[0] + outer[2] + slack
            and inner[1] + inner[3] <= outer[1] + outer[3] + slack)


def ends(edge: ET.Element) -> tuple:
    """An edge's first point (its path's move-to) and last (the arrow's tip, or the path's end)."""
    d = edge.find(f"{SVG}path").get("d")
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    tip = edge.find(f"{SVG}polygon")
    last = (nums[-2], nums[-1])
    if tip is not None:
        last = tuple(float(v) for v in tip.get("points").split()[0].split(","))
    return (nums[0], nums[1]), last


def on_border(p, box, tol=0.6) -> bool:
    x, y, w, h = box
    within = x - tol <= p[0] <= x + w + tol and y - tol <= p[1] <= y + h + tol
    near_side = min(abs(p[0] - x), abs(p[0] - x - w), abs(p[1] - y), abs(p[1] - y - h)) <= tol
    return within and near_side
