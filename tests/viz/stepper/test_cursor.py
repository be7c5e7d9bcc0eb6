"""``StepperState``: the cursor over the frames, and ``goto``'s indices."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Value
from tests._helpers import FAKE_SVG
from viz.stepper.cursor import StepperState
from viz.stepper.frames import Frames
from viz.stepper.stepper import step_through


def record_scalar(fn, *values, labels="abcdefgh"):
    with minigrad.record() as tape:
        leaves = [Value(v, label=labels[i]) for i, v in enumerate(values)]
        out = fn(*leaves)
        out.backward()
    return tape, leaves, out


def test_state_cursor_clamps_and_notifies():
    tape, _, _ = record_scalar(lambda a, b: a * b, 2.0, 3.0)
    st = StepperState(Frames(tape, "both"))
    seen = []
    st.observe(seen.append)
    assert st.step == 0 and st.prev() == 0 and seen == []
    st.next()
    st.next()
    assert st.step == 2 and seen == [1, 2]
    st.last()
    assert st.at_end and st.step == len(st) - 1
    assert st.goto(10_000) == len(st) - 1 and seen[-1] == len(st) - 1
    st.first()
    assert st.step == 0
    st.step = 3
    assert st.panel.startswith(f"step 4 / {len(st)} · Forward · create #")
    assert st.classes == st.frames.classes(3)


def test_goto_takes_list_style_indices_and_only_integers():
    s = step_through(lambda a, b: a * b + a, 2.0, 3.0, svg=FAKE_SVG)
    n = len(s)
    s.goto(-1)
    assert s.step == n - 1
    s.goto(-2)
    assert s.step == n - 2
    s.goto(-10 * n)  # out of range is clamped, as for big positive steps
    assert s.step == 0
    s.prev()  # prev at the first step stays there (it is not goto(-1))
    assert s.step == 0
    s.goto(np.int64(3))
    assert s.step == 3
    for bad in (1.5, 2.0, "3", None):
        with pytest.raises(TypeError, match="the step must be an integer"):
            s.goto(bad)
    assert s.step == 3
