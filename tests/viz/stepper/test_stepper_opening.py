"""Where a stepper opens: the first step when displayed, or where the lesson asks."""

from __future__ import annotations

import re

import pytest

from tests._helpers import FAKE_SVG
from viz.stepper.stepper import step_through


def neuron(a, b, c):
    e = a * b
    e.label = "e"
    return (e + c).tanh()


def walked_to_the_end(**options):
    """What lesson 1 does: print every panel with goto, then show the stepper."""
    s = step_through(neuron, 2.0, -3.0, 10.0, mode="forward", svg=FAKE_SVG, **options)
    for i in range(len(s)):
        s.goto(i)
    return s


def test_display_opens_on_the_first_step_after_code_walked_the_steps():
    s = walked_to_the_end()
    assert s.step == len(s) - 1
    bundle = s._repr_mimebundle_()
    assert s.step == 0 and s.widget.step == 0
    assert bundle["text/plain"] == repr(s)
    s.widget.step = 1  # and the slider moves on
    assert s.step == 1


def test_start_opens_where_the_lesson_asks():
    end = walked_to_the_end(start=-1)
    end.first()
    end._repr_mimebundle_()
    assert end.step == len(end) - 1
    third = walked_to_the_end(start=2)
    third._repr_mimebundle_()
    assert third.step == 2
    here = walked_to_the_end(start=None)  # None: wherever the cursor is
    here.goto(4)
    here._repr_mimebundle_()
    assert here.step == 4
    static = walked_to_the_end(static=True)
    assert 'data-mg-step="0"' in static._repr_mimebundle_()["text/html"]


@pytest.mark.parametrize("bad", ["end", 1.5, True])
def test_start_must_be_a_step_number(bad):
    with pytest.raises(TypeError, match="start must be a step number"):
        step_through(neuron, 2.0, -3.0, 10.0, svg=FAKE_SVG, start=bad)


def test_titles_carry_no_count_of_their_own_and_the_panel_counts_like_the_slider():
    s = step_through(neuron, 2.0, -3.0, 10.0, svg=FAKE_SVG)
    counts = re.compile(r"\d+\s*/\s*\d+")
    assert not [f.title for f in s.frames.frames if counts.search(f.title)]
    w = s.widget
    assert f'<span class="mg-counter">step 1 / {len(s)}</span>' in w.markup
    for i in (0, 3, len(s) - 1):
        s.goto(i)
        assert w.step == i  # the player's counter says "step {i + 1} / {len(s)}"
        assert s.panel.splitlines()[0] == f"step {i + 1} / {len(s)} · {s.frame.title}"
        assert w.data["frames"][i]["t"] == s.frame.title
