"""The graph panel: modules boxed, drawn once, edges recoloured by gradient norm, and the
model's own gradients left as they were."""

import re

import numpy as np

from minigrad import Tensor
from viz.training.graph_panel import DEAD_COLOR, GraphPanel, norm_color

from ._models import TensorMLP, moons, scalar_mlp, tensor_step


def _edge_colors(svg):
    return {m.group(1): set(re.findall(r'stroke="(#[0-9a-f]{6})"', m.group(2)))
            for m in re.finditer(r'<g id="(e_[0-9_]+)" class="edge[^"]*">(.*?)</g>', svg, re.S)}


def test_tensor_model_boxes_and_edges_coloured_per_layer():
    X, y = moons()
    model = TensorMLP()
    tensor_step(model, X, y)
    grads = [p.grad.copy() for p in model.parameters()]
    panel = GraphPanel(model, Tensor(X[:4]))
    svg = panel.svg_for({"fc1": 1e-3, "fc2": 1e-1, "fc3": 0.0})
    for box in ("c_fc1", "c_fc2", "c_fc3"):
        assert f'id="{box}"' in svg
    assert set(panel.edge_layer.values()) == {"fc1", "fc2", "fc3"}
    colors = _edge_colors(svg)
    by_layer = {}
    for key, layer in panel.edge_layer.items():
        by_layer.setdefault(layer, set()).update(colors[key])
    assert by_layer["fc1"] == {norm_color(0.0)}   # the smallest norm: blue
    assert by_layer["fc2"] == {norm_color(1.0)}   # the largest: red
    assert by_layer["fc3"] == {DEAD_COLOR}        # zero: grey
    for p, g in zip(model.parameters(), grads):  # the probe's backward left no trace
        np.testing.assert_array_equal(p.grad, g)


def test_the_layout_is_made_once_and_recoloured():
    X, _ = moons()
    panel = GraphPanel(TensorMLP(), Tensor(X[:4]))
    first = panel.svg_for({"fc1": 1.0, "fc2": 2.0, "fc3": 3.0})
    layout = panel.svg
    second = panel.svg_for({"fc1": 3.0, "fc2": 2.0, "fc3": 1.0})
    assert panel.svg is layout and first != second
    strip = re.compile(r'(stroke|fill)="#[0-9a-f]{6}"')
    assert strip.sub("", first) == strip.sub("", second)


def test_scalar_mlp_graph_and_grads_restored():
    model = scalar_mlp()
    before = [p.grad for p in model.parameters()]
    panel = GraphPanel(model, [0.5, -0.2])
    svg = panel.svg_for({"layers.0": 1.0, "layers.1": 0.5, "layers.2": 0.1})
    assert 'id="c_layers_1"' in svg and set(panel.edge_layer.values()) >= {"layers.1",
                                                                            "layers.2"}
    assert [p.grad for p in model.parameters()] == before


def test_a_probe_the_model_cannot_take_gives_no_picture_and_a_reason():
    panel = GraphPanel(TensorMLP(), Tensor(np.zeros((2, 5), dtype=np.float32)))
    assert panel.svg_for({"fc1": 1.0}) == ""
    assert panel.error
