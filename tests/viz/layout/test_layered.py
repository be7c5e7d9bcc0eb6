"""The built-in layered layout (``viz.layout.layered``): boxes that never overlap, clusters
that hold their members, edges from tail box to head box along every ``rankdir``,
ranks packed, and the same picture every run.

Geometry is checked as relations (inside, apart, touching), never as coordinates.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import viz
from minigrad import Value
from minigrad.nn.neurons import MLP
from minigrad.nn.scope import record_scopes, scope
from tests._helpers import ROOT
from tests.viz._builtin_pictures import (
    GRAPHS,
    _builtin_svg,
    _neuron,
    apart,
    dot_elements,
    ends,
    groups,
    inside,
    on_border,
    rect_of,
)
from viz.layout.layered import NODESEP, layout
from viz.render.view import cluster_key

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
    found = groups(ET.fromstring(viz.draw(acc, layout="builtin", overview=False).svg()))
    boxes = sorted(rect_of(v) for v in found.values() if v.get("class").startswith("node"))
    assert len(boxes) > 150
    for i, a in enumerate(boxes):  # sorted by x: only later boxes starting before a ends can hit
        for b in boxes[i + 1:]:
            if b[0] >= a[0] + a[2]:
                break
            assert apart(a, b)


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
