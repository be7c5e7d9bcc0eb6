"""``viz.draw``, ``viz.text`` and ``build_view`` with ``example=k``: a vmapped graph's nodes
show example ``k``'s values and say so, ``example 2 of 5`` (``viz.render.view``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
import viz
from minigrad import func
from viz.render.numbers import format_array
from viz.render.view import build_view


def _graph(batch=5, n=3, seed=0):
    rng = np.random.default_rng(seed)
    xs = minigrad.tensor(rng.normal(size=(batch, n)), requires_grad=True, name="xs")
    w = minigrad.tensor(rng.normal(size=(n,)), requires_grad=True, name="w")
    out = func.vmap(lambda w, x: (x * w).tanh().sum(), in_dims=(None, 0))(w, xs)
    out.sum().backward()
    return out, xs, w


def _mul(view):
    return next(vn for vn in view.nodes if vn.op == "mul")


@pytest.mark.parametrize("k", [1, 4])
def test_a_chosen_example_is_the_one_shown_and_named(k):
    out, xs, w = _graph()
    mul = _mul(build_view(out, example=k))
    assert mul.data_word == f"example {k} of 5"
    assert mul.data == format_array(xs.data[k] * w.data)
    t = np.tanh(xs.data[k] * w.data)  # d out_k / d (x_k · w) = 1 − tanh²
    assert mul.grad == format_array(1 - t ** 2)
    assert mul.grad_label.startswith(f"grad (example {k}) [")


def test_draw_and_text_take_example_as_a_keyword_or_an_option():
    out, xs, w = _graph()
    source = viz.draw(out, example=3).source
    assert "example 3 of 5" in source and "example 0 of 5" not in source
    assert "example 3 of 5" in viz.draw(out, options=viz.DisplayOptions(example=3)).source
    text = viz.text(out, example=3)
    assert f"example_3={format_array(xs.data[3] * w.data)}" in text
    svg = viz.draw(out, example=2, layout="builtin").svg()
    assert "example 2 of 5 [" in svg


def test_an_example_out_of_range_or_on_a_graph_with_no_batch_is_refused():
    out, xs, w = _graph(batch=4)
    with pytest.raises(IndexError, match="4 examples, numbered 0 to 3"):
        viz.draw(out, example=4)
    plain = (w * 2.0).sum()
    with pytest.raises(ValueError, match="no value of this graph is batched"):
        viz.text(plain, example=0)
    with pytest.raises(TypeError, match="an int, or a tuple of ints"):
        viz.DisplayOptions(example=1.0)


def test_nested_vmaps_take_a_tuple_or_an_int_for_the_outermost():
    xs = np.random.default_rng(1).normal(size=(2, 4, 3))
    x = minigrad.tensor(xs, requires_grad=True)
    out = func.vmap(func.vmap(lambda v: (v * v).sum()))(x)
    mul = _mul(build_view(out, example=(1, 2)))
    assert mul.data_word == "example (1, 2) of 2 × 4"
    assert mul.data == format_array(xs[1, 2] ** 2)
    mul = _mul(build_view(out, example=1))  # the inner vmap shows its first
    assert mul.data_word == "example (1, 0) of 2 × 4"
    assert mul.data == format_array(xs[1, 0] ** 2)
    with pytest.raises(ValueError, match="nest 2 deep"):
        build_view(out, example=(0, 0, 0))


def test_a_torch_graph_refuses_example():
    torch = pytest.importorskip("torch")
    t = torch.ones(3, requires_grad=True)
    with pytest.raises(ValueError, match="a torch graph has no such batch"):
        viz.draw((t * 2).sum(), example=0)
