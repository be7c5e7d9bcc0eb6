"""A checkpointed block (issue #18): one collapsed node in the drawing and the forward
replay; recomputed by backward, its nodes appear (class ``recomputed``) and run their
own backward inside the pass, which the nested seed does not restart."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad
import viz
from minigrad import nn
from viz.stepper.frames import Frames
from viz.stepper.stepper import Stepper, step_through

LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]


def model_and_input():
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(),
                          nn.Linear(4, 1))
    return model, minigrad.tensor(np.linspace(-1, 1, 6).reshape(2, 3))


def recorded(scheduler="sorted"):
    model, x = model_and_input()
    with minigrad.record() as tape:
        loss = minigrad.checkpoint_sequential(model, 2, x).sum()
        loss.backward(scheduler=scheduler)
    return tape, model, loss


def checkpoint_nodes(tape):
    return [n for n in tape.nodes if n.op is not None and n.op.name == "checkpoint"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_drawing_shows_the_block_as_one_node(layout):
    model, x = model_and_input()
    loss = minigrad.checkpoint_sequential(model, 2, x).sum()
    svg = viz.draw(loss, layout=layout).svg()
    boxes = re.findall(r'<g id="(n_\d+)" class="([^"]*)"', svg)
    marked = [key for key, cls in boxes if "checkpoint" in cls.split()]
    assert len(marked) == 1
    assert "checkpoint segment[0:2] (2 ops)" in svg
    # the block's linear and tanh are not drawn: of 3 linears, 2 tanh, only 2 linears + 1 tanh
    ops = [cls for _, cls in boxes if " op " in f" {cls} "]
    assert len(ops) == 5  # checkpoint, linear, tanh, linear, sum


def test_the_forward_replay_creates_the_block_as_one_node():
    tape, _, loss = recorded()
    fr = Frames(tape)
    (ck,) = checkpoint_nodes(tape)
    created = [f.node for f in fr.frames if f.phase == "forward" and f.kind == "created"]
    assert ck.id in created
    assert len(created) == 5  # the recompute's nodes are not created forward
    end = next(k for k, f in enumerate(fr.frames) if f.phase == "forward" and f.kind == "end")
    hidden = fr.having(end, "hidden")
    assert len([el for el in hidden if el.startswith("n_")]) == len(fr.replay.recomputed) == 2
    assert [r.id for r in fr.results] == [loss.id]  # (the block's output is no result)


def test_the_visit_says_it_recomputes_the_block():
    tape, _, _ = recorded()
    fr = Frames(tape)
    (ck,) = checkpoint_nodes(tape)
    visit = next(f for f in fr.frames if f.kind == "visit" and f.node == ck.id)
    assert "recomputing block segment[0:2] (2 ops) to get its saved values" in visit.text


def test_recomputed_nodes_appear_then_run_their_backward_and_stay_marked():
    tape, _, _ = recorded()
    fr = Frames(tape)
    block = [n.id for n in fr.replay.recomputed]
    steps = [k for k, f in enumerate(fr.frames) if f.kind == "recomputed"]
    assert [fr.frames[k].node for k in steps] == block
    for k, nid in zip(steps, block):
        cls = fr.classes(k)[f"n_{nid}"].split()
        assert "recomputed" in cls and "new" in cls and "hidden" not in cls
        assert "hidden" in fr.classes(k - 1).get(f"n_{nid}", "")
        assert "op 1 of 2" in fr.frames[k].text or "op 2 of 2" in fr.frames[k].text
    visited = [f.node for f in fr.frames if f.kind == "visit"]
    assert set(block) <= set(visited)
    last = fr.classes(len(fr) - 1)
    for nid in block:
        assert {"recomputed", "done", "has-grad"} <= set(last[f"n_{nid}"].split())


def test_the_nested_seed_continues_the_pass():
    tape, _, _ = recorded()
    fr = Frames(tape)
    seeds = [k for k, f in enumerate(fr.frames) if f.kind == "seeded"]
    assert len(seeds) == 2
    k = seeds[1]
    assert fr.frames[k].title.startswith("Backward · block segment[0:2]: seed")
    # nothing the pass already did is undone: passed edges and visited nodes stay
    assert set(fr.having(k - 1, "passed")) <= set(fr.having(k, "passed"))
    assert set(fr.having(k - 1, "done")) <= set(fr.having(k, "done"))
    assert all(not f.title.startswith("Backward 2") for f in fr.frames)


def test_the_blocks_gradient_for_its_inputs_is_not_a_second_use():
    tape, model, loss = recorded()
    fr = Frames(tape)
    w0 = model[0].weight
    into = [k for k, f in enumerate(fr.frames)
            if f.kind == "contribute" and f.edge.split("_")[2] == str(w0.id)]
    assert len(into) == 2  # the block's linear, then the checkpoint node handing it on
    assert "hands it on" in fr.frames[into[0]].text
    assert all("accumulated" not in fr.classes(k).get(f"n_{w0.id}", "") for k in into)
    # the final gradient shown is the real one
    assert np.array_equal(fr.grads(len(fr) - 1)[w0.id], w0.grad)


def test_a_ready_queue_pass_through_a_checkpoint_counts_each_contribution_once():
    tape, model, _ = recorded("ready-queue")
    fr = Frames(tape)
    w0 = model[0].weight
    notes = [fr.shown_grads(k)[w0.id] for k in range(len(fr))]
    pending = [getattr(g, "note", None) for g in notes]
    assert "pending 1" in pending and "ready" in pending
    assert not any(p == "pending 0" for p in pending)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_stepper_draws_and_restyles_the_recomputed_nodes(layout):
    model, x = model_and_input()
    s = step_through(lambda x: minigrad.checkpoint_sequential(model, 2, x).sum(), x,
                     layout=layout)
    assert s.template is not None, s.note
    k = next(k for k, f in enumerate(s.frames.frames) if f.kind == "recomputed")
    svg = s.render_svg(k)
    nid = s.frames.frames[k].node
    assert re.search(rf'<g id="n_{nid}" class="[^"]*\brecomputed\b', svg)
    assert re.search(r'<g id="n_\d+" class="[^"]*\bcheckpoint\b', svg)
    assert "recomputed: a checkpointed block" in s.to_html()
    assert "recomputed" in s.frames.class_strings(k)[s.frames.elements.index(f"n_{nid}")]


def test_a_tape_without_a_checkpoint_has_no_block_steps():
    s = step_through(lambda a, b: (a * b).tanh() + a, 2.0, -1.0)
    assert not s.frames.replay.recomputed and not s.frames.replay.nested
    assert all(f.kind != "recomputed" for f in s.frames.frames)
    assert isinstance(s, Stepper)


def test_a_block_with_two_outputs_seeds_each_in_turn():
    minigrad.manual_seed(0)
    lin = nn.Linear(3, 3)

    def heads(x):
        h = lin(x)
        return h.tanh(), (h * h).sum(axis=1)

    def f(x):
        a, b = minigrad.checkpoint(heads, x)
        return a.sum() + b.sum()

    fr = step_through(f, minigrad.tensor(np.ones((2, 3)), requires_grad=True),
                      layout="builtin").frames
    nested = [k for k, f in enumerate(fr.frames)
              if f.kind == "seeded" and "heads: seed" in f.title]
    assert len(nested) == 2
    for k in nested:
        assert "ends in one of its outputs" in fr.frames[k].text
        current_nodes = [i for i in fr.having(k, "current") if i.startswith("n_")]
        assert current_nodes == [f"n_{fr.frames[k].node}"]  # the one being seeded, alone
