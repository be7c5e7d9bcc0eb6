"""The graph view every renderer reads: nodes, roles, edges, clusters."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import minigrad as mg
import viz
from minigrad import Value, nn
from tests._graphs import neuron
from viz.render.numbers import format_number


def test_roles_edges_and_label_parts_of_a_neuron():
    o, (x1, x2, w1, w2, b) = neuron()
    view = viz.build_view(o)
    assert [n.id for n in view.nodes] == sorted(n.id for n in mg.topological_order(o))
    roles = {n.name: n.role for n in view.nodes if n.name}
    assert roles == {"x1": "param", "x2": "param", "w1": "param", "w2": "param",
                     "b": "param", "n": "intermediate", "o": "output"}
    assert view.roots == (o.id,)
    assert len(view.edges) == 9
    assert view.node(o).symbol == "tanh" and view.node(o).op == "tanh"
    assert view.node(o).data == "0.7071"
    assert view.node(o).grad == viz.NO_GRAD  # not computed yet: not 0
    o.backward()
    view = viz.build_view(o)
    assert view.node(x1).grad == "-1.5000" and view.node(o).grad == "1.0000"
    assert view.node(f"n_{o.id}") is view.node(o.id)
    assert view.node(o).classes == "op output scalar"
    assert view.node(x1).classes == "leaf param scalar"
    assert repr(view) == "<GraphView 10 nodes, 9 edges>"


def test_x_times_x_has_two_edges():
    x = Value(3.0, label="x")
    y = x * x
    view = viz.build_view(y)
    assert [(e.child, e.parent, e.slot) for e in view.edges] == [(y.id, x.id, 0), (y.id, x.id, 1)]
    assert [e.key for e in view.edges] == [f"e_{y.id}_{x.id}_0", f"e_{y.id}_{x.id}_1"]
    assert view.node(y).inputs == (x.id, x.id)


def test_constants_are_inputs_without_a_grad_field():
    x = Value(2.0, label="x")
    y = x + 1
    y.backward()
    view = viz.build_view(y)
    const = next(n for n in view.nodes if n.role == "input")
    assert const.data == "1.0000" and const.grad is None and not const.requires_grad


def test_forward_only_view_has_no_grads():
    o, _ = neuron()
    o.backward()
    assert all(n.grad is None for n in viz.build_view(o, show_grad=False).nodes)


def test_several_roots_and_params_names():
    a = Value(1.0)
    b = Value(2.0)
    s, p = a + b, a * b
    view = viz.build_view([s, p], params={"alpha": a, "beta": b})
    assert view.roots == (s.id, p.id)
    assert {n.name for n in view.nodes if n.is_leaf} == {"alpha", "beta"}
    assert view.node(s).role == view.node(p).role == "output"
    # pairs work too, and params= wins over a label
    a.label = "a"
    assert viz.build_view(s, params=[("first", a)]).node(a).name == "first"


def test_a_tape_is_a_root():
    w = Value(2.0, label="w")  # created before recording: still drawn, as a parent
    with mg.record() as tape:
        y = (w * 3.0).relu()
        z = y + 1.0
    view = viz.build_view(tape)
    assert view.roots == (z.id,)
    assert w.id in view.by_id and view.node(w).role == "param"
    assert view.node(y).role == "intermediate"


def test_bad_roots_give_clear_errors():
    with pytest.raises(TypeError, match="graph node"):
        viz.build_view(3.0)
    with pytest.raises(TypeError, match="got a int"):
        viz.build_view([Value(1.0), 2])
    with pytest.raises(ValueError, match="empty"):
        viz.build_view([])
    with pytest.raises(TypeError, match="params="):
        viz.build_view(Value(1.0), params=[1, 2, 3])


def test_saved_values_with_aliases():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = a * b
    t = c.tanh()
    view = viz.build_view(t, show_saved=True)
    saved = view.node(c).saved
    assert [(s.key, s.text, s.alias) for s in saved] == [
        (f"s_{c.id}_0", "2.0000", "input 0"), (f"s_{c.id}_1", "3.0000", "input 1")]
    assert view.node(t).saved[0].alias == "out"
    t.backward()  # releases what the ops saved
    assert viz.build_view(t, show_saved=True).node(c).saved is None
    assert viz.build_view(t).node(c).saved == ()  # not asked for


def test_iterative_walk_of_a_deep_chain():
    x = Value(0.5)
    y = x
    for _ in range(20_000):
        y = y.tanh()
    view = viz.build_view(y)
    assert len(view.nodes) == 20_001 and len(view.edges) == 20_000


def test_tensor_nodes():
    x = mg.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    big = mg.Tensor(np.ones((10, 10), dtype=np.float32), requires_grad=True, name="big")
    s = (x * x).sum(axis=1)
    loss = s.mean() + big.sum()
    view = viz.build_view(loss)
    vx = view.node(x)
    assert (vx.kind, vx.shape, vx.dtype, vx.size, vx.tiny) == ("tensor", "(2, 2)", "float32", 4,
                                                               True)
    assert vx.data == "[[1.0000, 2.0000], [3.0000, 4.0000]]" and vx.grad == viz.NO_GRAD
    assert view.node(s).attrs == "axis=1, keepdims=False"  # no renderer bookkeeping keys
    assert view.node(s).classes == "op intermediate tensor"
    loss.backward()
    view = viz.build_view(loss)
    assert view.node(x).grad == "[[1.0000, 2.0000], [3.0000, 4.0000]]"  # d mean(sum x²)/dx = x
    vb = view.node(big)
    assert not vb.tiny and "..." in vb.data and vb.grad_norm == "10.0000"
    assert view.node(loss).shape == "()" and view.node(loss).data == format_number(
        loss.data.item())


def test_scopes_make_clusters_and_name_parameters():
    record_scopes, scope = nn.record_scopes, nn.scope

    x = mg.Tensor([[1.0, 2.0]], name="x")
    w = mg.Tensor([[1.0], [2.0]], requires_grad=True)
    with record_scopes() as scopes:
        with scope("net"):
            with scope("0"):
                h = (x @ w).relu()
            with scope("10"):
                y = h * 2.0
            with scope("2"):
                z = y + 1.0
        out = z.sum()
    view = viz.build_view(out, scopes=scopes)
    assert [c.path for c in view.clusters] == [("net",), ("net", "0"), ("net", "2"),
                                               ("net", "10")]
    assert [c.key for c in view.clusters] == ["c_net", "c_net_0", "c_net_2", "c_net_10"]
    assert view.node(h).scope == ("net", "0") and view.node(out).scope == ()
    assert view.clusters[1].nodes == sorted(n.id for n in view.nodes if n.scope == ("net", "0"))
    # a plain dict works as well
    assert viz.build_view(out, scopes={h.id: "block"}).node(h).scope == ("block",)


def test_import_viz_is_cheap():
    code = (
        "import sys, viz\n"
        "heavy = ('graphviz', 'matplotlib', 'ipywidgets')\n"
        "assert not [m for m in heavy if m in sys.modules], 'import'\n"
        "from minigrad import Value\n"
        "x = Value(2.0); y = x * x\n"
        "g = viz.draw(y); viz.text(y); g.source\n"
        "assert not [m for m in heavy if m in sys.modules], 'draw'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
