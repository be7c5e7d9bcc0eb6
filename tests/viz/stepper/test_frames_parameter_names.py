"""Names in the stepper mean one thing (issue 31): parameters by their full paths, as
``viz.draw(params=model)`` shows them, a function's inputs by their argument names, and any
name still shared by two nodes made distinct (``b #7``), in the panel and the picture alike."""

from __future__ import annotations

import random
import re
from collections import Counter

import numpy as np

import minigrad
from minigrad import Value, nn
from tests._helpers import FAKE_SVG
from viz.render.view import param_names
from viz.stepper.frames import Frames
from viz.stepper.narration import distinct_names
from viz.stepper.stepper import Stepper, step_through


def view_names(stepper) -> list[str]:
    return [vn.name for vn in stepper.frames.view.nodes if vn.name is not None]


def drawn_names(stepper) -> dict[int, str]:
    """``{node id: name}`` the picture is drawn with (the Stepper's ``params`` option)."""
    return {node.id: name for name, node in stepper.options.params}


def last_panel_grads(stepper) -> list[str]:
    stepper.last()
    listed = stepper.panel.split("Gradients of the leaves: ", 1)[1]
    return re.findall(r"(?:^|, )([^\[\],=]+?)\.grad = ", listed)  # (names hold no , [ ])


def test_a_scalar_mlp_step_through_names_every_parameter_by_its_path():
    model = nn.MLP(2, [2, 1], rng=random.Random(0))
    s = step_through(lambda a, b: model([a, b]), 1.0, -2.0, svg=FAKE_SVG)
    names = view_names(s)
    assert len(names) == len(set(names)), Counter(names).most_common(3)
    expected = param_names(model)  # what viz.draw(params=model) shows
    by_id = {vn.id: vn.name for vn in s.frames.view.nodes}
    assert {i: by_id[i] for i in expected} == expected
    assert "layers.0.neurons.1.w.0" in names and "layers.1.neurons.0.b" in names
    assert {"a", "b"} <= set(names)  # the inputs keep their argument names
    drawn = drawn_names(s)  # the picture agrees
    assert {i: drawn[i] for i in expected} == expected
    assert s.frames.frames[1].title == "Forward · create a"


def test_a_tensor_mlp_step_through_lists_each_grad_once_in_the_last_panel():
    net = nn.Sequential(nn.Linear(2, 3, seed=0), nn.ReLU(), nn.Linear(3, 1, seed=1))
    s = step_through(lambda x: net(x).sum(), np.ones((4, 2)), svg=FAKE_SVG)
    names = view_names(s)
    assert len(names) == len(set(names))
    listed = last_panel_grads(s)
    assert listed == ["0.weight", "0.bias", "2.weight", "2.bias", "x"]
    assert set(param_names(net).values()) <= set(drawn_names(s).values())


def test_a_bias_named_like_an_input_is_made_distinct_and_the_input_keeps_its_name():
    neuron = nn.Neuron(2, rng=random.Random(0))  # a root module: its bias's path is "b"
    s = step_through(lambda a, b: neuron([a, b]), 1.0, -2.0, svg=FAKE_SVG)
    bias = f"b #{neuron.b.id}"
    assert s.frames.names[neuron.b.id] == bias
    assert Counter(last_panel_grads(s)) == Counter(["w.0", "w.1", bias, "a", "b"])
    assert drawn_names(s)[neuron.b.id] == bias


def test_a_module_held_only_in_a_closure_is_still_named_by_path():
    def make():
        inner = nn.Sequential(nn.Linear(2, 2, seed=0), nn.Tanh(), nn.Linear(2, 1, seed=1))
        return lambda x: inner(x).sum(), inner

    f, inner = make()
    s = step_through(f, np.ones((1, 2)), svg=FAKE_SVG)
    assert set(param_names(inner).values()) <= set(view_names(s))


def test_forward_mode_names_parameters_by_path_too():
    net = nn.Sequential(nn.Linear(2, 2, seed=0), nn.Linear(2, 1, seed=1))
    s = step_through(lambda x: net(x).sum(), np.ones((1, 2)), mode="forward-mode", svg=FAKE_SVG)
    names = view_names(s)
    assert {"0.weight", "1.weight"} <= set(names) and len(names) == len(set(names))


def test_params_given_to_the_stepper_win_over_the_recorded_paths():
    net = nn.Sequential(nn.Linear(2, 1, seed=0))
    s = step_through(lambda x: net(x).sum(), np.ones((1, 2)), svg=FAKE_SVG,
                     params={"W": net[0].weight})
    assert s.frames.names[net[0].weight.id] == "W"
    assert s.frames.names[net[0].bias.id] == "0.bias"


def test_repeated_labels_on_a_recorded_tape_become_distinct():
    with minigrad.record() as tape:
        x = Value(0.5, label="x")
        h = x
        for _ in range(3):
            h = (h * 2.0).tanh()
            h.label = "h"
        h.backward()
    s = Stepper(tape, svg=FAKE_SVG)
    names = view_names(s)
    assert names.count("h") == 1 and len(names) == len(set(names)) == 4
    assert sorted(n for n in names if n.startswith("h #")) == sorted(
        f"h #{i}" for i in s.frames.names)


def test_distinct_names_keeps_an_input_before_a_parameter_and_a_leaf_before_an_op():
    with minigrad.record() as tape:
        b_param = Value(1.0, label="b")
        b_input = Value(2.0, label="b")
        out = b_param * b_input
        out.label = "b"
        out.backward()
    fr = Frames(tape, "backward", {})
    # Frames already made them distinct: the parameter-less rule keeps the oldest leaf
    assert fr.names == {b_input.id: f"b #{b_input.id}", out.id: f"b #{out.id}"}
    view = Frames(tape, "backward", {}).view
    for vn in view.nodes:  # undo, then ask again with b_param declared a parameter
        vn.name = "b"
    renamed = distinct_names(view, parameters=[b_param.id])
    assert renamed == {b_param.id: f"b #{b_param.id}", out.id: f"b #{out.id}"}
    assert [vn.name for vn in view.nodes if vn.id == b_input.id] == ["b"]
