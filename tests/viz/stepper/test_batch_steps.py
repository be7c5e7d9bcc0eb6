"""Stepping through a vmapped function (``viz.stepper.batch_steps``, ``recording``): the
graph once, one node per op, each with one example's shape and the batch's; the panel
says which axis is the batch and which inputs are not mapped; backward starts from one
1 per example; ``vmap(grad(f))`` shows its per-example gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import func
from tests._helpers import FAKE_SVG
from viz.render.batches import shape_text
from viz.render.numbers import format_array
from viz.stepper.stepper import step_through


def loss(w, x):
    return (x * w).tanh().sum()


def _inputs(batch=5, n=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n,)), rng.normal(size=(batch, n))


def _panels(s) -> list[str]:
    out = []
    for i in range(len(s)):
        s.goto(i)
        out.append(s.panel)
    return out


def _ops(s) -> list[str]:
    return [n.op.name for n in s.frames.nodes if n.op is not None]


def test_a_vmapped_function_is_recorded_once_not_once_per_example():
    w, xs = _inputs(batch=5)
    one = step_through(loss, w, xs[0], svg=FAKE_SVG)
    batched = step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, svg=FAKE_SVG)
    # f's own ops, once each, between the way into the vmap and the way out
    assert _ops(batched) == ["move_batch"] + _ops(one) + ["move_batch"]


def test_the_first_step_says_which_axis_is_the_batch_and_what_is_not_mapped():
    w, xs = _inputs(batch=4)
    s = step_through(func.vmap(loss, in_dims=(None, 1)), w, xs.T, svg=FAKE_SVG)
    start = s.frames[0].text
    assert "vmap over 4 examples: batch axis 1 of x" in start
    assert "not mapped (shared by every example): w" in start
    assert "out_dims 0" in start


def test_each_op_shows_one_examples_shape_and_the_batch_shape():
    w, xs = _inputs(batch=5)
    s = step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, svg=FAKE_SVG)
    panels = _panels(s)
    into = next(p for p in panels if "vmap in:" in p)
    assert "axis 0 of x is the batch axis: 5 examples, each of shape (3,)" in into
    mul = next(p for p in panels if p.split("\n")[1].startswith("mul:"))
    assert "(3,) per example · batch of 5 → (5, 3)" in mul
    assert f"example 0 of 5: {format_array(xs[0] * w, 4, None)}" in mul
    out = next(p for p in panels if "vmap out:" in p)
    assert "stacked along axis 0 (out_dims=0)" in out and "has shape (5,)" in out


def test_backward_starts_from_one_per_example_and_sums_what_is_shared():
    w, xs = _inputs(batch=5)
    s = step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, svg=FAKE_SVG)
    panels = _panels(s)
    seed = next(p for p in panels if "· seed " in p.split("\n")[0])
    assert "ones of shape (5,)" in seed and "One 1 per example" in seed
    to_w = next(p for p in panels if p.split("\n")[0].endswith("mul → w"))
    assert "w is not mapped" in to_w and "the 5 examples' contributions are summed" in to_w
    # the gradients are each example's own: x's rows, and w's sum over the examples
    t = np.tanh(xs * w)
    dx, dw = (1 - t ** 2) * w, ((1 - t ** 2) * xs).sum(axis=0)
    x_leaf = next(n for n in s.frames.nodes if n.label == "x")
    w_leaf = next(n for n in s.frames.nodes if n.label == "w")
    np.testing.assert_allclose(x_leaf.grad.data, dx)
    np.testing.assert_allclose(w_leaf.grad.data, dw)
    assert f"w.grad = {format_array(dw, 4, None)}" in panels[-1]


def test_vmap_of_grad_steps_through_its_per_example_backward():
    w, xs = _inputs(batch=5)
    s = step_through(func.vmap(func.grad(loss), in_dims=(None, 0)), w, xs, svg=FAKE_SVG)
    backward = [f.text for f in s.frames.frames if f.phase == "backward"]
    assert backward, "the backward pass grad ran inside the vmap is the one shown"
    per_example = shape_text(minigrad.batching.BatchedArray(np.zeros((5, 3)), 1))
    assert sum(per_example in t for t in backward if "added to" in t) >= 3
    # grad's copy of w ends with one gradient per example; example 0's is loss's at xs[0]
    t0 = np.tanh(xs[0] * w)
    first = format_array((1 - t0 ** 2) * xs[0], 4, None)
    assert f".grad = {per_example}; example 0 of 5: {first}" in backward[-1]
    w_leaf = next(n for n in s.frames.nodes if n.label == "w")
    assert "batch axis 0 of x;" in s.frames[0].text  # (named after loss's parameters)
    copy = next(n for n in s.frames.nodes if n.op is None and n.data is w_leaf.data
                and n is not w_leaf)
    assert (f"not mapped (shared by every example): {s.frames.name(copy)} (a leaf on w's "
            f"values") in s.frames[0].text


def test_nested_vmaps_show_both_batches():
    rng = np.random.default_rng(2)
    xs = rng.normal(size=(2, 4, 3))
    s = step_through(func.vmap(func.vmap(lambda x: (x * x).sum())), xs, svg=FAKE_SVG)
    panels = _panels(s)
    assert any("() per example · batches 2 × 4 → (2, 4)" in p for p in panels)
    assert sum("vmap over" in line for line in s.frames[0].text.split("\n")) == 2


def test_a_per_example_output_that_is_not_a_scalar_is_refused_clearly():
    w, xs = _inputs(batch=5)
    with pytest.raises(ValueError, match=r"one value of shape \(3,\) per example"):
        step_through(func.vmap(lambda w, x: x * w, in_dims=(None, 0)), w, xs, svg=FAKE_SVG)


def test_the_player_page_shows_the_batch_shapes():
    w, xs = _inputs(batch=5)
    s = step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, svg=FAKE_SVG)
    page = s.to_html()
    assert "batch axis 0 of x" in page
    assert "(3,) per example · batch of 5 → (5, 3)" in page
