"""The widget's controls say what they do (``viz.stepper.widgets``)."""

from __future__ import annotations

from tests._helpers import FAKE_SVG
from viz.stepper.stepper import step_through


def neuron(a, b, c):
    e = a * b
    e.label = "e"
    return (e + c).tanh()


def test_widget_controls_name_play_and_stop_and_leave_the_count_to_the_counter():
    w = step_through(neuron, 2.0, -3.0, 10.0, svg=FAKE_SVG).widget
    assert "Play" in w.play.tooltip and "Stop" in w.play.tooltip
    assert w.play.description == ""  # ipywidgets shows the tooltip only without one
    assert "mg-play" in w.play._dom_classes
    assert w.slider.description == ""  # "step 4 / 8" says it once, next to it
    css = w.style.value
    for word in ("Play", "Pause", "Stop"):
        assert f'content: " {word}"' in css
