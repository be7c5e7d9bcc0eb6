"""A PyTorch Node's saved tensors say which of its own values they are, as minigrad's
drawing does (``viz.render.torch_graph.saved_alias``): ``result = out``, ``self = input 0``
for a leaf's tensor or a no-grad input, and only the value for anything else."""

from __future__ import annotations

import pytest

import viz
from viz.render.torch_graph import same_tensor, torch_view

torch = pytest.importorskip("torch")


def rows(view, op):
    (vn,) = [vn for vn in view.nodes if vn.op == op]
    return {s.name: s.rows for s in vn.saved}


def test_a_saved_output_is_out_and_saved_leaves_are_their_inputs():
    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(4, 2, requires_grad=True)
    y = (x @ w).tanh().sum()
    view = torch_view(y, show_saved=True)
    mm = rows(view, "MmBackward0")
    assert mm["self"] == ["self = input 0", "(3, 4) float32 48 B"]
    assert mm["mat2"] == ["mat2 = input 1", "(4, 2) float32 32 B"]
    assert mm["self_sym_sizes"] == ["self_sym_sizes = (3, 4)"]  # a setting: its value
    assert rows(view, "TanhBackward0")["result"] == ["result = out", "(3, 2) float32 24 B"]


def test_an_input_made_by_another_op_is_not_named_an_input():
    x = torch.randn(3, requires_grad=True)
    h = x.exp()  # saves its result
    y = (h * x).sum()  # saves self = h (made by exp) and other = x (a leaf)
    mul = rows(torch_view(y, show_saved=True), "MulBackward0")
    assert mul["self"] == ["self = (3,) float32 12 B"]  # no tensor of h's in the graph
    assert mul["other"] == ["other = input 1", "(3,) float32 12 B"]


def test_a_saved_no_grad_input_is_its_input():
    w = torch.randn(3, requires_grad=True)
    data = torch.randn(3)
    y = (data * w).sum()  # data needs no grad: input 0 is a no-grad leaf of the view
    mul = rows(torch_view(y, show_saved=True), "MulBackward0")
    assert mul == {"self": ["self = input 0", "(3,) float32 12 B"]}  # (w's grad needs data)
    y = (w * 2.0).sum()  # a number is saved as a 0-d tensor, the no-grad input 1
    mul = rows(torch_view(y, show_saved=True), "MulBackward0")
    assert mul == {"other": ["other = input 1", "() float64 8 B"]}


def test_a_view_of_a_leaf_is_not_the_leaf():
    x = torch.randn(4, 3, requires_grad=True)
    t = x.t()  # another tensor on the same storage: other strides
    assert not same_tensor(t, x) and same_tensor(x.detach(), x)
    assert not same_tensor(x[1:], x[:-1].detach())  # same shape and strides, other offset
    w = torch.randn(3, 4, requires_grad=True)
    y = (x.t() * w).sum()  # saves self = x.t() (made by TBackward0) and other = w
    mul = rows(torch_view(y, show_saved=True), "MulBackward0")
    assert mul["self"] == ["self = (3, 4) float32 48 B"]
    assert mul["other"] == ["other = input 1", "(3, 4) float32 48 B"]


def test_the_drawing_and_the_text_tree_say_it():
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid().sum()
    g = viz.draw(y, show_saved=True, layout="builtin")
    (sig,) = [vn for vn in g.view.nodes if vn.op == "SigmoidBackward0"]
    assert ">result = out<" in g.svg() and f'id="s_{sig.id}_0"' in g.svg()
    assert "saved=(result = out: (3,) float32 12 B)" in viz.text(y, show_saved=True)
