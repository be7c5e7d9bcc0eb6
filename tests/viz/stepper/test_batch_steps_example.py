"""``viz.step_through(vmap(f), ..., example=k)``: the panel and the drawn grads read example
``k`` of the batch and say so (``example 2 of 5``); a bad ``k`` fails at the call."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import func
from minigrad.batching import BatchedArray
from tests._helpers import FAKE_SVG
from viz.render.numbers import format_array
from viz.stepper.stepper import step_through

from .test_batch_steps import _inputs, _panels, loss


@pytest.mark.parametrize("k", [0, 2, 4])
def test_the_panel_shows_the_chosen_example_and_says_which(k):
    w, xs = _inputs(batch=5)
    s = step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, example=k, svg=FAKE_SVG)
    mul = next(p for p in _panels(s) if p.split("\n")[1].startswith("mul:"))
    assert f"example {k} of 5: {format_array(xs[k] * w, 4, None)}" in mul
    others = {j for j in range(5) if j != k}
    assert not any(f"example {j} of 5" in mul for j in others)


def test_the_drawn_grads_of_each_step_read_the_chosen_example():
    w, xs = _inputs(batch=5)
    s = step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, example=3, svg=FAKE_SVG)
    node = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "mul")
    t = np.tanh(xs * w)
    g = BatchedArray(1 - t ** 2, node.data.level)  # a gradient of the node, every example
    assert s.grad_text(node, g) == f"grad (example 3) {format_array(1 - t[3] ** 2, 4, 80)}"


def test_per_example_gradients_of_vmap_grad_read_the_chosen_example():
    w, xs = _inputs(batch=5)
    s = step_through(func.vmap(func.grad(loss), in_dims=(None, 0)), w, xs, example=1,
                     svg=FAKE_SVG)
    backward = [f.text for f in s.frames.frames if f.phase == "backward"]
    t1 = np.tanh(xs[1] * w)
    assert f"example 1 of 5: {format_array((1 - t1 ** 2) * xs[1], 4, None)}" in backward[-1]


def test_a_bad_example_fails_at_the_call():
    w, xs = _inputs(batch=5)
    with pytest.raises(IndexError, match="5 examples, numbered 0 to 4"):
        step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, example=5, svg=FAKE_SVG)
    with pytest.raises(ValueError, match="no value of this graph is batched"):
        step_through(loss, w, xs[0], example=0, svg=FAKE_SVG)
    with pytest.raises(TypeError, match="an int, or a tuple of ints"):
        step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, example="2", svg=FAKE_SVG)


def test_nested_vmaps_step_through_the_chosen_pair():
    xs = np.random.default_rng(2).normal(size=(2, 4, 3))
    s = step_through(func.vmap(func.vmap(lambda x: (x * x).sum())), xs, example=(1, 3),
                     svg=FAKE_SVG)
    panels = _panels(s)
    want = f"example (1, 3) of 2 × 4: {format_array(xs[1, 3] ** 2, 4, None)}"
    assert any(want in p for p in panels)


def test_the_inspector_names_the_example_its_values_are_from():
    w, xs = _inputs(batch=5)
    s = step_through(func.vmap(loss, in_dims=(None, 0)), w, xs, example=2, svg=FAKE_SVG)
    info = {d["n"]: d for d in s.node_info()}
    mul = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "mul")
    value = info[s.frames.name(mul)]["v"]
    assert value.startswith(f"example 2 of 5: {format_array(xs[2] * w, 4, 60)}")
