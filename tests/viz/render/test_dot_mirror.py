"""dot's picture mirrored when that puts its module frames in the model's order
(``viz.render.dot_mirror``): positions flipped across the ranks, frame titles kept at the
frame's start, ids and classes unchanged; micrograd's demo drawn layers.0, 1, 2."""

from __future__ import annotations

import re

import pytest

import viz
from viz.render.dot_mirror import against, frame_boxes, mirror_layout

from .._scoped_models import demo

needs_dot = pytest.mark.skipif(not viz.dot_available(), reason="graphviz 'dot' not installed")

LAID = """digraph g {
\tgraph [bb="0,0,200,100", lp="100,90", rankdir=TB];
\tsubgraph cluster_a {
\t\tgraph [bb="10,10,60,80", lp="30,72", label=a];
\t\tn_1\t[pos="35,40", id=n_1];
\t}
\tn_2\t[pos="150,40", id=n_2];
\tn_1 -> n_2\t[pos="e,140,40 60,40 80,40 100,40 130,40", head_lp="138,45"];
}
"""


def numbers(text, key):
    return [float(v) for v in re.search(rf'\b{key}="([^"]*)"', text).group(1)
            .replace("e,", "").replace(" ", ",").split(",")]


def test_mirror_layout_flips_positions_across_the_ranks_drawn_top_to_bottom():
    out = mirror_layout(LAID, "TB")
    assert numbers(out.split("n_1\t")[1], "pos") == [165.0, 40.0]  # x -> 200 - x
    assert numbers(out.split("n_2\t")[1], "pos") == [50.0, 40.0]
    edge = out.split("n_1 -> n_2")[1]
    assert numbers(edge, "pos") == [60, 40, 140, 40, 120, 40, 100, 40, 70, 40]
    assert numbers(edge, "head_lp") == [62.0, 45.0]
    # the frame: mirrored as a whole, its title the same distance from its left edge
    frame = out.split("subgraph cluster_a")[1]
    assert numbers(frame, "bb") == [140, 10, 190, 80]
    assert numbers(frame, "lp") == [160, 72]
    assert numbers(out, "bb") == [0, 0, 200, 100] and numbers(out, "lp") == [100, 90]


def test_mirror_layout_flips_top_and_bottom_drawn_left_to_right():
    out = mirror_layout(LAID.replace("rankdir=TB", "rankdir=LR"), "LR")
    assert numbers(out.split("n_1\t")[1], "pos") == [35.0, 60.0]  # y -> 100 - y
    assert numbers(out.split("subgraph cluster_a")[1], "bb") == [10, 20, 60, 90]


def ids(svg):
    return sorted(re.findall(r'<g id="([^"]+)" class="([^"]+)"', svg))


def test_against_counts_side_by_side_frames_in_and_out_of_order():
    loss, scopes = demo()
    g = viz.draw(loss, scopes=scopes, overview=True, layout="builtin")
    svg = g.svg()
    assert {"c_layers_0", "c_layers_1", "c_layers_2"} <= set(frame_boxes(svg))
    assert against(g.view, svg, "TB") == (0, 3)  # the built-in layout: in order
    swapped = svg.replace('id="c_layers_0"', 'id="tmp"').replace(
        'id="c_layers_2"', 'id="c_layers_0"').replace('id="tmp"', 'id="c_layers_2"')
    assert against(g.view, swapped, "TB") == (3, 0)


@needs_dot
def test_the_demo_s_layers_come_in_order_in_dot_s_picture():
    loss, scopes = demo()
    g = viz.draw(loss, scopes=scopes, overview=True, layout="dot")
    svg = g.svg()
    assert against(g.view, svg, "TB") == (0, 3)
    plain = g.pipe("svg").decode()  # dot's own picture, not mirrored
    assert against(g.view, plain, "TB")[0] > 0  # (dot 2.43 draws them 2, 1, 0)
    assert ids(svg) == ids(plain)  # the same elements: the stepper finds each
    boxes = frame_boxes(svg)
    for c in g.view.clusters:  # each title at its frame's left
        title = re.search(rf'<g id="{c.key}" class="cluster[^"]*">.*?<text[^>]*x="([-\d.]+)"',
                          svg, re.S)
        assert boxes[c.key][0] <= float(title.group(1)) < boxes[c.key][0] + 20


@needs_dot
def test_a_saved_png_is_the_mirrored_picture(tmp_path):
    loss, scopes = demo()
    g = viz.draw(loss, scopes=scopes, overview=True, layout="dot")
    path = g.save(tmp_path / "demo.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and g._mirrored is not None


@needs_dot
def test_a_picture_already_in_order_is_dot_s_own():
    loss, scopes = demo()
    g = viz.draw(loss, scopes=scopes, overview=True, layout="dot", modules=None)
    assert g.svg() == viz.render.draw.strip_prolog(g.pipe("svg").decode())
    assert g._mirrored is None
