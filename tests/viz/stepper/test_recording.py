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
