"""``step_through`` records its own pass and leaves the student's gradients and graphs as
they were; what it makes of inputs (``viz.stepper.recording``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Value
from tests._helpers import FAKE_SVG
from viz.stepper.stepper import step_through

# --- step_through and the student's own gradients -----------------------------------------


def test_step_through_shows_this_pass_and_leaves_the_students_grads_alone():
    """The README's first look: a and b already hold gradients from c.backward()."""
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = a * b + a
    c.backward()
    (a * a).backward()  # something else accumulated on top: a.grad = -2 + 4
    before = (a.grad, b.grad)

    s = step_through(lambda a, b: a * b + a, a, b, svg=FAKE_SVG)
    assert (a.grad, b.grad) == before == (2.0, 2.0)
    texts = [f.text for f in s.frames.frames if f.kind == "contribute"]
    assert "added to a.grad: — → 1.0000" in texts[1]  # this pass starts from nothing
    assert "added to a.grad: 1.0000 → -2.0000" in texts[2]
    s.last()
    assert s.panel.endswith("Gradients of the leaves: a.grad = -2.0000, b.grad = 2.0000.")
    assert s.frames.grads(len(s) - 1)[a.id] == -2.0


def test_step_through_restores_tensor_grads():
    x = minigrad.Tensor(np.array([1.0, 2.0]), requires_grad=True, name="x")
    (x * x).sum().backward()
    s = step_through(lambda x: (x * 3.0).sum(), x, svg=FAKE_SVG)
    np.testing.assert_array_equal(x.grad, [2.0, 4.0])
    np.testing.assert_array_equal(s.frames.grads(len(s) - 1)[x.id], [3.0, 3.0])


def test_step_through_on_an_intermediate_leaves_its_graph_usable():
    """Stepping through ``h * 2`` for an intermediate ``h`` of the student's graph used
    to release that graph's saved values: their own ``L.backward()`` then failed."""
    a = Value(2.0, label="a")
    h = a * 3.0
    L = h * h
    s = step_through(lambda h: h * 2.0, h, svg=FAKE_SVG)
    assert s.frames.grads(len(s) - 1)[a.id] == 6.0  # the recorded pass went through h
    assert a.grad is None  # and was set aside
    L.backward()
    assert a.grad == 2 * 6.0 * 3.0

    x = minigrad.Tensor(np.array([1.0, -2.0]), requires_grad=True)
    t = x.tanh()
    loss = (t * t).sum()
    step_through(lambda t: (t * 2.0).sum(), t, svg=FAKE_SVG)
    loss.backward()
    np.testing.assert_allclose(x.grad, 2 * t.data * (1 - t.data ** 2))


def test_step_through_of_fresh_inputs_still_releases_its_graph():
    """Only an earlier graph is kept: the recorded graph itself is released as usual."""
    s = step_through(lambda a, b: a * b, 2.0, 3.0, svg=FAKE_SVG)
    assert all(n.saved is None for n in s.frames.nodes if n.op is not None)


# --- errors -------------------------------------------------------------------------------


def test_step_through_of_a_function_returning_its_input():
    with pytest.raises(ValueError, match="returned its input 'a' unchanged"):
        step_through(lambda a: a, 1.0)
    with pytest.raises(ValueError, match="returned a leaf"):
        step_through(lambda a: Value(3.0), 1.0)


def test_step_through_of_inputs_that_need_no_gradient_says_so():
    """Tensors made without requires_grad record no graph: the error says why, and how
    to pass them, instead of calling the result a leaf made by no operation."""
    from minigrad import Tensor
    from minigrad.func import vmap

    w, xs = Tensor(np.array([1.0, 0.0, -1.0])), Tensor(np.arange(12.0).reshape(3, 4))

    def dot(w, x):
        return (w * x).sum()

    with pytest.raises(ValueError, match=r"none of dot's inputs \('w', 'x'\) requires a "
                                         r"gradient.*requires_grad=True"):
        step_through(dot, w, Tensor(xs.data[:, 0]), svg=FAKE_SVG)
    with pytest.raises(ValueError, match="requires a gradient"):
        step_through(vmap(dot, in_dims=(None, 1)), w, xs, svg=FAKE_SVG)
    # one input that needs a gradient is enough, and numpy arrays are made to need one
    assert len(step_through(dot, Tensor(w.data, requires_grad=True), Tensor(xs.data[:, 0]),
                            svg=FAKE_SVG)) > 0
    assert len(step_through(dot, w.data, xs.data[:, 0], svg=FAKE_SVG)) > 0


# --- inputs -------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [np.arange(3), [0, 1, 2], np.array([0, 1, 2], dtype=np.int8),
                                  np.array([False, True, True])])
def test_integer_inputs_become_float32_like_lists(data):
    s = step_through(lambda a: (a * 2.0).sum(), data, svg=FAKE_SVG)
    leaf = s.frames.nodes[0]
    assert leaf.data.dtype == np.float32
    np.testing.assert_array_equal(s.frames.grads(len(s) - 1)[leaf.id], [2.0, 2.0, 2.0])


def test_float64_arrays_keep_their_dtype_and_strings_are_refused():
    s = step_through(lambda a: (a * 2.0).sum(), np.arange(3.0), svg=FAKE_SVG)
    assert s.frames.nodes[0].data.dtype == np.float64
    with pytest.raises(TypeError, match="step_through: input 'a' is an array of dtype"):
        step_through(lambda a: a.sum(), np.array(["x"]))
