"""The overview of a big graph (viz.render.overview): groups with counts, folded chains,
expand= and overview=False, in both engines, both layouts and the text tree."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import minigrad as mg
import viz
from minigrad import Tensor, Value
from minigrad.nn.neurons import MLP
from viz.render.overview import FOLD, LONG_CHAIN, longest_chain, overview_view

needs_dot = pytest.mark.skipif(not viz.dot_available(), reason="graphviz 'dot' not installed")


def tanh_chain(length: int):
    x = Value(0.5, label="x")
    y = x
    for _ in range(length):
        y = y.tanh()
    return y


def batch_loss(examples=8, sizes=(3, 3, 1), seed=0):
    """micrograd's demo, small: an MLP's SVM max-margin loss over a batch, plus L2."""
    rng = np.random.default_rng(seed)
    model = MLP(2, list(sizes), rng=random.Random(seed))
    xs = [[Value(float(v)) for v in row] for row in rng.normal(size=(examples, 2))]
    ys = rng.choice([-1.0, 1.0], size=examples)
    losses = [(1 + -float(y) * model(x)).relu() for x, y in zip(xs, ys)]
    loss = sum(losses) * (1.0 / examples) + 1e-4 * sum(p * p for p in model.parameters())
    return loss, model


def groups(view):
    return {n.symbol: n for n in view.nodes if n.kind == "group"}


def check_edges(view):
    """Every edge joins two drawn items, at most once per pair into or out of a box."""
    ids = {n.id for n in view.nodes}
    pairs = [(e.child, e.parent) for e in view.edges]
    assert all(c in ids and p in ids for c, p in pairs)
    boxed = [pair for pair in pairs if min(pair) < 0]
    assert len(boxed) == len(set(boxed))


# --------------------------------------------------------------------- chains


def test_a_long_chain_folds_between_its_first_and_last_op():
    y = tanh_chain(350)
    g = viz.draw(y)  # 351 nodes, under max_nodes: the chain alone asks for the overview
    (box,) = groups(g.view).values()
    assert box.symbol == "… 348 ops: tanh" and box.size == 348
    assert [n.op for n in g.view.nodes if n.kind != "group"] == [None, "tanh", "tanh"]
    check_edges(g.view)
    assert "351 nodes" in g.view.notes[-1] and "overview=False" in g.view.notes[-1]
    assert g.options.title == "overview of 351 nodes (overview=False draws every one)"
    assert g.options.title in g.source
    assert viz.draw(tanh_chain(350), title="mine").options.title == "mine"


def test_short_chains_and_small_graphs_are_drawn_whole():
    y = tanh_chain(LONG_CHAIN - 2)
    assert longest_chain(viz.build_view(y)) == LONG_CHAIN - 2
    g = viz.draw(y)
    assert g.full_view is None and len(g.view.nodes) == LONG_CHAIN - 1
    assert not groups(g.view)


def test_overview_false_draws_every_node_and_true_folds_a_short_chain():
    y = tanh_chain(400)
    assert len(viz.draw(y, overview=False).view.nodes) == len(mg.topological_order(y))
    short = viz.draw(tanh_chain(FOLD + 2), overview=True)
    assert groups(short.view)["… 8 ops: tanh"].size == FOLD


def test_a_tensor_chain_folds_too():
    x = Tensor(np.linspace(-1, 1, 5), requires_grad=True)
    y = x
    for _ in range(80):
        y = (y * 0.9).tanh()
    found = groups(viz.draw(y.sum()).view)
    assert found["… 159 ops: tanh, mul"].size == 2 * 80 - 1  # the first mul stays in sight
    assert found["input × 79"].is_leaf  # the factors 0.9 the folded ops use


# --------------------------------------------------------------------- repeats


def test_a_batch_groups_into_examples_whose_box_lists_their_neurons():
    loss, model = batch_loss(examples=8, sizes=(3, 3, 1))
    view = viz.draw(loss, params=model, overview=True).view
    found = groups(view)
    example = found["example × 8"]
    assert example.detail[0].startswith("each ") and example.detail[0].endswith(" ops:")
    assert "layers.0.neurons.* × 3 (2 mul, 2 add, relu)" in example.detail
    params = found[f"param × {len(model.parameters())}"]
    assert params.role == "param" and params.is_leaf
    assert found[f"mul × {len(model.parameters())}"].detail == ("each: mul",)  # p * p
    check_edges(view)
    # every node of the graph is drawn once: as itself or inside one box
    assert sum(n.size if n.kind == "group" else 1 for n in view.nodes) == len(
        mg.topological_order(loss))


def test_single_op_repeats_are_named_by_their_op():
    xs = [Tensor(np.full(3, float(i)), requires_grad=True) for i in range(16)]
    total = xs[0].tanh()
    for x in xs[1:]:
        total = total * 0.5 + x.tanh()  # each tanh feeds a different node
    found = groups(overview_view(viz.build_view(total.sum())))
    assert found["tanh × 16"].detail == ("each: tanh, 1 input",)  # its own x


def test_groups_are_named_by_parameter_paths_when_examples_are_not_a_batch():
    model = MLP(2, [4, 1], rng=random.Random(1))
    h = model.layers[0]([Value(0.3), Value(-0.2)])  # one example: 4 neurons, no repeats
    view = overview_view(viz.build_view(sum(h), params=model))
    assert "layers.0.neurons.* × 4" in groups(view)


def test_expand_opens_one_unit_beside_the_others_and_names_are_checked():
    loss, model = batch_loss(examples=6)
    g = viz.draw(loss, params=model, expand="example")
    found = groups(g.view)
    assert "example × 5 more" in found and "layers.0.neurons.* × 3" in found
    nested = viz.draw(loss, params=model, expand=["example", "layers.0.neurons.*"])
    assert "layers.0.neurons.* × 2 more" in groups(nested.view)
    with pytest.raises(ValueError, match="no group of that name.*'example'"):
        viz.draw(loss, params=model, expand="neuron")
    with pytest.raises(TypeError, match="expand takes"):
        viz.draw(loss, expand=3)
    with pytest.raises(ValueError, match="overview must be"):
        viz.draw(loss, overview="yes")


# --------------------------------------------------------------------- renderers


def _texts(svg: str, key: str) -> list[str]:
    ns = {"s": "http://www.w3.org/2000/svg"}
    for g in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}g"):
        if g.get("id") == key:
            assert "group" in g.get("class").split()
            return ["".join(t.itertext()) for t in g.findall(".//s:text", ns)]
    raise AssertionError(f"{key} not drawn")


@pytest.mark.parametrize("layout", ["builtin", pytest.param("dot", marks=needs_dot)])
def test_both_layouts_draw_the_boxes_with_their_titles_and_details(layout):
    loss, model = batch_loss(examples=4)
    g = viz.draw(loss, params=model, overview=True, layout=layout)
    svg = g.svg()
    for n in g.view.nodes:
        if n.kind == "group":
            assert _texts(svg, n.key) == [n.symbol, *n.detail]
    assert svg.count('class="edge') == len(g.view.edges)


def test_the_text_tree_says_what_the_picture_shows():
    loss, model = batch_loss(examples=5)
    text = viz.text(loss, params=model, overview=True)
    drawn = viz.draw(loss, params=model, overview=True)
    assert text == drawn.text()
    assert "example × 5  each " in text and text.splitlines()[-1].startswith("note: Overview")
    whole = viz.text(loss, params=model)  # "auto": the text tree stays whole
    assert "example ×" not in whole and len(whole.splitlines()) > len(text.splitlines())


def test_a_stepper_redraws_an_overview_whole_and_refuses_past_max_nodes():
    y = tanh_chain(100)
    g = viz.draw(y)
    full = g.relabeled({})
    assert len(full.view.nodes) == 101 and full.full_view is None
    big = viz.draw(y, max_nodes=50)
    with pytest.raises(viz.GraphTooLargeError, match="101 nodes, more than max_nodes=50"):
        big.relabeled({})


def test_a_notebook_shrinks_a_picture_only_down_to_ten_pixel_text():
    from viz.render.draw import MIN_TEXT_PX, readable

    svg = '<svg width="1650pt" height="300pt" viewBox="0 0 1650 300"><g/></svg>'
    out = readable(svg)
    least = float(out.split("min-width:")[1].split("px")[0])
    # 11 pt text at full width (1650 pt = 2200 px) is 14.67 px; at `least` px it is 10 px
    assert abs(11 * 4 / 3 * least / (1650 * 4 / 3) - MIN_TEXT_PX) < 0.01
    assert readable(out) == out  # once
    g = viz.draw(tanh_chain(3), layout="builtin")
    assert "min-width:" in g._repr_html_() and "min-width" not in g.svg()  # inline only


def test_pytorchs_graph_of_a_batch_groups_into_examples_too():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    xs = torch.randn(12, 2)
    loss = sum(net(xs[i:i + 1]).sum() for i in range(12))
    g = viz.draw(loss, params=net, overview=True, layout="builtin", modules=None)
    found = groups(g.view)
    assert "example × 12" in found and found["param × 4"].role == "param"
    check_edges(g.view)
    assert _texts(g.svg(), found["example × 12"].key)[0] == "example × 12"
    # with module frames (the default) each Linear keeps its weight and bias in its frame
    framed = viz.draw(loss, params=net, overview=True, layout="builtin").view
    assert "example × 12" in groups(framed) and not any(" × 4" in t for t in groups(framed))
    assert {n.name: n.scope for n in framed.nodes if n.role == "param"} == {
        "0.weight": ("0",), "0.bias": ("0",), "2.weight": ("2",), "2.bias": ("2",)}


def test_a_big_model_collapsed_into_module_boxes_is_drawn_as_asked():
    from minigrad.nn import record_scopes

    model = MLP(2, [16, 16, 1], rng=random.Random(0))
    with record_scopes() as scopes:
        out = model([Value(0.5), Value(-1.0)])
    assert len(mg.topological_order(out)) > 500
    boxed = viz.draw(out, scopes=scopes, modules="box", max_nodes=500)
    assert boxed.full_view is None  # the layers' boxes, not an overview
    assert "module box" in boxed.source and "group" not in boxed.source
    assert viz.draw(out, scopes=scopes, modules="box", max_nodes=3).full_view is not None
