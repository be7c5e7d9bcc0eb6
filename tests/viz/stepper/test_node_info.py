"""What a click on a node shows (``viz.stepper.node_info``): value, formula, saved values."""

from __future__ import annotations

import numpy as np

from viz.stepper.node_info import node_info
from viz.stepper.stepper import step_through


def neuron(a, b, c):
    e = a * b
    e.label = "e"
    return (e + c).tanh()


def test_every_node_gets_its_value_formula_and_saved_values():
    s = step_through(neuron, 2.0, -3.0, 10.0)
    info = {i["n"]: i for i in node_info(s.frames, s.options)}
    assert set(info) >= {"a", "b", "c", "e"}
    assert len(info) == len(s.frames.nodes)
    assert info["a"]["k"] == "leaf parameter" and info["a"]["v"] == "2.0000"
    assert info["a"]["s"] == []
    e = info["e"]
    assert e["k"] == "mul" and e["v"] == "-6.0000"
    # the formula is the forward step's own sentence
    created = next(f.text for f in s.frames.frames if f.kind == "created" and "e = a" in f.text)
    assert e["f"] == created and "a × b" in e["f"]
    # what mul saved, as recorded, by the names its rule gives them
    assert e["s"] == ["a = input 0: 2.0000", "b = input 1: -3.0000"]
    for i in info.values():
        assert s.frames.elements[i["e"]].startswith("n_")


def test_without_forward_steps_the_formula_names_the_op_and_its_inputs():
    s = step_through(neuron, 2.0, -3.0, 10.0, mode="backward")
    info = {i["n"]: i for i in node_info(s.frames, s.options)}
    assert info["e"]["f"] == "e = ×(a, b)" or info["e"]["f"].startswith("e = ")
    assert "(a, b)" in info["e"]["f"]
    assert "leaf" in info["a"]["f"]


def test_a_tensor_node_says_its_shape_and_dtype():
    s = step_through(lambda x: (x * 2.0).sum(), np.array([1.0, 2.0, 3.0]))
    info = {i["n"]: i for i in node_info(s.frames, s.options)}
    assert "(shape (3,), float" in info["x"]["v"]


def test_the_stepper_computes_it_once_for_the_widget_and_the_page():
    s = step_through(neuron, 2.0, -3.0, 10.0)
    info = s.node_info()
    assert s.node_info() is info
    assert s.widget.data["info"] == info
    assert '"n":"e"' in s.to_html()  # the page's JSON carries the same
