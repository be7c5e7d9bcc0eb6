"""The stepper replays a ``create_graph`` backward building the gradient's graph, node by
node, then a second backward through that graph (issue #16)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad
from minigrad import Value
from minigrad.autograd import grad
from viz.stepper.frames import Frames
from viz.stepper.stepper import Stepper, step_through


def tanh(x):
    return x.tanh()


def built_steps(s):
    return [k for k, f in enumerate(s.frames.frames) if f.kind == "built"]


def test_every_built_node_is_hidden_until_its_rule_makes_it():
    s = step_through(tanh, 0.5, create_graph=True)
    fr = s.frames
    view = fr.view
    order1 = {n.id for n in view.nodes if n.order == 1}
    assert order1 and {n.id for n in fr.replay.built} == order1
    steps = built_steps(s)
    seeds = fr.replay.seeds
    assert len(seeds) == 1 and len(steps) == len(order1) - len(seeds)
    for k in steps:
        nid = fr.frames[k].node
        key = f"n_{nid}"
        assert all("hidden" in fr.classes(i).get(key, "") for i in range(k))
        assert fr.classes(k)[key].split() == ["new"]
        assert all("hidden" not in fr.classes(i).get(key, "") for i in range(k, len(fr)))
        assert "new" not in fr.classes(k + 1).get(key, "")
        for el, child, _, _ in fr.edges:  # the edges into it appear with it
            if child.id == nid:
                assert "hidden" in fr.classes(k - 1)[el] and "new" in fr.classes(k)[el]
    # forward nodes were never hidden from the backward phase on
    first_backward = next(k for k, f in enumerate(fr.frames) if f.phase == "backward")
    forward = [n for n in view.nodes if n.order == 0]
    assert all("hidden" not in fr.classes(first_backward).get(n.key, "") for n in forward)


def test_a_build_step_names_the_op_and_the_edge_whose_rule_made_it():
    s = step_through(tanh, 0.5, create_graph=True)
    fr = s.frames
    leaves = [n for n in fr.nodes if n.order == 0 and n.op is None]
    for k in built_steps(s):
        f = fr.frames[k]
        node = fr.nodes[[n.id for n in fr.nodes].index(f.node)]
        child_id, slot = node.origin.made_by
        child = next(n for n in fr.nodes if n.id == child_id)
        assert f.title.startswith("Backward · build ")
        if node.op is not None:
            assert f.title.endswith(f"({node.op.name})")
        assert (f"Built by the rule of edge {fr.name(child.parents[slot])} → {fr.name(child)} "
                f"(slot {slot} of {child.op.name}): a node of order 1 (∂¹)") in f.text
        assert f.edge == f"e_{child_id}_{child.parents[slot].id}_{slot}"
        assert "current" in fr.classes(k)[f.edge].split()
    assert leaves  # (the leaf the edges lead to)


def test_the_gradient_appears_as_a_node_and_the_panel_says_so():
    s = step_through(tanh, 0.5, create_graph=True)
    fr = s.frames
    seed = next(f for f in fr.frames if f.kind == "seeded")
    assert "This pass builds a graph (create_graph=True)" in seed.text
    last_edge = [f for f in fr.frames if f.kind == "contribute"][-1]
    root = next(n for n in fr.nodes if n.id in {r.id for r in fr.roots} and n.order == 1)
    assert f"(node #{root.id}, ∂¹)" in last_edge.text.splitlines()[0]
    assert f"{1 - math.tanh(0.5) ** 2:.4f}" in last_edge.text


def test_second_backward_steps_through_the_gradients_graph():
    s = step_through(tanh, 0.5, second=True)
    fr = s.frames
    seeds = [f for f in fr.frames if f.kind == "seeded"]
    assert len(seeds) == 2
    second = fr.frames.index(seeds[1])
    assert seeds[1].title.startswith("Backward 2 · seed #")
    assert all(f.title.startswith("Backward 2 · ") for f in fr.frames[second:-1])
    assert not any(f.kind == "built" for f in fr.frames[second:])  # (a plain pass)
    visited = {f.node for f in fr.frames[second:] if f.kind == "visit"}
    order1 = {n.id for n in fr.view.nodes if n.order == 1}
    assert visited & order1  # it walks the gradient's graph ...
    x = next(n for n in fr.nodes if n.op is None and n.requires_grad)
    t = math.tanh(0.5)
    assert fr.grads(len(fr) - 1)[x.id] == pytest.approx(-2 * t * (1 - t * t))
    assert f"x.grad = {-2 * t * (1 - t * t):.4f}" in fr.frames[-1].text
    # ... and x starts the second pass with no gradient (autograd.grad left .grad alone)
    x_edges = [k for k in range(second, len(fr)) if fr.frames[k].kind == "contribute"
               and fr.frames[k].edge.endswith(f"_{x.id}_0")]
    assert fr.grads(x_edges[0] - 1)[x.id] is None
    assert "accumulated" not in fr.classes(x_edges[0])[f"n_{x.id}"]


def test_uses_are_counted_per_pass():
    s = step_through(tanh, 0.5, second=True)
    fr = s.frames
    visits = [f for f in fr.frames if f.kind == "visit"]
    first = visits[0]  # tanh, the root of the first pass: nothing used it there
    assert "is used" not in first.text
    again = [f for f in visits if f.node == first.node][-1]  # the mul y·y uses it twice
    assert "is used 2 times" in again.text


def test_the_layout_is_made_once_for_the_whole_graph(tmp_path):
    s = step_through(tanh, 0.5, second=True, layout="builtin")
    t = s.template
    assert t is not None and t.missing == []
    assert set(t.found) == set(s.frames.elements)
    view = s.frames.view
    grads = {n.key for n in view.nodes if n.requires_grad}
    assert grads <= set(t.grad_nodes)  # every gradient text is a slot, widest laid out
    for k in (0, built_steps(s)[0], len(s) - 1):
        svg = s.render_svg(k)
        assert svg.count('class="node') >= len(view.nodes)


def test_several_tensor_inputs_start_the_second_pass_from_the_sum_of_gradients():
    w = np.array([0.5, -1.0])
    s = step_through(lambda w, b: ((w * b).tanh()).sum(), w, np.array([2.0, 1.0]),
                     second=True)
    fr = s.frames
    made_outside = [f for f in fr.frames if f.kind == "built"
                    and "outside any rule" in f.text]
    assert made_outside  # the sum the second pass starts from, order 1, no edge
    sums = [next(n for n in fr.nodes if n.id == f.node) for f in made_outside]
    assert all(n.order == 1 and n.origin.made_by is None for n in sums)
    assert len([f for f in fr.frames if f.kind == "seeded"]) == 2


def test_a_recorded_tape_steps_the_same_way():
    with minigrad.record() as tape:
        x = Value(0.5, label="x")
        y = x.tanh()
        (g,) = grad(y, [x], create_graph=True)
        g.backward()
    fr = Frames(tape, "both")
    assert sum(f.kind == "built" for f in fr.frames) == len(fr.replay.built) - 1
    assert x.grad == pytest.approx(fr.grads(len(fr) - 1)[x.id])
    assert {n.id for n in Frames(tape, "forward").nodes} == {x.id, y.id}


def test_clear_errors():
    with pytest.raises(ValueError, match="second=True .* create_graph=True"):
        step_through(tanh, 0.5, create_graph=False, second=True)
    with pytest.raises(ValueError, match="linear in them.*second derivative is zero"):
        step_through(lambda x: x * 3.0, 0.5, second=True)
    with minigrad.record() as tape:
        x = Value(0.5)
        x.tanh().backward()
    with pytest.raises(ValueError, match="orders='gradient' would hide nodes"):
        Stepper(tape, orders="gradient")


def test_the_exported_player_carries_the_build_steps(tmp_path):
    s = step_through(tanh, 0.5, second=True, layout="builtin")
    page = s.to_html()
    assert "just built by the backward pass" in page
    assert "graph of the first derivative (order 1)" in page
    assert page.count('"new"') + page.count(" new") >= 1
    assert "g.node.new > .mg-s" in page  # the state's rule in the player's stylesheet


def test_a_plain_step_through_is_unchanged():
    s = step_through(lambda a, b: a * b + a, 2.0, 3.0)
    assert repr(s) == "<Stepper both: 15 steps (6 forward, 9 backward), 4 nodes, 4 edges>"
    assert not any(f.kind == "built" for f in s.frames.frames)
    assert not s.frames.replay.builds
