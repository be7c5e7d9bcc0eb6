"""The player's per-step payload (``step_payload``) replays the saved-value states."""

from __future__ import annotations

import minigrad
from minigrad import Value
from tests._graphs import Cube
from viz.stepper.page import step_payload
from viz.stepper.stepper import GradText, Stepper
from viz.stepper.template import SvgTemplate


def test_player_payload_replays_the_saved_value_states():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><g id="n_1" class="node"></g>'
           '<g id="n_2" class="node"></g><g id="s_2_0" class="node saved"></g>'
           '<g id="s_2_released" class="node saved released"></g></svg>')
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        y = Cube.apply(a)
        y.backward()
    fr = Stepper(tape, svg=svg).frames
    svg = svg.replace("n_1", f"n_{a.id}").replace("2", str(y.id))
    t = SvgTemplate(svg, fr.elements)
    payload = step_payload(fr, t, GradText())
    states = [""] * len(t.companions)
    seen = []
    for k, f in enumerate(payload["frames"]):
        for j, st in f["s"]:
            states[j] = st
        assert states == t.companion_classes(fr.class_strings(k), fr.released(k))
        seen.append(tuple(states))
    assert ("", "hidden") in seen and ("freed", "") in seen
