"""Module frames in the overview of a big graph (viz.render.overview): boxes, folded chains
and leaves sit in the frame of the module that made them, as in the normal drawing, with
modules= and depth= honoured, in both layouts."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import viz
from minigrad import Value, nn
from minigrad.nn.neurons import MLP

from .._scoped_models import cnn, digits_mlp

needs_dot = pytest.mark.skipif(not viz.dot_available(), reason="graphviz 'dot' not installed")
_SVG = "{http://www.w3.org/2000/svg}"


def scalar_mlp(sizes=(4, 4, 1)):
    """The scalar engine's nn.MLP on one example, its modules recorded."""
    model = MLP(2, list(sizes), rng=random.Random(0))
    with nn.record_scopes() as scopes:
        out = model([Value(0.5), Value(-1.0)])
    out.backward()
    return out, scopes, model


def scalar_batch(examples=6, sizes=(3, 3, 1)):
    """micrograd's demo, small and with its modules recorded: an MLP over a batch, its
    SVM loss (outside the model) and L2 on the parameters."""
    rng = np.random.default_rng(0)
    model = MLP(2, list(sizes), rng=random.Random(0))
    xs = [[Value(float(v)) for v in row] for row in rng.normal(size=(examples, 2))]
    ys = rng.choice([-1.0, 1.0], size=examples)
    with nn.record_scopes() as scopes:
        losses = [(1 + -float(y) * model(x)).relu() for x, y in zip(xs, ys)]
    loss = sum(losses) * (1.0 / examples) + 1e-4 * sum(p * p for p in model.parameters())
    loss.backward()
    return loss, scopes, model


def groups(view):
    return {n.symbol: n for n in view.nodes if n.kind == "group"}


def frames(view):
    return {c.path for c in view.clusters}


def dot_frames(source: str) -> dict:
    """``{element key: innermost cluster id}`` read from the DOT text's nesting."""
    where, stack = {}, []
    for line in source.splitlines():
        opened = re.match(r'\s*subgraph cluster_\w+ \{ id="(c_\w*)"', line)
        if opened:
            stack.append(opened.group(1))
        elif line.strip() == "}":
            if stack:
                stack.pop()
        else:
            node = re.match(r'\s*(\w+) \[id="', line)
            if node:
                where[node.group(1)] = stack[-1] if stack else None
    return where


def svg_rects(svg: str) -> dict:
    """``{group id: (x, y, w, h)}`` of the first rectangle of each node and cluster group."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{_SVG}g"):
        rect = g.find(f"{_SVG}rect")
        if g.get("id") and rect is not None:
            out[g.get("id")] = tuple(float(rect.get(k)) for k in ("x", "y", "width", "height"))
    return out


def inside(inner, outer) -> bool:
    x, y, w, h = inner
    X, Y, W, H = outer
    return X <= x and Y <= y and x + w <= X + W and y + h <= Y + H


# --------------------------------------------------------------------- where boxes sit


def test_a_neurons_box_sits_in_its_layers_frame():
    out, scopes, _ = scalar_mlp()
    view = viz.draw(out, scopes=scopes, overview=True).view
    found = groups(view)
    assert found["layers.0.neurons.* × 4"].scope == ("layers", "0", "neurons")
    # a layer-1 neuron's unit also holds the one product of layer 2 that takes it: still
    # in its layer's frame
    assert {n.scope for n in found.values()} == {("layers", "0", "neurons"),
                                                 ("layers", "1", "neurons")}
    last = [n for n in view.nodes if n.kind != "group" and n.scope]
    assert last and {n.scope for n in last} == {("layers", "2", "neurons", "0")}
    # the frames drawn are the whole graph's clusters that hold something, titles kept
    whole = {c.path: c.title for c in viz.build_view(out, scopes=scopes).clusters}
    assert frames(view) == {("layers",), ("layers", "0"), ("layers", "0", "neurons"),
                            ("layers", "1"), ("layers", "1", "neurons"), ("layers", "2"),
                            ("layers", "2", "neurons"), ("layers", "2", "neurons", "0")}
    assert all(c.title == whole[c.path] for c in view.clusters)
    assert {n.id for c in view.clusters for n in view.nodes if n.id in c.nodes} == {
        n.id for n in view.nodes if n.scope}


def test_a_group_spanning_modules_sits_in_their_common_frame_and_leaves_per_layer():
    loss, scopes, model = scalar_batch()
    view = viz.draw(loss, scopes=scopes, overview=True).view
    found = groups(view)
    assert found["example × 6"].scope == ()  # the model and the loss: outside every frame
    params = {n.scope: n for n in view.nodes if n.kind == "group" and n.role == "param"}
    per_layer = {("layers", str(k)): len(layer.parameters())
                 for k, layer in enumerate(model.layers)}
    assert {scope: p.size for scope, p in params.items()} == per_layer
    # the parameters' squares (L2) are made outside the model
    assert found[f"mul × {len(model.parameters())}"].scope == ()


def test_depth_chooses_the_level_leaves_are_grouped_at():
    loss, scopes, model = scalar_batch()
    one = viz.draw(loss, scopes=scopes, overview=True, depth=1).view
    (params,) = [n for n in one.nodes if n.kind == "group" and n.role == "param"]
    assert params.scope == ("layers",) and params.size == len(model.parameters())
    per_neuron = viz.draw(loss, scopes=scopes, overview=True, depth=4).view
    boxes = [n for n in per_neuron.nodes if n.kind == "group" and n.role == "param"]
    assert {n.scope for n in boxes} == {("layers", "0", "neurons", str(k)) for k in range(3)} | {
        ("layers", "1", "neurons", str(k)) for k in range(3)} | {("layers", "2", "neurons", "0")}


def test_modules_none_draws_no_frames_and_the_overview_of_old():
    loss, scopes, model = scalar_batch()
    plain = viz.draw(loss, scopes=scopes, overview=True, modules=None)
    assert plain.view.clusters == [] and not any(n.scope for n in plain.view.nodes)
    assert "cluster" not in plain.source
    unscoped = viz.draw(loss, params=model, overview=True)  # no scopes known at all
    assert sorted(groups(plain.view)) == sorted(groups(unscoped.view))
    assert f"param × {len(model.parameters())}" in groups(plain.view)


def test_chains_fold_within_a_module_so_a_cnn_keeps_its_layers():
    loss, scopes = cnn()
    framed = viz.draw(loss, scopes=scopes, overview=True, show_grad=False).view
    assert not groups(framed)  # every layer's op in sight, each in its frame
    ops = {n.op: n.scope for n in framed.nodes if not n.is_leaf}
    assert ops["relu"] in {("1",), ("4",)} and ops["flatten"] == ("6",)
    assert [c.title for c in framed.clusters] == [
        "0: Conv2d", "1: ReLU", "2: MaxPool2d", "3: Conv2d", "4: ReLU", "5: MaxPool2d",
        "6: Flatten", "7: Linear"]
    plain = viz.draw(loss, scopes=scopes, overview=True, modules=None).view
    (chain,) = [n for n in groups(plain).values() if n.symbol.startswith("… ")]
    assert chain.size >= 6 and "flatten" in chain.symbol  # without frames: folded across


def test_the_digits_mlp_over_a_batch_is_drawn_in_its_frames():
    loss, scopes = digits_mlp()
    g = viz.draw(loss, scopes=scopes, overview=True)
    assert [c.title for c in g.view.clusters] == ["0: Linear", "1: ReLU", "2: Linear"]
    where = dot_frames(g.source)
    for n in g.view.nodes:
        assert where[n.key] == (viz.render.view.cluster_key(n.scope) if n.scope else None)


# --------------------------------------------------------------------- renderers


@pytest.mark.parametrize("layout", ["builtin", pytest.param("dot", marks=needs_dot)])
def test_both_layouts_draw_each_box_inside_its_frame(layout):
    loss, scopes, _ = scalar_batch()
    g = viz.draw(loss, scopes=scopes, overview=True, layout=layout)
    where = dot_frames(g.source)
    framed = [n for n in g.view.nodes if n.scope]
    assert framed and all(where[n.key] == viz.render.view.cluster_key(n.scope) for n in framed)
    svg = g.svg()
    for c in g.view.clusters:
        assert re.search(f'<g id="{c.key}" class="cluster module"', svg)
    if layout == "builtin":  # (dot's geometry is dot's: its nesting is read above)
        rects = svg_rects(svg)
        for n in framed:
            assert inside(rects[n.key], rects[viz.render.view.cluster_key(n.scope)])
        for n in g.view.nodes:
            if not n.scope:
                assert not any(inside(rects[n.key], rects[c.key]) for c in g.view.clusters)


def test_module_boxes_count_what_the_overviews_boxes_stand_for():
    out, scopes, model = scalar_mlp()
    g = viz.draw(out, scopes=scopes, overview=True, modules="box", layout="builtin")
    whole = viz.draw(out, scopes=scopes, overview=False, modules="box", layout="builtin")
    assert 'id="c_layers_0"' in g.source and "group" not in g.source  # all inside the boxes

    def texts(svg, key):
        for el in ET.fromstring(svg).iter(f"{_SVG}g"):
            if el.get("id") == key:
                return ["".join(t.itertext()) for t in el.iter(f"{_SVG}text")]

    first = texts(g.svg(), "c_layers_0")
    assert first[:2] == texts(whole.svg(), "c_layers_0")[:2]
    assert first[1] == f"{4 * 5} ops, {len(model.layers[0].parameters())} params"
    # a batch: the layers' ops are in the examples' box, only their parameters in the layer
    loss, scopes, model = scalar_batch()
    batch = viz.draw(loss, scopes=scopes, overview=True, modules="box", layout="builtin")
    assert texts(batch.svg(), "c_layers_1")[1] == f"{len(model.layers[1].parameters())} params"


def test_expand_opens_a_unit_inside_its_frames():
    out, scopes, _ = scalar_mlp()
    g = viz.draw(out, scopes=scopes, expand="layers.0.neurons.*")
    found = groups(g.view)
    assert found["layers.0.neurons.* × 3 more"].scope == ("layers", "0", "neurons")
    opened = [n for n in g.view.nodes if n.scope[:3] == ("layers", "0", "neurons")
              and n.kind != "group"]
    assert {n.op for n in opened} == {None, "mul", "add", "relu"}  # (and its own w, b)
    (neuron,) = {n.scope for n in opened}  # one neuron, in its own frame
    assert len(neuron) == 4 and neuron in frames(g.view)
    # the notebook's embedded openings (Graph.expanded) keep the frames, and modules=None
    base = viz.draw(out, scopes=scopes, overview=True)
    assert frames(base.expanded(["layers.0.neurons.*"]).view) == frames(g.view)
    bare = viz.draw(out, scopes=scopes, overview=True, modules=None)
    assert bare.expanded(["layers.0.neurons.*"]).view.clusters == []


def test_the_text_tree_of_a_framed_overview_is_the_pictures():
    loss, scopes, _ = scalar_batch(examples=4)
    drawn = viz.draw(loss, scopes=scopes, overview=True)
    text = viz.text(loss, scopes=scopes, overview=True)
    assert text == drawn.text() and "param × " in text
