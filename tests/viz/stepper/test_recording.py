"""What ``step_through`` records (``viz.stepper.recording``): leaves made from plain inputs
inside the recording, the caller's own nodes kept, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Value
from tests._helpers import FAKE_SVG
from viz.stepper.stepper import step_through


def _tensor():
    return getattr(minigrad, "Tensor", None)


def test_step_through_makes_named_leaves_inside_the_recording():
    def f(weight, bias):
        return weight * 2.0 + bias

    s = step_through(f, 3, 1.0, svg=FAKE_SVG)
    leaves = [n for n in s.frames.nodes if n.op is None and n.requires_grad]
    assert [n.label for n in leaves] == ["weight", "bias"]
    assert [type(n.data) for n in leaves] == [float, float]
    assert s.frames[1].title == "Forward · create weight"  # they appear in the replay
    s.last()
    assert s.panel.endswith("weight.grad = 2.0000, bias.grad = 1.0000.")


def test_step_through_errors():
    with pytest.raises(TypeError, match="returned a float"):
        step_through(lambda a: 3.0, 1.0)
    with pytest.raises(TypeError, match="input 'a' is a str"):
        step_through(lambda a: a, "x")
    if _tensor() is not None:
        with pytest.raises(ValueError, match=r"shape \(3,\).*out.sum\(\)"):
            step_through(lambda x: x * 2, np.ones(3))
    with pytest.raises(ValueError, match="speed must be one of"):
        step_through(lambda a: a * 2, 1.0, speed="warp")


def test_stepper_keeps_existing_nodes_and_their_labels():
    a = Value(2.0, label="alpha")
    s = step_through(lambda v: v * v, a, svg=FAKE_SVG)
    assert s.frames.nodes[0] is a
    s.last()
    assert "alpha.grad = 4.0000" in s.panel


@pytest.mark.parametrize("mode", ["both", "forward-mode"])
def test_step_through_of_a_result_instead_of_a_function_says_what_to_pass(mode):
    """``step_through(c)`` after building ``c`` (issue 31): the error names what was given
    and shows the call to make instead, not "'Value' object is not callable"."""
    a = Value(2.0, label="a")
    c = a * a + a
    with pytest.raises(TypeError) as err:
        step_through(c, mode=mode)
    message = str(err.value)
    assert "is a Value (the result of 'add'), not a function" in message
    assert "step_through(f, x, y)" in message and "viz.draw" in message
    with pytest.raises(TypeError, match=r"a Value \(a leaf\), not a function"):
        step_through(a, 1.0, mode=mode)
    if _tensor() is not None:
        t = _tensor()(np.ones(2), requires_grad=True)
        with pytest.raises(TypeError, match=r"is a Tensor \(the result of 'sum'\)"):
            step_through((t * t).sum(), mode=mode)
    with pytest.raises(TypeError, match=r"must be a function, got a float.*\(1 input\(s\) given\)"):
        step_through(3.0, a, mode=mode)
