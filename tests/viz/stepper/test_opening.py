"""Where a stepper opens, how it counts its steps, its legend and its page title (issue #20)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad
from minigrad import Value
from tests._helpers import FAKE_SVG
from viz.stepper.page import legend
from viz.stepper.stepper import Stepper, step_through


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
    assert s.step == 0 and s.widget.slider.value == 0
    assert s.widget.counter.value == f"step 1 / {len(s)}"
    assert bundle["text/plain"] == repr(s)
    s.widget.next_button.click()  # and Next moves on
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
    for i in (0, 3, len(s) - 1):
        s.goto(i)
        assert w.counter.value == f"step {i + 1} / {len(s)}"
        assert s.panel.splitlines()[0] == f"{w.counter.value} · {s.frame.title}"
        assert s.frame.title in w.panel.value


def test_forward_only_legend_shows_forward_states_only():
    forward = step_through(neuron, 2.0, -3.0, 10.0, mode="forward", svg=FAKE_SVG)
    both = step_through(neuron, 2.0, -3.0, 10.0, svg=FAKE_SVG)
    def key(html: str) -> str:
        return html.split('class="mg-legend"')[1].split("</div>")[0]

    for html in (forward.widget.panel.value, forward.to_html()):
        assert "current" in key(html) and "gradient" not in key(html)
    for html in (both.widget.panel.value, both.to_html()):
        assert "receiving a gradient" in key(html) and "has a gradient" in key(html)
    assert legend(None, "backward") == legend(None, "both") != legend(None, "forward")


def test_the_page_title_says_what_is_stepped_through():
    s = step_through(neuron, 2.0, -3.0, 10.0, svg=FAKE_SVG)
    assert "<title>neuron(a, b, c): the forward and backward pass, step by step</title>" in (
        s.to_html())
    lam = step_through(lambda x: x * 2.0, 3.0, mode="backward", svg=FAKE_SVG)
    assert "<title>lambda x: the backward pass, step by step</title>" in lam.to_html()
    own = step_through(neuron, 2.0, -3.0, 10.0, svg=FAKE_SVG, title="Lesson 1")
    assert "<title>Lesson 1</title>" in own.to_html()
    assert "<title>Other</title>" in own.to_html(title="Other")


def test_a_tape_stepper_names_its_output_in_the_title():
    with minigrad.record() as tape:
        x = minigrad.Tensor(np.ones(3), requires_grad=True, name="x")
        loss = (x * x).sum()
        loss.name = "loss"
        loss.backward()
    page = Stepper(tape, svg=FAKE_SVG).to_html()
    assert "<title>loss: the forward and backward pass, step by step</title>" in page
    assert Value(1.0).grad is None  # (nothing here touches other graphs)


def test_widget_controls_name_play_and_stop_and_leave_the_count_to_the_counter():
    w = step_through(neuron, 2.0, -3.0, 10.0, svg=FAKE_SVG).widget
    assert "Play" in w.play.tooltip and "Stop" in w.play.tooltip
    assert w.play.description == ""  # ipywidgets shows the tooltip only without one
    assert "mg-play" in w.play._dom_classes
    assert w.slider.description == ""  # "step 4 / 8" says it once, next to it
    css = w.style.value
    for word in ("Play", "Pause", "Stop"):
        assert f'content: " {word}"' in css
