"""``viz.render.torch_graph``: PyTorch's backward graph read into the kit's ``GraphView``,
checked against an independent walk of ``next_functions``, and drawn by the same
renderers (both layouts) and the text tree."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import viz
from viz.render.torch_graph import (
    RELEASED,
    NoGradInput,
    is_torch,
    torch_op_name,
    torch_symbol,
    torch_view,
)

torch = pytest.importorskip("torch", reason="torch is optional: the torch view is tested with it")

ROOT = Path(__file__).resolve().parents[3]
LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]


def autograd_walk(t):
    """``(nodes, edges)`` of the graph behind ``t`` read straight from torch:
    nodes in discovery order, edges as ``(child, parent, slot, input_nr)``; a parent
    ``None`` is an input that needs no gradient (``next_functions`` says ``(None, 0)``)."""
    nodes, edges, todo = [t.grad_fn], [], [t.grad_fn]
    while todo:
        fn = todo.pop()
        for slot, (parent, nr) in enumerate(fn.next_functions):
            edges.append((fn, parent, slot, nr))
            if parent is not None and not any(parent is n for n in nodes):
                nodes.append(parent)
                todo.append(parent)
    return nodes, edges


def assert_matches_torch(view, t):
    """The view has one node per autograd Node and per no-grad input, and one edge per
    ``next_functions`` entry."""
    nodes, edges = autograd_walk(t)
    no_grad = [(child, slot) for child, parent, slot, _ in edges if parent is None]
    assert len(view.nodes) == len(nodes) + len(no_grad)
    real = [vn for vn in view.nodes if not isinstance(vn.node, NoGradInput)]
    assert sorted(vn.node.name() for vn in real) == sorted(fn.name() for fn in nodes)
    inputs = [vn for vn in view.nodes if isinstance(vn.node, NoGradInput)]
    assert sorted((id(vn.node.fn), vn.node.slot) for vn in inputs) == sorted(
        (id(c), s) for c, s in no_grad)
    assert all(vn.role == "input" and vn.is_leaf and not vn.requires_grad for vn in inputs)
    assert [vn.id for vn in view.nodes] == list(range(len(view.nodes)))  # a counter
    assert all(vn.key == f"n_{vn.id}" for vn in view.nodes)
    by_id = view.by_id

    def node_of(i):
        n = by_id[i].node
        return None if isinstance(n, NoGradInput) else n

    seen = [(by_id[e.child].node, node_of(e.parent), e.slot) for e in view.edges]
    assert len(seen) == len(edges)
    for child, parent, slot, _ in edges:
        assert sum(c is child and p is parent and s == slot for c, p, s in seen) == 1
    for e in view.edges:  # a parent's id comes before its child's: inputs first
        assert e.parent < e.child and e.key == f"e_{e.child}_{e.parent}_{e.slot}"


def tanh_graph():
    torch.manual_seed(0)
    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(3, 4, requires_grad=True)
    return x, w, torch.tanh(x * w).sum()


def mlp_loss():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    x = torch.randn(4, 3)
    loss = torch.nn.functional.cross_entropy(model(x), torch.tensor([0, 1, 1, 0]))
    return model, loss


def groups(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<g id="([^"]+)" class="([^"]*)"', svg))


# --------------------------------------------------------------------- the view


def test_tanh_of_a_product_reads_one_node_per_autograd_node():
    x, w, y = tanh_graph()
    view = torch_view(y, params={"x": x, "w": w})
    assert_matches_torch(view, y)
    assert [vn.op for vn in view.nodes if not vn.is_leaf] == [
        "MulBackward0", "TanhBackward0", "SumBackward0"]
    ops = {vn.op: vn for vn in view.nodes}
    assert (ops["MulBackward0"].symbol, ops["TanhBackward0"].symbol,
            ops["SumBackward0"].symbol) == ("×", "tanh", "Σ")  # the kit's symbols
    assert ops["MulBackward0"].name == "MulBackward0"  # and torch's own name beside
    root = view.by_id[view.roots[0]]
    assert root is ops["SumBackward0"] and root.role == "output"
    assert root.data == f"{y.item():.4f}"
    leaves = [vn for vn in view.nodes if vn.is_leaf]
    assert [(vn.name, vn.role, vn.shape, vn.dtype) for vn in leaves] == [
        ("x", "param", "(3, 4)", "float32"), ("w", "param", "(3, 4)", "float32")]
    assert all(vn.node.variable is t for vn, t in zip(leaves, (x, w)))
    assert leaves[0].grad_label == "grad —"  # before backward: not computed yet
    assert ops["MulBackward0"].shape == "(3, 4)" and ops["MulBackward0"].data is None


def test_leaf_values_and_grads_are_copied_to_the_host():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    leaf = next(vn for vn in torch_view(y).nodes if vn.is_leaf)
    assert leaf.data == "[1.0000, -2.0000]"
    assert leaf.grad == "[2.0000, -4.0000]" and leaf.grad_label == "grad [2.0000, -4.0000]"
    assert leaf.name is None  # no params= and no Module around: unnamed
    half = torch.tensor([1.5, 2.0], dtype=torch.bfloat16, requires_grad=True)
    vn = next(vn for vn in torch_view((half * 2).sum()).nodes if vn.is_leaf)
    assert vn.dtype == "bfloat16" and vn.data == "[1.5000, 2.0000]"


def test_mlp_leaves_are_named_from_the_model_and_grouped_by_module():
    model, loss = mlp_loss()
    view = torch_view(loss, params=model)
    assert_matches_torch(view, loss)
    names = sorted(vn.name for vn in view.nodes if vn.is_leaf and vn.requires_grad)
    assert names == ["0.bias", "0.weight", "2.bias", "2.weight"]
    assert [(c.key, c.title) for c in view.clusters] == [("c_0", "0: Linear"),
                                                         ("c_2", "2: Linear")]
    scope = {vn.op or vn.name: vn.scope for vn in view.nodes}
    assert scope["0.weight"] == ("0",) and scope["2.bias"] == ("2",)
    addmm = [vn.scope for vn in view.nodes if vn.op == "AddmmBackward0"]
    assert addmm == [("0",), ("2",)]  # each Linear's addmm joins its module
    assert scope["ReluBackward0"] == () and scope["NllLossBackward0"] == ()
    # without params=, the model in the caller's variables names them all the same
    assert sorted(vn.name for vn in torch_view(loss).nodes
                  if vn.is_leaf and vn.requires_grad) == names
    assert [vn.name for vn in torch_view(loss, params=()).nodes
            if vn.is_leaf and vn.requires_grad] == [None] * 4


def test_split_numbers_the_edges_from_its_outputs():
    x = torch.arange(6.0).reshape(3, 2).requires_grad_()
    a, b = x.split(2)
    y = (a * 3).sum() + b.sum()
    view = torch_view(y)
    assert_matches_torch(view, y)
    split = next(vn for vn in view.nodes if vn.op == "SplitBackward0")
    assert "multi" in split.classes and split.symbol == "split"
    assert split.data == "→ 2 outputs: (2, 2) · (1, 2)" and split.shape is None
    out = sorted((e.output_nr, view.by_id[e.child].op) for e in view.edges
                 if e.parent == split.id)
    assert out == [(0, "MulBackward0"), (1, "SumBackward0")]
    assert all(e.output_nr is None for e in view.edges if e.parent != split.id)
    source = viz.draw(y).source
    assert source.count('class="data output_nr"') == 2 and 'headlabel="1"' in source


def test_a_custom_function_appears_by_its_class_name_with_what_it_saved():
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 3 * a * a * g

    x = torch.ones(2, requires_grad=True)
    y = Cube.apply(x).sum()
    view = torch_view(y)
    assert_matches_torch(view, y)
    fn = next(vn for vn in view.nodes if vn.custom)
    assert fn.symbol == "Cube" and fn.op == "CubeBackward" and "function" in fn.classes
    # show_saved=None (the default) shows what custom Functions saved
    assert [s.rows for s in fn.saved] == [["saved_tensors[0] = input 0", "(2,) float32 8 B"]]


def test_a_deep_chain_is_walked_without_recursion():
    x = torch.ones(1, requires_grad=True)
    y = x
    for _ in range(3_000):
        y = y * 1.0
    view = torch_view(y)
    # (each 1.0 is a no-grad input, drawn too)
    assert len(view.nodes) == 6_001 and len(view.edges) == 6_000
    assert view.nodes[0].is_leaf and view.roots == (6_000,)
    lines = viz.text(y).splitlines()
    assert len(lines) == 6_001 and [k for k, line in enumerate(lines)
                                    if line.startswith("[3000] ├── leaf")] == [3_000]


# --------------------------------------------------------------------- saved values


def test_show_saved_lists_a_mul_s_inputs_by_shape_dtype_and_bytes():
    x, w, y = tanh_graph()
    view = torch_view(y, show_saved=True)
    saved = {vn.op: [s.rows for s in vn.saved] for vn in view.nodes if not vn.is_leaf}
    # (x * w: both are leaves, so their tensors are the inputs)
    assert saved["MulBackward0"] == [["self = input 0", "(3, 4) float32 48 B"],
                                     ["other = input 1", "(3, 4) float32 48 B"]]
    assert saved["TanhBackward0"] == [["result = out", "(3, 4) float32 48 B"]]
    assert saved["SumBackward0"] == [["self_sym_sizes = (3, 4)"]]  # each value named
    mul = next(vn for vn in view.nodes if vn.op == "MulBackward0")
    assert [s.key for s in mul.saved] == [f"s_{mul.id}_0", f"s_{mul.id}_1"]
    assert view.notes == ()
    assert all(vn.saved == () for vn in torch_view(y).nodes)  # off by default


@pytest.mark.parametrize("layout", LAYOUTS)
def test_after_backward_saved_tensors_read_released_instead_of_crashing(layout):
    x, w, y = tanh_graph()
    y.backward()  # no retain_graph: torch frees the saved tensors
    g = viz.draw(y, show_saved=True, layout=layout)
    mul = next(vn for vn in g.view.nodes if vn.op == "MulBackward0")
    assert [s.head for s in mul.saved] == [f"self = {RELEASED}", f"other = {RELEASED}"]
    assert len(g.view.notes) == 1 and "retain_graph=True" in g.view.notes[0]  # said once
    assert groups(g.svg())[f"s_{mul.id}_0"] == "node saved"
    assert "retain_graph=True" in g._repr_html_()
    text = viz.text(y, show_saved=True)
    assert f"saved=(self = {RELEASED}; other = {RELEASED})" in text
    assert text.splitlines()[-1].startswith("note: saved tensors released by backward")
    sum_node = next(vn for vn in g.view.nodes if vn.op == "SumBackward0")
    assert [s.head for s in sum_node.saved] == ["self_sym_sizes = (3, 4)"]  # not a tensor: kept


# --------------------------------------------------------------------- drawing and text


@pytest.mark.parametrize("layout", LAYOUTS)
def test_draw_gives_the_kit_s_ids_and_classes_in_both_layouts(layout):
    model, loss = mlp_loss()
    loss.backward()
    g = viz.draw(loss, params=model, layout=layout, legend=True)
    assert g.layout == layout
    view, found = g.view, groups(g.svg())
    for vn in view.nodes:
        assert found[vn.key].split() == ["node"] + vn.classes.split()
    for e in view.edges:
        assert found[e.key] == "edge data"
    assert found["c_0"] == found["c_2"] == "cluster module" and "legend" in found
    root = view.by_id[view.roots[0]]
    assert found[root.key] == "node op output tensor"
    assert repr(g) == f"<Graph {len(view.nodes)} nodes, {len(view.edges)} edges>"
    boxed = viz.draw(loss, params=model, layout=layout, modules="box", rankdir="LR")
    found = groups(boxed.svg())
    assert found["c_0"] == found["c_2"] == "node module box"
    assert "rankdir=LR" in boxed.source


def test_options_reach_the_torch_view():
    x, w, y = tanh_graph()
    y.backward()
    opts = viz.DisplayOptions(digits=2, show_grad=False, rankdir="TB", edge_labels=True)
    g = viz.draw(y, options=opts, params={"x": x, "w": w})
    assert "rankdir=TB" in g.source and "grad" not in g.text()
    assert g.view.by_id[g.view.roots[0]].data == f"{y.item():.2f}"
    assert viz.text(y, ids=True, params={"x": x}).splitlines()[0].startswith("#4 Σ SumBackward0")


def test_text_prints_the_tree():
    x, w, y = tanh_graph()
    lines = viz.text(y, params={"x": x, "w": w}).splitlines()
    heads = [line.split("  (")[0] for line in lines]
    assert heads == ["Σ SumBackward0", "└── tanh TanhBackward0", "    └── × MulBackward0",
                     "        ├── leaf x", "        └── leaf w"]
    assert lines[2].endswith("(3, 4) float32")  # an op shows no data: torch keeps none
    assert "data=[[" in lines[3] and "grad=—" in lines[3]


def test_several_roots_and_a_root_that_keeps_its_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    y = h.sum()
    y.backward(retain_graph=True)
    view = torch_view([y, h])
    assert sorted(view.by_id[r].op for r in view.roots) == ["MulBackward0", "SumBackward0"]
    mul = next(vn for vn in view.nodes if vn.op == "MulBackward0")
    assert mul.role == "output" and mul.grad_label == "grad [1.0000, 1.0000]"


def test_the_kit_s_symbols_for_torch_node_names():
    assert torch_symbol("MulBackward0") == "×" and torch_symbol("MmBackward0") == "@"
    assert torch_symbol("LogSoftmaxBackward0") == "log_softmax"
    assert torch_symbol("TBackward0") == "ᵀ" and torch_symbol("AddmmBackward0") is None
    assert torch_op_name("MulBackward0") == "mul" and torch_op_name("MmBackward0") == "matmul"
    assert torch_op_name("TBackward0") == "transpose" and torch_op_name("AddmmBackward0") is None


# --------------------------------------------------------------------- bad input and imports


def test_a_tensor_without_grad_fn_says_why_there_is_no_graph():
    leaf = torch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="is a leaf .*Draw a result computed from it"):
        viz.draw(leaf)
    with torch.no_grad():
        z = leaf * 2
    with pytest.raises(ValueError, match=r"no grad_fn.*torch.no_grad\(\).*requires_grad=True"):
        viz.text(z)
    with pytest.raises(ValueError, match="no grad_fn"):
        viz.draw(torch.ones(2) * 2)


def test_other_input_keeps_the_existing_errors():
    with pytest.raises(TypeError, match="viz expects a graph node"):
        viz.draw(3.0)
    with pytest.raises(TypeError, match="viz expects a graph node"):
        viz.text("loss")
    x, w, y = tanh_graph()
    with pytest.raises(TypeError, match="viz.torch_view"):
        viz.build_view(y)  # the minigrad reader points to the torch one
    assert is_torch(y) and is_torch([y, y]) and not is_torch([]) and not is_torch(np.ones(1))


def test_import_viz_does_not_import_torch():
    code = ("import sys, viz\n"
            "from minigrad import Value\n"
            "x = Value(2.0); viz.text(x * x); viz.draw(x * x).source\n"
            "assert 'torch' not in sys.modules, 'torch was imported'\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_saved_attribute_this_torch_cannot_read_is_left_out_and_said_once():
    from viz.render.torch_graph import _saved_items

    class OddNode:  # a Node whose torch lists a saved attribute it cannot read
        _saved_self = torch.zeros(2)

        @property
        def _saved_gone(self):
            raise AttributeError("not in this build")

        def name(self):
            return "OddBackward0"

    notes = {}
    opts = viz.DisplayOptions()
    items = _saved_items(OddNode(), 7, opts, notes, torch)
    assert [(s.key, s.head) for s in items] == [("s_7_0", "self = (2,) float32 8 B")]
    again = _saved_items(OddNode(), 8, opts, notes, torch)  # a second node: no second note
    assert [s.head for s in again] == ["self = (2,) float32 8 B"]
    assert list(notes) == ["missing"] and "OddBackward0._saved_gone" in notes["missing"]


def test_scopes_module_frames_nodes_named_by_a_dict():
    model, loss = mlp_loss()
    named = {f"net.{n}": p for n, p in model.named_parameters()}
    plain = torch_view(loss, params=named)
    assert plain.clusters == []  # a dict names leaves, but knows no modules
    view = torch_view(loss, params=dict(model.named_parameters()), scopes=model)
    assert [c.title for c in view.clusters] == ["0: Linear", "2: Linear"]
