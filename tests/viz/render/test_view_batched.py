"""``viz.text`` and ``viz.draw`` of a graph recorded inside ``vmap``: each node once, with
one example's shape, the batch's shape and example 0's values (``viz.render.view``)."""

from __future__ import annotations

import numpy as np

import minigrad
import viz
from minigrad import func
from viz.render.numbers import format_array
from viz.render.view import build_view, grad_label


def _recorded(batch=5, n=3, seed=0):
    rng = np.random.default_rng(seed)
    xs = minigrad.tensor(rng.normal(size=(batch, n)), requires_grad=True, name="xs")
    w = minigrad.tensor(rng.normal(size=(n,)), requires_grad=True, name="w")
    with minigrad.record() as tape:
        out = func.vmap(lambda w, x: (x * w).tanh().sum(), in_dims=(None, 0))(w, xs)
    return tape, out, xs, w


def test_a_batched_node_shows_both_shapes_and_its_first_example():
    tape, out, xs, w = _recorded()
    view = build_view(out)
    mul = next(vn for vn in view.nodes if vn.op == "mul")
    assert mul.kind == "tensor"
    assert mul.shape == "(3,)" and mul.batch == "batch of 5 → (5, 3)"
    assert mul.shape_lines == ["(3,) float64 per example", "batch of 5 → (5, 3)"]
    assert mul.data_word == "example 0 of 5"
    expected = xs.data[0] * w.data  # (the product, example 0)
    assert mul.data == format_array(expected)
    plain = view.node(w)
    assert plain.batch is None and plain.shape_lines == ["(3,) float64"]


def test_text_and_draw_of_a_vmapped_graph_say_per_example_and_batch():
    tape, out, xs, w = _recorded(batch=4)
    text = viz.text(out)
    assert "(3,) float64 per example · batch of 4 → (4, 3)" in text
    assert "example_0=" in text
    source = viz.draw(out).source
    assert "per example" in source and "batch of 4 → (4, 3)" in source
    assert "BatchedArray" not in text + source  # (no repr of the batch object)


def test_a_batched_gradient_is_labelled_with_the_example_it_shows():
    tape, out, xs, w = _recorded()
    mul = next(n for n in tape.nodes if n.op is not None and n.op.name == "mul")
    g = mul.data * 0 + 1.5  # a batch of gradients, logical shape (3,)
    label = grad_label(mul.data, g)
    assert label == "grad (example 0) [1.5000, 1.5000, 1.5000]"
    wide = grad_label(mul.data, g, preview=2)
    assert wide.startswith("grad (example 0) norm ")
    assert wide.endswith(f"{np.sqrt(3 * 1.5 ** 2):.4f}")


def test_the_built_in_layout_draws_the_same_batch_rows():
    tape, out, xs, w = _recorded(batch=6)
    svg = viz.draw(out, layout="builtin").svg()
    assert "(3,) float64 per example" in svg
    assert "batch of 6 → (6, 3)" in svg
    assert "example 0 of 6 [" in svg


def test_a_saved_batch_is_shown_by_its_shapes():
    tape, out, xs, w = _recorded(batch=5)
    view = build_view(out, show_saved=True)
    tanh = next(vn for vn in view.nodes if vn.op == "tanh")
    assert tanh.saved, "tanh saves its output"
    assert tanh.saved[0].text == "(3,) float64 per example · batch of 5 → (5, 3)"
