"""``viz.render.torch_graph``: inputs that need no gradient (``(None, 0)`` in
``next_functions``) are drawn as grey input nodes, with their value when the Node
saved it, else their place, in ``viz.draw``, ``viz.text`` and the built-in layout."""

from __future__ import annotations

import re

import pytest

import viz
from viz.render.torch_graph import NoGradInput, torch_view

torch = pytest.importorskip("torch", reason="torch is optional: the torch view is tested with it")


def _inputs(view):
    return [vn for vn in view.nodes if isinstance(vn.node, NoGradInput)]


def test_mul_by_a_constant_shows_two_arguments_and_the_saved_value():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.5
    view = torch_view(y)
    mul = view.by_id[view.roots[0]]
    assert len(mul.inputs) == len(y.grad_fn.next_functions) == 2
    (const,) = _inputs(view)
    assert mul.inputs[1] == const.id and const.node.slot == 1
    assert const.role == "input" and not const.requires_grad and const.grad is None
    saved = y.grad_fn._saved_other  # mul saved it for x's gradient: its value is known
    assert const.data == viz.render.numbers.format_array(saved.numpy(), 4, None, 6)
    assert [e.slot for e in view.edges if e.child == mul.id] == [0, 1]
    assert const.id < mul.id  # numbered before the Node that reads it


def test_an_input_nothing_saved_shows_its_place():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    y = x + c  # add saves nothing: c's value cannot be read from the graph
    assert y.grad_fn.next_functions[1] == (None, 0)
    (const,) = _inputs(torch_view(y))
    assert (const.name, const.data) == ("input 1", "value not saved")
    assert "const input 1  data=value not saved" in viz.text(y)


def test_matmul_data_input_gets_its_value_from_addmm():
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    x = torch.randn(4, 3)
    y = lin(x)
    fn = y.grad_fn
    assert fn.name() == "AddmmBackward0" and fn.next_functions[1] == (None, 0)
    (const,) = _inputs(torch_view(y, params=lin))
    assert const.node.slot == 1 and const.shape == "(4, 3)" and const.dtype == "float32"
    assert torch.equal(const.node.value, fn._saved_mat1)


@pytest.mark.parametrize("layout", ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))])
def test_drawn_grey_in_both_layouts(layout):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3.0).sum()
    view = torch_view(y)
    (const,) = _inputs(view)
    svg = viz.draw(y, layout=layout)._repr_svg_()
    classes = dict(re.findall(r'<g id="(n_\d+)" class="([^"]*)"', svg))
    assert "input" in classes[const.key].split() and "leaf" in classes[const.key].split()
    mul = next(vn for vn in view.nodes if vn.op == "MulBackward0")
    assert f"e_{mul.id}_{const.id}_1" in svg


def test_text_tree_lists_the_constant_under_its_node():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    lines = viz.text(torch.tanh(x * 3.0).sum()).splitlines()
    assert lines[2].strip().startswith("└── × MulBackward0")
    assert lines[3].strip().startswith("├── leaf")
    assert lines[4].strip().startswith("└── const") and "data=3" in lines[4]
