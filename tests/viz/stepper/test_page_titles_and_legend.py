"""The page's title and legend say what is stepped through (``viz.stepper.page``)."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad import Value
from tests._helpers import FAKE_SVG
from viz.stepper.page import legend
from viz.stepper.stepper import Stepper, step_through


def neuron(a, b, c):
    e = a * b
    e.label = "e"
    return (e + c).tanh()


def test_forward_only_legend_shows_forward_states_only():
    forward = step_through(neuron, 2.0, -3.0, 10.0, mode="forward", svg=FAKE_SVG)
    both = step_through(neuron, 2.0, -3.0, 10.0, svg=FAKE_SVG)
    def key(html: str) -> str:
        return html.split('class="mg-legend"')[1].split("</div>")[0]

    for html in (forward.widget.markup, forward.to_html()):
        assert "current" in key(html) and "gradient" not in key(html)
    for html in (both.widget.markup, both.to_html()):
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
