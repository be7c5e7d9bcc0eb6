"""Derivative orders in the picture, the text tree and ``graph_memory`` (issue #16).

Nodes built by a ``create_graph`` backward pass carry their order; both renderers
give each order its own class, mark and legend entry, and ``orders=`` shows some
orders only, with stubs for the nodes of other orders they use.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

import numpy as np
import pytest

import minigrad
import viz
from minigrad import Tensor, Value
from minigrad.autograd import grad
from minigrad.nn.scope import record_scopes, scope
from viz.render.derivative_orders import ORDER_COLORS, order_color, order_mark
from viz.render.draw import dot_available

NS = "{http://www.w3.org/2000/svg}"
LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not dot_available(), reason="graphviz's dot is not installed"))]


def tanh_derivatives():
    """tanh at 0.5, its first derivative's graph and its second's (autograd.grad)."""
    x = Value(0.5, label="x")
    y = x.tanh()
    y.label = "y"
    (g1,) = grad(y, [x], create_graph=True)
    (g2,) = grad(g1, [x], create_graph=True)
    return x, y, g1, g2


def groups(svg: str) -> dict[str, ET.Element]:
    """``{id: <g>}`` of every node and edge group."""
    return {g.get("id"): g for g in ET.fromstring(svg).iter(f"{NS}g") if g.get("id")}


def classes(g) -> set[str]:
    return set(g.get("class", "").split())


def texts(g) -> list[str]:
    return [(t.text or "").strip() for t in g.iter(f"{NS}text")]


def test_nodes_know_their_order_and_the_seed_belongs_to_the_gradient():
    x, y, g1, _ = tanh_derivatives()
    view = viz.build_view(g1)
    assert view.node(x).order == view.node(y).order == 0
    assert view.node(g1).order == 1
    # the seed dy/dy = 1 a create_graph pass starts from is tagged 0 by the engine, but
    # only the gradient's graph uses it: it is drawn as part of that graph
    seeds = [n for n in view.nodes if n.is_leaf and not n.requires_grad]
    assert seeds and all(n.order == 1 for n in seeds)
    assert {n.order for n in view.nodes} == {0, 1}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_each_order_has_its_class_mark_and_legend_entry(layout):
    x, y, g1, g2 = tanh_derivatives()
    view = viz.build_view([g1, g2])
    drawn = viz.draw([g1, g2], legend=True, layout=layout).svg()
    found = groups(drawn)
    for vn in view.nodes:
        g = found[vn.key]
        want = {f"order{vn.order}"} if vn.order else set()
        assert {c for c in classes(g) if c.startswith("order")} == want, vn.key
        marks = [t for t in texts(g) if t.startswith("∂")]
        assert marks == ([order_mark(vn.order)] if vn.order else []), vn.key
    counts = {k: sum(1 for vn in view.nodes if vn.order == k) for k in (0, 1, 2)}
    assert all(counts.values())
    legend = " ".join(texts(found["legend"]))
    assert "graph of the first derivative (order 1)" in legend
    assert "graph of the second derivative (order 2)" in legend
    assert "third" not in legend


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_forward_graph_has_no_order_classes_nor_legend_entries(layout):
    x = Value(0.5, label="x")
    y = x.tanh()
    y.backward()
    drawn = viz.draw(y, legend=True, layout=layout).svg()
    assert "order1" not in drawn and "∂¹" not in drawn and "derivative" not in drawn


def test_order_borders_come_from_the_one_colour_table():
    _, _, g1, g2 = tanh_derivatives()
    source = viz.draw([g1, g2]).source
    line = next(ln for ln in source.splitlines() if f"n_{g2.id} [" in ln)
    assert f'color="{order_color(2)}"' in line and order_color(2) == ORDER_COLORS[1]
    assert order_color(5) == ORDER_COLORS[0] and order_mark(12) == "∂¹²"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradient_alone_keeps_stubs_of_the_forward_nodes_it_uses(layout):
    x, y, g1, g2 = tanh_derivatives()
    full = viz.build_view([g1, g2])
    view = viz.build_view([g1, g2], orders="gradient")
    assert {n.id for n in view.nodes if not n.stub} == {n.id for n in full.nodes if n.order}
    stubs = [n for n in view.nodes if n.stub]
    assert [n.id for n in stubs] == [y.id]  # x is used by y only: hidden
    assert stubs[0].inputs == ()
    kept = {n.id for n in view.nodes}
    assert all(e.child in kept and e.parent in kept for e in view.edges)
    assert all(view.by_id[e.child].order >= 1 for e in view.edges)
    found = groups(viz.draw([g1, g2], orders="gradient", layout=layout).svg())
    assert "stub" in classes(found[f"n_{y.id}"])
    assert f"n_{x.id}" not in found and f"e_{y.id}_{x.id}_0" not in found


def test_one_order_alone_and_the_forward_graph_alone():
    x, y, g1, g2 = tanh_derivatives()
    second = viz.build_view([g1, g2], orders=2)
    assert {n.order for n in second.nodes if not n.stub} == {2}
    assert second.roots == (g2.id,)
    assert {n.order for n in viz.build_view([g1, g2], orders=(1, 2)).nodes if not n.stub} == {1, 2}
    forward = viz.build_view([g1, g2], orders=0)
    assert {n.id for n in forward.nodes} == {x.id, y.id}
    assert forward.roots == (y.id,)  # the outputs were hidden: what nothing else uses


def test_bad_orders_are_refused_with_the_reason():
    x, y, g1, _ = tanh_derivatives()
    for bad in ("first", -1, (1, "2"), (), True):
        with pytest.raises(ValueError, match="orders must be 'all', 'gradient'"):
            viz.draw(g1, orders=bad)
    with pytest.raises(ValueError, match="no node of those orders.*create_graph=True"):
        viz.draw(y, orders="gradient")
    with pytest.raises(ValueError, match="orders must be"):
        viz.DisplayOptions(orders="both")


@pytest.mark.parametrize("modules", ["cluster", "box"])
def test_module_scopes_still_frame_or_collapse_the_forward_part(modules):
    w = Tensor(np.array([[0.5, -1.0], [2.0, 0.25]]), requires_grad=True, name="w")
    v = Tensor(np.array([[1.0, 2.0]]), name="v")
    with record_scopes() as scopes:
        with scope("layer"):
            h = (v @ w).tanh()
        loss = (h * h).sum()
    (gw,) = grad(loss, [w], create_graph=True)
    for orders in ("all", "gradient"):
        view = viz.build_view(gw, scopes=scopes, orders=orders)
        drawn = viz.draw(gw, scopes=scopes, modules=modules, orders=orders, layout="builtin")
        found = groups(drawn.svg())
        assert "c_layer" in found  # the module, as a frame or a box
        assert any(n.order == 1 for n in view.nodes)
        inside = [n for n in view.nodes if n.scope == ("layer",)]
        assert inside and all(n.order == 0 for n in inside)
        for n in view.nodes:
            if n.order >= 1:
                assert n.key in found and "order1" in classes(found[n.key])
        if modules == "box":
            assert all(n.key not in found for n in inside)


def test_text_marks_orders_and_counts_nodes_per_order():
    x, y, g1, g2 = tanh_derivatives()
    view = viz.build_view([g1, g2])
    out = viz.text([g1, g2], ids=True)
    lines = out.splitlines()
    counts = {k: sum(1 for n in view.nodes if n.order == k) for k in (0, 1, 2)}
    assert lines[-1] == (f"nodes: {len(view.nodes)} (order 0: {counts[0]}, order 1: "
                         f"{counts[1]}, order 2: {counts[2]})")
    assert lines[0].startswith(f"#{g1.id} × ∂¹  data=")
    assert any(ln.startswith(f"#{g2.id} × ∂²  data=") for ln in lines)
    assert re.search(rf"#{y.id} tanh y  data=", out) and f"#{y.id} tanh y ∂" not in out


def test_text_of_one_order_prints_stubs_without_their_inputs():
    x, y, g1, _ = tanh_derivatives()
    out = viz.text(g1, orders="gradient")
    assert "tanh y  data=0.4621  grad=—  [stub]" in out
    assert "leaf x" not in out
    n1 = sum(1 for n in viz.build_view(g1).nodes if n.order == 1)
    assert out.splitlines()[-1] == f"nodes: {n1} (order 1: {n1}), and 1 stub of other orders"


def test_the_text_of_a_forward_graph_is_unchanged():
    x = Value(0.5, label="x")
    y = x.tanh()
    y.backward()
    assert viz.text(y).splitlines() == ["tanh  data=0.4621  grad=1.0000",
                                        "└── leaf x  data=0.5000  grad=0.7864"]


def test_graph_memory_counts_nodes_per_order():
    x, y, g1, g2 = tanh_derivatives()
    view = viz.build_view([g1, g2])
    report = minigrad.graph_memory([g1, g2])
    expected = {}
    for n in view.nodes:
        expected[n.order] = expected.get(n.order, 0) + 1
    assert report.orders == expected
    assert [m.order for m in report.nodes] == [n.order for n in view.nodes]
    total = sum(expected.values())
    per = ", ".join(f"order {k}: {v}" for k, v in sorted(expected.items()))
    assert str(report).splitlines()[-1] == f"nodes: {total} ({per})"
    assert repr(report).startswith(f"<GraphMemory {total} nodes ({per}): data")
    forward = minigrad.graph_memory(y)
    assert forward.orders == {0: 2} and "nodes:" not in str(forward)
    assert "order" not in repr(forward)


def test_graph_memory_charges_a_gradient_node_by_its_data():
    t = Tensor(np.arange(4.0), requires_grad=True)
    loss = (t * t).sum()
    loss.backward(create_graph=True)
    assert minigrad.graph_memory(t).grad_bytes == t.grad.data.nbytes
