"""Which recorded events a replay shows (``viz.stepper.replay``)."""

from __future__ import annotations

import minigrad
import viz
from minigrad import Value


def test_a_second_forward_pass_after_a_backward_is_replayed():
    with minigrad.record() as tape:
        a, b = Value(2.0, label="a"), Value(3.0, label="b")
        (a * b).backward()
        c = Value(5.0, label="c")
        second = (a + c) * b
        second.label = "L2"
        second.backward()
    stepper = viz.Stepper(tape)
    assert "6 nodes" in stepper.panel and "before recording" not in stepper.panel
    stepper.goto(-1)
    assert "a.grad = 6.0000, b.grad = 9.0000, c.grad = 3.0000" in stepper.panel
