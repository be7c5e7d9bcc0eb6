"""A PyTorch Node's saved values by name (``torch_view``): ``_saved_<name>`` is shown as
``<name>``, each value its own box, ``s_<id>_<k>`` numbered as the stepper numbers them."""

from __future__ import annotations

import pytest

import viz
from viz.render.torch_graph import saved_entries, torch_view

torch = pytest.importorskip("torch")


def graph():
    torch.manual_seed(0)
    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(4, 2, requires_grad=True)
    return x, w, torch.cat([x.mm(w), x[:, :2]], dim=0).sum(dim=1).sum()


def heads(view, op):
    (vn,) = [vn for vn in view.nodes if vn.op == op]
    return [s.head for s in vn.saved]


def test_real_nodes_name_what_they_saved():
    x, w, y = graph()
    view = torch_view(y, show_saved=True)
    assert heads(view, "SumBackward1") == ["dim = (1,)", "keepdim = False",
                                           "self_sym_sizes = (6, 2)"]
    assert heads(view, "CatBackward0") == ["dim = 0"]
    mm = heads(view, "MmBackward0")
    assert mm[:2] == ["self = input 0", "mat2 = input 1"]  # (x and w: leaves)
    assert sorted(h.split(" = ")[0] for h in mm[2:]) == [
        "mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides"]


def test_each_name_is_the_node_s_own_attribute():
    x, w, y = graph()
    fn = y.grad_fn.next_functions[0][0]  # SumBackward1
    for name, v in saved_entries(fn, torch):
        assert getattr(fn, f"_saved_{name}") == v


def test_a_tuple_of_saved_tensors_is_one_entry_each():
    class Both(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a

    a, b = torch.ones(2, requires_grad=True), torch.ones(3, 2, requires_grad=True)
    y = Both.apply(a, b).sum()
    view = torch_view(y)  # (a custom Function's saved values are shown by default)
    (both,) = [vn for vn in view.nodes if vn.op == "BothBackward"]
    assert [s.rows for s in both.saved] == [["saved_tensors[0] = input 0", "(2,) float32 8 B"],
                                            ["saved_tensors[1] = input 1", "(3, 2) float32 24 B"]]


def test_the_drawing_and_the_text_tree_use_the_names():
    x, w, y = graph()
    g = viz.draw(y, show_saved=True, layout="builtin")
    (cat,) = [vn for vn in g.view.nodes if vn.op == "CatBackward0"]
    assert f'id="s_{cat.id}_0"' in g.svg() and ">dim = 0<" in g.svg()
    assert "saved=(dim = (1,); keepdim = False; self_sym_sizes = (6, 2))" in viz.text(
        y, show_saved=True)
