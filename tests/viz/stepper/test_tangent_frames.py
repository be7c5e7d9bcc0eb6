"""The stepper plays a forward-mode pass (issue #17): tangents appear node by node in
creation order, each edge adds local derivative × incoming tangent, in the backward
panel's words reversed; driven without a kernel."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
import viz
from minigrad import Tensor, Value
from viz.stepper.stepper import GradText, Stepper, step_through
from viz.stepper.template import grad_strings

forward_ad = pytest.importorskip("minigrad.autograd.forward_ad")

LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]


def f(a, b):
    return (a * b).tanh() + a


def jvp(fn, inputs, tangents):
    """The output's tangent by forward_ad itself, with no recording."""
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x, t) for x, t in zip(inputs, tangents)]
        return forward_ad.unpack_dual(fn(*duals)).tangent.data


def tangent_steps(fr):
    return [fr_ for fr_ in fr.frames if fr_.kind == "tangent"]


def test_the_output_tangent_is_forward_ads():
    s = step_through(f, 0.5, -0.3, mode="forward-mode", tangents=(1.0, 0.5), svg="<svg></svg>")
    fr = s.frames
    expected = jvp(f, [Value(0.5), Value(-0.3)], [1.0, 0.5])
    root = fr.results[0]
    assert fr.tangents(len(fr) - 1)[root.id] == pytest.approx(expected)
    assert fr.say.value(expected) in fr.frames[-1].text


def test_nodes_appear_in_creation_order_each_with_its_tangent_edges_after_it():
    s = step_through(f, 0.5, -0.3, mode="forward-mode", svg="<svg></svg>")
    fr = s.frames
    created = [x.node for x in fr.frames if x.kind == "created"]
    assert created == sorted(created)  # ids are a creation counter
    for x in tangent_steps(fr):
        made = max(k for k, y in enumerate(fr.frames) if y.kind == "created" and y.index < x.index)
        assert fr.frames[made].node == x.node  # an edge step follows its node's creation
        assert f"n_{x.node}" in fr.having(x.index, "receiving")
        assert set(fr.having(x.index, "current")) == {f"n_{x.node}", x.edge}
        assert x.edge in fr.having(len(fr) - 1, "passed")
    # every op node of f with a tangent input gets one step per input edge
    ops = [n for n in fr.nodes if n.op is not None and n.op.name != "make_dual"]
    assert len(tangent_steps(fr)) == sum(len(n.parents) for n in ops)


def test_each_edge_step_adds_local_derivative_times_incoming_tangent():
    s = step_through(f, 0.5, -0.3, mode="forward-mode", tangents=(1.0, 0.5), svg="<svg></svg>")
    fr = s.frames
    say = fr.say
    for x in tangent_steps(fr):
        node = fr.nodes[[n.id for n in fr.nodes].index(x.node)]
        slot = int(x.edge.split("_")[3])
        parent = node.parents[slot]
        before = fr.tangents(x.index - 1)[node.id]
        incoming = fr.tangents(x.index)[parent.id]
        # (no backward ran, so every node still holds what its op saved)
        local = node.op.grads[slot](1.0, *node.saved, **(node.attrs or {}))
        contribution = local * incoming
        after = contribution if before is None else before + contribution
        assert fr.tangents(x.index)[node.id] == pytest.approx(after)
        assert (f"{say.num(local)} × {say.value(incoming)} = {say.value(contribution)}"
                in x.text)
        name = fr.name(node)
        assert f"∂{name}/∂{fr.name(parent)}" in x.text
        assert f"slot {slot} of {node.op.name}" in x.text


def test_tensors_default_to_ones_and_the_card_writes_the_tangent():
    w = np.array([[0.5, -0.2], [0.1, 0.3]])
    x = np.array([1.0, 2.0])
    s = step_through(lambda w, x: (w @ x).tanh(), w, x, mode="forward-mode", svg="<svg></svg>")
    fr = s.frames
    expected = jvp(lambda w, x: (w @ x).tanh(), [Tensor(w), Tensor(x)],
                   [np.ones_like(w), np.ones_like(x)])
    np.testing.assert_allclose(fr.tangents(len(fr) - 1)[fr.results[0].id], expected)
    texts = grad_strings(fr, len(fr) - 1, s.grad_text)
    assert texts[f"n_{fr.results[0].id}"].startswith("ṫ ")
    assert not any(t.startswith("grad") for t in texts.values())


def test_the_dual_inputs_carry_the_tangents_given():
    s = step_through(f, 0.5, -0.3, mode="forward-mode", tangents=(2.0, -1.0), svg="<svg></svg>")
    fr = s.frames
    duals = {fr.name(n): n for n in fr.nodes if n.op is not None and n.op.name == "make_dual"}
    assert set(duals) == {"a", "b"}
    end = fr.tangents(len(fr) - 1)
    assert (end[duals["a"].id], end[duals["b"].id]) == (2.0, -1.0)
    primal = {fr.name(n): n for n in fr.nodes if n.op is None}
    assert set(primal) == {"a (primal)", "b (primal)"}
    assert all(end[n.id] is None for n in primal.values())


def test_a_tape_recorded_by_hand_steps_the_same():
    with minigrad.record() as tape, forward_ad.dual_level():
        a = forward_ad.make_dual(Value(0.5, label="a"), 1.0)
        out = a * a
    s = Stepper(tape, mode="forward-mode", svg="<svg></svg>")
    steps = tangent_steps(s.frames)
    assert len(steps) == 2  # x·x: two edges, two shares that add up
    assert s.frames.tangents(len(s) - 1)[out.id] == pytest.approx(2 * 0.5)


def test_clear_errors_for_forward_mode_misuse():
    with pytest.raises(ValueError, match="one tangent per input"):
        step_through(f, 0.5, -0.3, mode="forward-mode", tangents=(1.0,))
    with pytest.raises(ValueError, match="tangents= is for mode='forward-mode'"):
        step_through(f, 0.5, -0.3, tangents=(1.0, 1.0))
    with pytest.raises(ValueError, match="runs no backward pass"):
        step_through(f, 0.5, -0.3, mode="forward-mode", create_graph=True)
    with minigrad.record() as tape:
        (Value(1.0) * 2).backward()
    with pytest.raises(ValueError, match="this tape has no tangents"):
        Stepper(tape, mode="forward-mode")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_both_layouts_draw_the_tangent_line(layout):
    s = step_through(f, 0.5, -0.3, mode="forward-mode", layout=layout)
    assert s.template is not None, s.note
    fr = s.frames
    out = fr.results[0]
    assert f"n_{out.id}" in s.template.grad_nodes
    svg = s.render_svg(len(s) - 1)
    assert f">{GradText(word='ṫ')(out, fr.tangents(len(s) - 1)[out.id])}<" in svg
    assert "forward-mode pass" in s.to_html()
