"""The DOT text and the SVG hooks it names (``viz.render.dot``): ids by counter, classes,
label texts, saved values, module clusters and boxes.

SVG is checked by parsing it (ids, classes, counts, label text), never by bytes
or coordinates: two graphviz builds lay the same graph out differently.  The SVG
tests run on whatever ``draw`` uses: ``dot`` when installed, the built-in layout
otherwise (``make test`` runs them both ways, the second with ``MINIGRAD_LAYOUT=builtin``).
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import minigrad as mg
import viz
from minigrad import Value, nn
from tests._graphs import neuron

SVG = "{http://www.w3.org/2000/svg}"


def groups(svg: str) -> dict[str, ET.Element]:
    """Every <g> with an id, by id."""
    root = ET.fromstring(svg)
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}


def texts(g: ET.Element) -> list[str]:
    return [t.text for t in g.iter(f"{SVG}text")]


# --------------------------------------------------------------------- DOT


def test_dot_is_deterministic_within_and_across_runs():
    o, _ = neuron()
    assert viz.draw(o).source == viz.draw(o).source
    code = (
        "import viz\nfrom minigrad import Value\n"
        "a = Value(2.0, label='a'); b = Value(-3.0, label='b')\n"
        "y = (a * b + a).tanh(); y.backward()\n"
        "print(viz.draw(y, show_saved=True, legend=True).source)\n"
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] and "n_5" in runs[0]


def test_dot_names_elements_by_counter_id():
    x = Value(3.0, label="x")
    y = x * x
    src = viz.draw(y).source
    assert f'n_{x.id} [id="n_{x.id}", class="leaf param scalar"' in src
    assert f'n_{x.id} -> n_{y.id} [id="e_{y.id}_{x.id}_0", class="data"]' in src
    assert f'n_{x.id} -> n_{y.id} [id="e_{y.id}_{x.id}_1", class="data"]' in src


# --------------------------------------------------------------------- SVG


def test_svg_ids_classes_and_labels_of_a_neuron():
    o, (x1, x2, w1, w2, b) = neuron()
    o.backward()
    g = viz.draw(o)
    svg = g.svg()
    assert svg.startswith("<svg") and "<?xml" not in svg and "<!DOCTYPE" not in svg
    found = groups(svg)
    nodes = {k: v for k, v in found.items() if v.get("class", "").startswith("node")}
    edges = {k: v for k, v in found.items() if v.get("class", "").startswith("edge")}
    order = mg.topological_order(o)
    assert set(nodes) == {f"n_{n.id}" for n in order}
    assert set(edges) == {f"e_{n.id}_{p.id}_{i}" for n in order for i, p in enumerate(n.parents)}
    assert len(edges) == 9
    assert nodes[f"n_{x1.id}"].get("class") == "node leaf param scalar"
    assert nodes[f"n_{o.id}"].get("class") == "node op output scalar"
    assert nodes[f"n_{o.id - 1}"].get("class") == "node op intermediate scalar"
    assert all(e.get("class") == "edge data" for e in edges.values())
    assert texts(nodes[f"n_{o.id}"]) == ["tanh", "o", "data 0.7071", "grad 1.0000"]
    assert texts(nodes[f"n_{x1.id}"]) == ["x1", "data 2.0000", "grad -1.5000"]


def test_x_times_x_draws_two_edges():
    x = Value(3.0, label="x")
    y = x * x
    found = groups(viz.draw(y).svg())
    assert {f"e_{y.id}_{x.id}_0", f"e_{y.id}_{x.id}_1"} <= set(found)
    assert sum(1 for g in found.values() if g.get("class") == "edge data") == 2


def test_grad_not_computed_and_forward_only():
    a = Value(2.0, label="a")
    y = a * 3.0
    found = groups(viz.draw(y).svg())
    assert texts(found[f"n_{a.id}"]) == ["a", "data 2.0000", "grad —"]
    const = [g for g in found.values() if "input" in (g.get("class") or "")]
    assert len(const) == 1 and texts(const[0]) == ["data 3.0000"]  # no grad field
    y.backward()
    found = groups(viz.draw(y, show_grad=False).svg())
    assert not any(t.startswith("grad") for g in found.values() for t in texts(g))


def test_saved_values_highlight_legend_and_edge_labels():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = a - b
    t = c.tanh()
    g = viz.draw(t, show_saved=True, highlight=[c, t], legend=True, edge_labels=True)
    found = groups(g.svg())
    assert texts(found[f"s_{t.id}_0"]) == ["out", "-0.7616"]  # tanh's rule names it out
    assert found[f"s_{t.id}_0"].get("class") == "node saved"
    assert found[f"se_{t.id}_0"].get("class") == "edge saved"
    assert found[f"n_{c.id}"].get("class") == "node op intermediate scalar highlight"
    assert found[f"e_{t.id}_{c.id}_0"].get("class") == "edge data highlight"
    assert found[f"e_{c.id}_{a.id}_0"].get("class") == "edge data"
    assert found["legend"].get("class") == "node legend"
    assert "output / loss" in texts(found["legend"])
    assert "0" in texts(found[f"e_{c.id}_{b.id}_1"]) or "1" in texts(found[f"e_{c.id}_{b.id}_1"])
    assert repr(g) == "<Graph 4 nodes, 3 edges>"  # saved values and legend not counted
    t.backward()
    found = groups(viz.draw(t, show_saved=True).svg())
    assert found[f"s_{t.id}_released"].get("class") == "node saved released"


def test_tensor_nodes_show_shape_dtype_and_tiny_previews():
    x = mg.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    W = mg.Tensor(np.ones((4, 3), dtype=np.float32), requires_grad=True, name="W")
    h = x.reshape(1, 4) @ W
    loss = h.sum()
    loss.backward()
    found = groups(viz.draw(loss).svg())
    assert found[f"n_{x.id}"].get("class") == "node leaf param tensor"
    assert texts(found[f"n_{x.id}"]) == ["x", "(2, 2) float32", "data [[1.0000, 2.0000],",
                                          " [3.0000, 4.0000]]",
                                          "grad [[3.0000, 3.0000], [3.0000, 3.0000]]"]
    # a big tensor shows no values, only its gradient's norm: sqrt(3·(1+4+9+16))
    assert texts(found[f"n_{W.id}"]) == ["W", "(4, 3) float32", "grad norm 9.4868"]
    assert texts(found[f"n_{loss.id}"]) == ["Σ", "() float32", "data 30.0000", "grad 1.0000"]
    found = groups(viz.draw(loss, show_attrs=True).svg())
    assert "axis=None, keepdims=False" in texts(found[f"n_{loss.id}"])


class Square(mg.Function):
    """∂(x²)/∂x = 2x"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.data**2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x


@pytest.mark.parametrize("engine", ["scalar", "tensor"])
def test_custom_function_nodes_show_class_name_and_saved_values(engine):
    x = Value(3.0, label="x") if engine == "scalar" else mg.Tensor([3.0], requires_grad=True,
                                                                    name="x")
    y = Square.apply(x)
    z = y * 2.0
    found = groups(viz.draw(z, show_attrs=True).svg())
    assert found[f"n_{y.id}"].get("class") == f"node op intermediate {engine} function"
    assert texts(found[f"n_{y.id}"])[0] == "Square"
    assert found[f"s_{y.id}_0"].get("class") == "node saved"  # shown without asking
    assert texts(found[f"s_{y.id}_0"]) == ["saved_tensors[0] = input 0",
                                           "3.0000" if engine == "scalar" else "[3.0000]"]
    assert not any("ctx" in t for t in texts(found[f"n_{y.id}"]))
    assert f"s_{y.id}_0" not in groups(viz.draw(z, show_saved=False).svg())


def test_module_clusters_and_boxes():
    record_scopes, scope = nn.record_scopes, nn.scope

    x = mg.Tensor([[1.0, 2.0]], name="x")
    w = mg.Tensor([[1.0], [2.0]], requires_grad=True, name="w")
    with record_scopes() as scopes:
        with scope("net"):
            with scope("0"):
                h = (x @ w).relu()
            with scope("1"):
                y = h * 2.0
        loss = y.sum()
    found = groups(viz.draw(loss, scopes=scopes).svg())
    assert found["c_net"].get("class") == "cluster module"
    assert found["c_net_0"].get("class") == "cluster module"
    assert texts(found["c_net_0"]) == ["net.0"]
    g = viz.draw(loss, scopes=scopes, modules="box")
    found = groups(g.svg())
    assert found["c_net_0"].get("class") == "node module box"
    assert texts(found["c_net_0"]) == ["net.0", "2 ops", "→ (1, 1) float32",
                                       "data [[5.0000]]",
                                       viz.render.view.grad_label(h.data, h.grad)]
    assert found[f"e_{h.id - 1}_{x.id}_0"].get("class") == "edge data collapsed"
    assert f"n_{h.id}" not in found
    assert repr(g) == "<Graph 5 nodes, 4 edges>"
    assert repr(viz.draw(loss, scopes=scopes, modules="box", depth=1)) == "<Graph 4 nodes, 3 edges>"
    assert "subgraph" not in viz.draw(loss, scopes=scopes, modules=None).source


def test_a_tape_draws_every_recorded_node():
    w = Value(2.0, label="w")
    with mg.record() as tape:
        a = w * 3.0
        b = a.relu() + w
    tape.backward(b)
    found = groups(viz.draw(tape).svg())
    assert {f"n_{n.id}" for n in mg.topological_order(b)} <= set(found)
    assert found[f"n_{b.id}"].get("class") == "node op output scalar"


def test_a_real_model_as_clusters_and_boxes():
    model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 3))
    x = mg.Tensor(np.ones((5, 2), dtype=np.float32))
    with nn.record_scopes() as scopes:
        out = model(x)
        loss = (out * out).mean()
    loss.backward()
    found = groups(viz.draw(loss, scopes=scopes).svg())
    clusters = {k: texts(v) for k, v in found.items() if v.get("class") == "cluster module"}
    assert clusters == {"c_0": ["0: Linear"], "c_1": ["1: ReLU"], "c_2": ["2: Linear"]}
    weight = model[0].weight
    # named by the scope map; drawn inside its module's frame, the name drops the frame's
    assert viz.build_view(loss, scopes=scopes).node(weight).name == "0.weight"
    assert texts(found[f"n_{weight.id}"])[0] == "weight"
    unframed = groups(viz.draw(loss, scopes=scopes, modules=None).svg())
    assert texts(unframed[f"n_{weight.id}"])[0] == "0.weight"
    g = viz.draw(loss, scopes=scopes, modules="box")
    found = groups(g.svg())
    boxes = {k: texts(v) for k, v in found.items() if v.get("class") == "node module box"}
    # each box keeps its output's gradient: the same text the output node shows
    view = viz.build_view(loss, scopes=scopes)
    grads = {c.key: view.node(c.nodes[-1]).grad_label for c in view.clusters}
    assert all(g.startswith("grad norm ") for g in grads.values())
    assert boxes == {"c_0": ["0: Linear", "1 op, 2 params", "→ (5, 4) float32", grads["c_0"]],
                     "c_1": ["1: ReLU", "1 op", "→ (5, 4) float32", grads["c_1"]],
                     "c_2": ["2: Linear", "1 op, 2 params", "→ (5, 3) float32", grads["c_2"]]}
    assert f"n_{weight.id}" not in found
    # without scopes, params= still names the parameters
    names = {n.name for n in viz.build_view(loss, params=model).nodes if n.role == "param"}
    assert names == {"0.weight", "0.bias", "2.weight", "2.bias"}


def test_grad_label_is_exactly_the_drawn_grad_field():
    """The stepper rewrites grad fields with viz.grad_label: it must match the drawing."""
    x = mg.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    W = mg.Tensor(np.ones((4, 3)), requires_grad=True, name="W")
    loss = (x.reshape(1, 4) @ W).sum()
    a = Value(2.0, label="a")
    y = a * a
    for root in (loss, y):
        for before in (True, False):
            if not before:
                root.backward()
            found = groups(viz.draw(root, digits=3, preview=4).svg())
            for node in mg.topological_order(root):
                if not node.requires_grad:
                    continue
                drawn = [t for t in texts(found[f"n_{node.id}"]) if t.startswith("grad")]
                assert drawn == [viz.grad_label(node.data, node.grad, digits=3, preview=4)]
    assert viz.grad_label(W.data, W.grad) == "grad norm 9.4868"
    assert viz.grad_label(a.data, None) == "grad —"


def test_named_tensor_op_node_draws_with_symbol_and_name():
    """Regression: a tensor op node with both a symbol and a name used to crash draw()."""
    w = mg.Tensor([[1.0, -2.0]], requires_grad=True, name="W")
    z = w.tanh()
    z.name = "z"
    graph = viz.draw(z)
    root = ET.fromstring(graph.svg())
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "z" in texts and "W" in texts
