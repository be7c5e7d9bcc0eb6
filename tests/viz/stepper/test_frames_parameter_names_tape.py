"""``Stepper(tape)`` on a tape the user recorded (no ``tape.scopes``): parameters are named
by their full paths from the models in the caller's variables, the rule ``viz.draw(loss)``
follows (``viz.render.view.model_param_names``), so the panel and a drawing of the same
graph say ``0.weight``, not a label every layer shares (``weight #7``)."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad import Tensor, nn
from tests._helpers import FAKE_SVG
from viz.render.view import build_view, param_names
from viz.stepper.stepper import Stepper


def recorded(net):
    with minigrad.record() as tape:
        loss = net(Tensor(np.ones((1, 2)))).sum()
        loss.backward()
    return tape, loss


def test_a_tape_recorded_by_hand_names_parameters_as_viz_draw_does():
    net = nn.Sequential(nn.Linear(2, 2, seed=0), nn.Tanh(), nn.Linear(2, 1, seed=1))
    tape, loss = recorded(net)
    assert getattr(tape, "scopes", None) is None  # (nothing recorded the modules)
    s = Stepper(tape, svg=FAKE_SVG)
    expected = param_names(net)  # {id: "0.weight", ...}
    assert {i: s.frames.names[i] for i in expected} == expected
    drawn = {vn.id: vn.name for vn in build_view(loss).nodes}  # viz.draw(loss)'s names
    assert {i: drawn[i] for i in expected} == expected
    assert "Already there before recording (shown from the start): " + ", ".join(
        expected.values()) in s.frames.frames[0].text
    s.last()
    for name in expected.values():
        assert f"{name}.grad = " in s.panel
    assert {s.options.params[k][0] for k in range(len(s.options.params))} >= set(
        expected.values())  # the picture agrees


def test_params_given_win_and_no_model_is_looked_for():
    net = nn.Sequential(nn.Linear(2, 1, seed=0))
    tape, _ = recorded(net)
    s = Stepper(tape, svg=FAKE_SVG, params={"W": net[0].weight})
    assert s.frames.names[net[0].weight.id] == "W"
    assert net[0].bias.id not in s.frames.names  # its label, as params= alone says
    assert s.frames.view.node(net[0].bias.id).name == "bias"


def test_a_model_out_of_the_callers_sight_leaves_the_labels():
    def run():
        hidden = nn.Sequential(nn.Linear(2, 1, seed=0), nn.Linear(1, 1, seed=1))
        return recorded(hidden)[0]

    s = Stepper(run(), svg=FAKE_SVG)
    names = {vn.name for vn in s.frames.view.nodes if vn.name is not None}
    assert "weight" in names and not any(n.startswith("0.") for n in names)
