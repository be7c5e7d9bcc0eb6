"""Module boxes keep their output's data and gradient (``viz.render.dot``)."""

from __future__ import annotations

import random
import shutil

import pytest

import minigrad as mg
import viz
from minigrad.nn import record_scopes
from minigrad.nn.neurons import MLP

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz 'dot' not installed")


@needs_dot
def test_a_scalar_module_box_shows_its_output_data_and_grad():
    from xml.etree import ElementTree as ET

    model = MLP(3, [2, 1], rng=random.Random(1))
    with record_scopes() as scopes:
        out = model([1.0, -2.0, 0.5])
    out.backward()
    g = viz.draw(out, scopes=scopes, modules="box")
    root = ET.fromstring(g.svg())
    ns = "{http://www.w3.org/2000/svg}"
    box = next(e for e in root.iter(f"{ns}g") if e.get("id") == "c_layers_1")  # the last layer
    texts = [t.text for t in box.iter(f"{ns}text")]
    view = viz.build_view(out, scopes=scopes)
    assert texts[-2:] == [f"→ data {view.node(out).data}", view.node(out).grad_label]


def test_box_summary_of_a_big_tensor_gives_shape_and_grad_norm():
    from viz.render.dot import box_summary

    x = mg.Tensor([[1.0, 2.0, 3.0, 4.0]] * 3, requires_grad=True)
    y = (x * 2.0).sum()
    y.backward()
    node = viz.build_view(y).node(y.parents[0])
    assert box_summary(node) == ["→ (3, 4) float32", node.grad_label]
    assert node.grad_label.startswith("grad norm ")
