"""The built-in layout (``layout="builtin"``): dot's ids and classes, boxes that never
overlap, edges between the right boxes, every ``rankdir``, the same picture every run,
and the stepper and the player working on it.

Expected ids and classes are read from the DOT text (what ``dot`` would draw), so
these tests need no graphviz; with ``dot`` installed the two SVGs are compared too.
Geometry is checked as relations (inside, apart, touching), never as coordinates.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import minigrad as mg
import viz
from minigrad import Value
from minigrad.nn.neurons import MLP
from minigrad.nn.scope import record_scopes, scope
from tests._graphs import Cube, neuron
from tests._helpers import ROOT
from viz.layout.layered import NODESEP, layout
from viz.render.draw import layout_engine
from viz.render.view import cluster_key
from viz.stepper.stepper import Stepper, step_through

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


# --------------------------------------------------------------------- ids and classes


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_ids_and_classes_are_the_ones_dot_draws(name):
    g = GRAPHS[name]()
    drawn = {k: v.get("class") for k, v in groups(ET.fromstring(_builtin_svg(g))).items()}
    assert drawn == dot_elements(g.source)
    assert drawn  # (the parse found something)


@needs_dot
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_same_groups_and_node_texts_as_the_dot_picture(name):
    g = GRAPHS[name]()
    by_dot = groups(ET.fromstring(redraw(g, "dot").svg()))
    ours = groups(ET.fromstring(_builtin_svg(g)))
    assert {k: v.get("class") for k, v in ours.items()} == {
        k: v.get("class") for k, v in by_dot.items()}
    for key, group in ours.items():
        if group.get("class").startswith(("node", "cluster")):
            assert texts(group) == texts(by_dot[key]), key


def test_highlighted_nodes_and_edges_keep_their_classes():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = a - b
    t = c.tanh()
    found = groups(ET.fromstring(viz.draw(t, highlight=[c, t], layout="builtin").svg()))
    assert found[f"n_{c.id}"].get("class") == "node op intermediate scalar highlight"
    assert found[f"e_{t.id}_{c.id}_0"].get("class") == "edge data highlight"
    assert found[f"e_{c.id}_{a.id}_0"].get("class") == "edge data"
    assert "#dc2626" in ET.tostring(found[f"n_{c.id}"], encoding="unicode")


# --------------------------------------------------------------------- geometry


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_node_boxes_never_overlap_and_clusters_hold_their_members(name):
    g = GRAPHS[name]()
    found = groups(ET.fromstring(_builtin_svg(g)))
    boxes = {k: rect_of(v) for k, v in found.items() if v.get("class").startswith("node")}
    keys = sorted(boxes)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            assert apart(boxes[a], boxes[b]), (a, b)
    clusters = {k: rect_of(v) for k, v in found.items() if v.get("class") == "cluster module"}
    if g.options.modules != "cluster":
        return
    for c in g.view.clusters:
        members = {n.key for n in g.view.nodes if n.scope[:len(c.path)] == c.path}
        for key, box in boxes.items():
            if key in members:
                assert inside(box, clusters[c.key]), (key, c.key)
            elif key.startswith("n_"):
                assert apart(box, clusters[c.key]), (key, c.key)
        if len(c.path) > 1:
            assert inside(clusters[c.key], clusters[cluster_key(c.path[:-1])])


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_each_edge_runs_from_its_tail_box_to_its_head_box(name):
    g = GRAPHS[name]()
    found = groups(ET.fromstring(_builtin_svg(g)))
    source = g.source
    for key, group in found.items():
        if not group.get("class").startswith("edge"):
            continue
        m = re.search(rf'(\S+) -> (\S+) \[id="{key}"', source)
        tail, head = m.group(1), m.group(2)
        start, end = ends(group)
        assert on_border(start, rect_of(found[tail])), (key, tail)
        assert on_border(end, rect_of(found[head])), (key, head)


@pytest.mark.parametrize("rankdir, axis, sign", [("LR", 0, 1), ("RL", 0, -1), ("TB", 1, 1),
                                                 ("BT", 1, -1)])
def test_edges_flow_along_rankdir(rankdir, axis, sign):
    g = _neuron(rankdir=rankdir, layout="builtin")
    found = groups(ET.fromstring(g.svg()))
    edges = [v for v in found.values() if v.get("class") == "edge data"]
    assert len(edges) == 9
    for e in edges:
        start, end = ends(e)
        assert (end[axis] - start[axis]) * sign > 0


def test_a_cycle_between_module_boxes_is_drawn_with_every_edge():
    """A module called twice collapses into one box that feeds itself through an op."""
    x = Value(2.0, label="x")
    w = Value(3.0, label="w")
    with record_scopes() as scopes:
        with scope("f"):
            h = x * w
        z = h + 1.0
        with scope("f"):
            y = z * w
    g = viz.draw(y, scopes=scopes, modules="box", layout="builtin")
    found = groups(ET.fromstring(g.svg()))
    drawn = {k: v.get("class") for k, v in found.items()}
    assert drawn == dot_elements(g.source)
    edges = [v for v in found.values() if v.get("class").startswith("edge")]
    assert len(edges) == 5  # x, w -> f; f -> z; 1.0 -> z; z -> f (closing the cycle)
    for key, group in found.items():
        if group.get("class").startswith("edge"):
            m = re.search(rf'(\S+) -> (\S+) \[id="{key}"', g.source)
            start, end = ends(group)
            assert on_border(start, rect_of(found[m.group(1)]))
            assert on_border(end, rect_of(found[m.group(2)]))


def test_a_few_hundred_nodes_lay_out_without_overlaps():
    xs = [Value(float(i), label=f"x{i}") for i in range(60)]
    acc = xs[0]
    for i, x in enumerate(xs[1:], 1):
        acc = (acc * x + xs[i // 2]).tanh() if i % 3 else acc + x * xs[i - 1]
    found = groups(ET.fromstring(viz.draw(acc, layout="builtin").svg()))
    boxes = sorted(rect_of(v) for v in found.values() if v.get("class").startswith("node"))
    assert len(boxes) > 150
    for i, a in enumerate(boxes):  # sorted by x: only later boxes starting before a ends can hit
        for b in boxes[i + 1:]:
            if b[0] >= a[0] + a[2]:
                break
            assert apart(a, b)


@pytest.mark.parametrize("rankdir, rows", [("TB", "stacked"), ("BT", "stacked"), ("LR", 1)])
def test_scalar_nodes_stack_their_fields_top_to_bottom_as_dot_does(rankdir, rows):
    g = _neuron(rankdir=rankdir, layout="builtin")
    found = groups(ET.fromstring(g.svg()))
    for n in g.view.nodes:
        line = next(x for x in g.source.splitlines() if x.strip().startswith(f"{n.key} ["))
        assert line.count("<tr>") == (len(texts(found[n.key])) if rows == "stacked" else rows)
        baselines = {t.get("y") for t in found[n.key].iter(f"{SVG}text")}
        assert len(baselines) == line.count("<tr>")  # one text a row, as in dot's table


def test_a_picture_is_as_wide_as_its_widest_rank_packed():
    """Six inputs of one sum, whose result runs down a chain: the inputs' rank sets the width."""
    sizes = {f"x{i}": (50.0, 20.0) for i in range(6)}
    sizes.update({f"c{i}": (40.0, 20.0) for i in range(5)})
    edges = [(f"x{i}", "c0") for i in range(6)] + [(f"c{i}", f"c{i + 1}") for i in range(4)]
    edges += [("x0", "c4"), ("x5", "c3")]  # long edges: lanes through the chain's ranks
    placed = layout(sizes, edges, rankdir="TB")
    assert placed.width == pytest.approx(6 * 50.0 + 5 * NODESEP)
    lr = layout(sizes, edges, rankdir="LR")
    assert lr.height == pytest.approx(6 * 20.0 + 5 * NODESEP)


def test_the_scalar_mlp_top_to_bottom_is_far_narrower_than_left_to_right():
    """The 120-node MLP of the lessons, unnamed as in the player: stacked fields, short
    edges and packed ranks make it a third as wide top to bottom as left to right (each
    alone does not: 0.48, 0.38 and 0.82 of it)."""
    model = MLP(3, [4, 4, 1], rng=random.Random(0))
    loss = (model([Value(v, label=f"x{i}") for i, v in enumerate((0.5, -1.0, 2.0))]) - 1.0) ** 2
    loss.backward()
    widths = {}
    for rankdir in ("auto", "LR"):
        svg = viz.draw(loss, layout="builtin", rankdir=rankdir, params=()).svg()
        widths[rankdir] = float(re.search(r'width="([\d.]+)pt"', svg).group(1))
    assert widths["auto"] < widths["LR"] / 3


def test_layout_places_given_sizes_in_clusters():
    sizes = {"a": (40, 20), "b": (30, 20), "c": (50, 30), "d": (20, 20)}
    placed = layout(sizes, [("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")],
                    scopes={"a": ("m",), "c": ("m",)}, labels={("m",): (20, 12)})
    assert {k: v[2:] for k, v in placed.boxes.items()} == {k: s for k, s in sizes.items()}
    assert inside(placed.boxes["a"], placed.clusters[("m",)])
    assert apart(placed.boxes["b"], placed.clusters[("m",)])
    assert placed.routes[3].tip is not None and len(placed.routes[3].points) > 4  # via a dummy
    wide = layout(sizes, [("a", "c"), ("b", "c"), ("c", "d")], scopes={"a": ("m",)},
                  labels={("m",): (300, 12)})
    assert wide.clusters[("m",)][2] >= 300  # the title fits, and nothing else is under it
    assert all(apart(wide.boxes[k], wide.clusters[("m",)]) for k in "bcd")
    with pytest.raises(ValueError, match="rankdir"):
        layout(sizes, [], rankdir="XY")


# --------------------------------------------------------------------- determinism


def test_the_same_picture_every_run_and_every_hash_seed():
    code = (
        "import viz\nfrom tests._graphs import neuron\nfrom minigrad.nn.scope import "
        "record_scopes, scope\n"
        "with record_scopes() as s:\n"
        "    with scope('m'):\n        o, _ = neuron()\n"
        "o.backward()\nprint(viz.draw(o, scopes=s, show_saved=True, legend=True, "
        "layout='builtin').svg())\n"
    )
    runs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        runs.append(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                   check=True, env=env, cwd=ROOT).stdout)
    assert runs[0] == runs[1] and 'id="c_m"' in runs[0]
    g = _neuron(layout="builtin")
    assert _builtin_svg(g) == _builtin_svg(g)


# --------------------------------------------------------------------- choosing the layout


def test_choosing_the_layout(monkeypatch, tmp_path):
    monkeypatch.delenv("MINIGRAD_LAYOUT", raising=False)
    assert layout_engine("builtin") == "builtin" and layout_engine("dot") == "dot"
    monkeypatch.setenv("MINIGRAD_LAYOUT", "builtin")
    assert not viz.dot_available()  # hidden, as on a machine without graphviz
    assert layout_engine("auto") == "builtin"
    assert layout_engine("dot") == "dot"  # an explicit choice wins (and then fails clearly)
    with pytest.raises(viz.DotNotFoundError, match="MINIGRAD_LAYOUT=builtin"):
        viz.draw(Value(1.0) * 2.0, layout="dot").svg()
    monkeypatch.setenv("MINIGRAD_LAYOUT", "auto")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert layout_engine("auto") == "builtin"
    monkeypatch.setenv("MINIGRAD_LAYOUT", "graphviz")
    with pytest.raises(ValueError, match="MINIGRAD_LAYOUT='graphviz' must be one of"):
        layout_engine("auto")
    with pytest.raises(ValueError, match="layout must be one of"):
        viz.draw(Value(1.0), layout="neato")
    with pytest.raises(ValueError, match="layout must be one of"):
        viz.DisplayOptions(layout="fast")


def test_builtin_picture_saves_as_svg_and_refuses_png_without_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("MINIGRAD_LAYOUT", "builtin")
    g = _neuron()
    assert g.layout == "builtin"
    root = ET.parse(g.save(tmp_path / "n.svg")).getroot()
    assert root.tag == f"{SVG}svg" and len(groups(root)) == 19
    with pytest.raises(viz.DotNotFoundError, match=r"PDF needs graphviz.*save as \.svg"):
        g.save(tmp_path / "n.pdf")
    assert "built-in layout" in g._repr_html_()
    assert "built-in layout" not in _neuron(layout="builtin")._repr_html_()  # asked for it


# --------------------------------------------------------------------- stepper and player


def test_stepper_templates_every_element_of_the_builtin_picture():
    x = mg.Tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True, name="x")
    s = step_through(lambda x: (x * x).relu().sum(), x, layout="builtin", show_saved=True)
    t = s.template
    assert t is not None and t.missing == [] and s.note is None
    assert set(t.grad_nodes) == {f"n_{n.id}" for n in s.frames.nodes if n.requires_grad}
    assert t.companions  # saved values restyled with their node
    for i in range(len(s)):
        root = ET.fromstring(s.render_svg(i))
        found = groups(root)
        for el, cls in s.frames.classes(i).items():
            assert found[el].get("class").split()[-len(cls.split()):] == cls.split()
    assert "mg-s" in s.widget_svg_html() and "gv_" in s.widget_svg_html()


def test_player_page_from_the_builtin_picture(tmp_path):
    tape_s = step_through(lambda a, b: a * b + a, 2.0, 3.0, layout="builtin")
    with_picture = tape_s.to_html()
    assert with_picture.count("<svg") == 1 and 'class="mg-nograph"' not in with_picture
    page = viz.export_html(tape_s, tmp_path / "p.html").read_text(encoding="utf-8")
    assert 'class="node op output scalar' in page and "data-mg-grad" in page


def test_stepper_rejects_an_unknown_layout_at_the_call():
    tape_s = step_through(lambda a: a * 2, 1.0, layout="builtin")
    assert isinstance(tape_s, Stepper) and tape_s.options.layout == "builtin"
    with pytest.raises(ValueError, match="layout must be one of"):
        step_through(lambda a: a * 2, 1.0, layout="neato")
