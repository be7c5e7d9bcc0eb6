"""How the engine runs, in the step-through (issue #18): the ready-queue scheduler's
pending counts and queue, gradient hooks, and multi-output ops, driven without a kernel."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import minigrad
import viz
from minigrad import Value
from viz.stepper.engine_notes import Badged, unbadged
from viz.stepper.frames import Frames
from viz.stepper.page import legend
from viz.stepper.stepper import step_through
from viz.stepper.template import grad_strings

LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]
QUEUE = re.compile(r"^ready queue: (.*)$", re.M)


def clip(g):
    return max(-1.0, min(1.0, g))


def hooked_h(a, b):
    """h = a·b is used twice, and a hook clips its gradient."""
    h = a * b
    h.label = "h"
    h.register_hook(clip)
    return h.tanh() + h * a


def record(fn, *values, scheduler="ready-queue"):
    with minigrad.record() as tape:
        leaves = [Value(v, label=name) for v, name in zip(values, "abc")]
        out = fn(*leaves)
        out.backward(scheduler=scheduler)
    return tape, leaves, out


def backward_steps(fr):
    return [k for k, f in enumerate(fr.frames) if f.phase == "backward"]


def contributions_to(fr, node_id, after: int) -> int:
    """How many contributions reach the node in the frames after step ``after``."""
    return sum(1 for f in fr.frames[after + 1:]
               if f.kind == "contribute" and f.edge.split("_")[2] == str(node_id))


def test_each_node_counts_its_pending_contributions_down():
    tape, _, _ = record(hooked_h, 2.0, -3.0)
    fr = Frames(tape)
    text = viz.stepper.stepper.GradText()
    seed = next(k for k, f in enumerate(fr.frames) if f.kind == "seeded")
    waiting = [n for n in fr.nodes if n.requires_grad and n.id != fr.frames[seed].node]
    assert waiting
    for k in backward_steps(fr)[1:]:
        shown = grad_strings(fr, k, text)
        for n in waiting:
            left = contributions_to(fr, n.id, k)
            visited = any(f.kind == "visit" and f.node == n.id for f in fr.frames[seed:k + 1])
            if visited:  # it ran: no count any more
                assert "pending" not in shown[f"n_{n.id}"] and "ready" not in shown[f"n_{n.id}"]
            elif left:
                assert shown[f"n_{n.id}"].endswith(f" · pending {left}"), (k, n, shown)
            else:
                assert shown[f"n_{n.id}"].endswith(" · ready"), (k, n, shown)


def test_a_node_is_ready_from_its_last_contribution_until_it_runs():
    tape, _, _ = record(hooked_h, 2.0, -3.0)
    fr = Frames(tape)
    for f in fr.frames:
        if f.kind != "contribute":
            continue
        parent = int(f.edge.split("_")[2])
        ready = f"n_{parent}" in fr.having(f.index, "ready")
        assert ready == (contributions_to(fr, parent, f.index) == 0), f.title
    for f in fr.frames:
        if f.kind == "visit":
            assert f"n_{f.node}" not in fr.having(f.index, "ready")
            assert f"n_{f.node}" in fr.having(f.index - 1, "ready")
    leaves = [n for n in fr.nodes if n.op is None]
    assert {f"n_{n.id}" for n in leaves} <= set(fr.having(len(fr) - 1, "ready"))


def test_every_backward_step_shows_the_ready_queue_next_first():
    tape, _, _ = record(hooked_h, 2.0, -3.0)
    fr = Frames(tape)
    by_name = {fr.name(n): n for n in fr.nodes}
    for k in backward_steps(fr):
        lines = QUEUE.findall(fr.frames[k].text)
        assert len(lines) == 1, fr.frames[k].title
        listed = [] if lines[0] == "empty" else lines[0].split(", ")
        names = [re.fullmatch(r"\w+ \((.+)\)", item).group(1) for item in listed]
        queued = [by_name[name] for name in names]
        # the queue is the op nodes waiting with class "ready", newest (largest id) first
        ready_ops = [n for n in fr.nodes if n.op is not None
                     and f"n_{n.id}" in fr.having(k, "ready")]
        assert [n.id for n in queued] == sorted((n.id for n in ready_ops), reverse=True)
        assert all(item.startswith(n.op.name + " ") for item, n in zip(listed, queued))
    assert any(QUEUE.findall(fr.frames[k].text) != ["empty"] for k in backward_steps(fr))


def test_the_depth_first_replay_has_no_counts_and_no_queue():
    tape, _, _ = record(lambda a, b: (a * b).tanh() + a, 2.0, -3.0, scheduler="sorted")
    fr = Frames(tape)
    text = viz.stepper.stepper.GradText()
    assert not any("ready queue" in f.text for f in fr.frames)
    assert "ready" not in fr.states
    for k in range(len(fr)):
        assert not any("pending" in t for t in grad_strings(fr, k, text).values())
    assert "ready:" not in legend(None, "both", fr.view, fr.states)


@pytest.mark.parametrize("scheduler", ["sorted", "ready-queue"])
def test_a_hook_that_replaced_a_gradient_has_a_step_of_its_own(scheduler):
    tape, (a, b), _ = record(hooked_h, 2.0, -3.0, scheduler=scheduler)
    fr = Frames(tape)
    h = next(n for n in fr.nodes if n.label == "h")
    hooked = [f for f in fr.frames if f.kind == "hooked"]
    assert len(hooked) == 1 and hooked[0].node == h.id
    k = hooked[0].index
    before = 1 - math.tanh(h.data) ** 2 + a.data  # d out/dh, both uses
    after = clip(before)
    assert before != after
    say = fr.say
    assert (f"hook `clip` on h changed its gradient: {say.value(before)} → {say.value(after)}"
            in hooked[0].text)
    assert fr.having(k, "hooked") == [f"n_{h.id}"]
    assert not any("hooked" in fr.classes(i).get(f"n_{h.id}", "") for i in range(len(fr))
                   if i != k)
    assert fr.grads(k - 1)[h.id] == pytest.approx(before)
    assert fr.grads(k)[h.id] == pytest.approx(after)
    visit = next(f for f in fr.frames if f.kind == "visit" and f.node == h.id)
    assert visit.index > k  # the hook runs before h's rules use its gradient
    assert fr.grads(len(fr) - 1)[a.id] == pytest.approx(a.grad)


def test_a_hook_on_a_leaf_shows_after_its_last_contribution():
    def fn(a, b):
        a.register_hook(lambda g: g * 0 + 0.5)
        return a * b + a

    tape, (a, b), _ = record(fn, 2.0, -3.0)
    fr = Frames(tape)
    (step,) = [f for f in fr.frames if f.kind == "hooked"]
    assert step.node == a.id
    assert contributions_to(fr, a.id, step.index) == 0
    assert "on a changed its gradient" in step.text
    assert fr.grads(len(fr) - 1)[a.id] == a.grad == 0.5


def test_step_through_records_the_ready_queue_order():
    s = step_through(hooked_h, 2.0, -3.0, scheduler="ready-queue", svg="<svg></svg>")
    assert "ready" in s.frames.states and "hooked" in s.frames.states
    assert any("ready queue:" in f.text for f in s.frames.frames)
    plain = step_through(hooked_h, 2.0, -3.0, svg="<svg></svg>")
    assert "ready" not in plain.frames.states and "hooked" in plain.frames.states
    # the same gradients either way
    ends = [list(st.frames.grads(len(st) - 1).values()) for st in (s, plain)]
    assert ends[0] == pytest.approx(ends[1])


def test_step_through_refuses_an_unknown_scheduler_or_one_with_create_graph():
    with pytest.raises(ValueError, match="scheduler must be one of"):
        step_through(hooked_h, 2.0, -3.0, scheduler="bfs")
    with pytest.raises(ValueError, match="create_graph=True records autograd.grad"):
        step_through(lambda x: x.tanh(), 0.5, create_graph=True, scheduler="ready-queue")


def _text_in(svg: str, key: str) -> list[str]:
    m = re.search(rf'<g id="{key}" class="[^"]*"[^>]*>(.*?)</g>', svg, re.S)
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", m.group(1))]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_card_shows_the_count_in_both_layouts(layout):
    s = step_through(hooked_h, 2.0, -3.0, scheduler="ready-queue", layout=layout)
    assert s.template is not None, s.note
    fr = s.frames
    seed = next(k for k, f in enumerate(fr.frames) if f.kind == "seeded")
    a = next(n for n in fr.nodes if n.label == "a")
    left = contributions_to(fr, a.id, seed)
    assert left == 2  # used by h and by h·a
    svg = s.render_svg(seed)
    assert f"grad — · pending {left}" in _text_in(svg, f"n_{a.id}")
    assert f"n_{a.id}" in s.template.grad_nodes  # a slot the player and widget restyle
    last = s.render_svg(len(s) - 1)
    assert any(t.endswith(" · ready") for t in _text_in(last, f"n_{a.id}"))


def test_the_legend_names_ready_and_hooked_when_used():
    s = step_through(hooked_h, 2.0, -3.0, scheduler="ready-queue", svg="<svg></svg>")
    key = legend(None, "both", s.frames.view, s.frames.states)
    assert "ready:" in key and "a hook replaced the gradient" in key


def test_a_badged_gradient_reads_as_its_value():
    assert unbadged(Badged(1.5, "ready")) == 1.5
    assert unbadged(2.0) == 2.0
    text = viz.stepper.stepper.GradText()
    assert text(Value(1.0), Badged(None, "pending 2")) == "grad — · pending 2"


# --- multi-output ops ---------------------------------------------------------------
def pieces(x):
    return (x.split(2)[0] * 2).sum() + x.split(2)[1].tanh().sum()


X = np.arange(4.0).reshape(4, 1) / 4


def test_forward_reveals_the_record_then_its_outputs():
    s = step_through(pieces, X, svg="<svg></svg>")
    fr = s.frames
    created = [fr.nodes[[n.id for n in fr.nodes].index(f.node)] for f in fr.frames
               if f.kind == "created"]
    records = [i for i, n in enumerate(created) if n.op is not None and n.op.name == "split"]
    assert len(records) == 2
    for i in records:
        outs = created[i + 1:i + 3]
        assert [o.op.name for o in outs] == ["output", "output"]
        assert [o.parents[0].id for o in outs] == [created[i].id] * 2
    end = next(f for f in fr.frames if f.kind == "end" and f.phase == "forward")
    assert end.text.count(" = ") == 1  # the result only, not the unused pieces


def test_backward_says_which_outputs_got_zeros_and_sums_right():
    s = step_through(pieces, X, svg="<svg></svg>")
    fr = s.frames
    assert not any("OutputGrads(" in f.text for f in fr.frames)
    visits = [f for f in fr.frames if f.kind == "visit" and f.title.endswith("(split)")]
    assert len(visits) == 2
    assert all("Nothing used output" in f.text and "zeros" in f.text for f in visits)
    x = minigrad.Tensor(X, requires_grad=True)
    pieces(x).backward()
    leaf = next(n for n in fr.nodes if n.op is None and n.requires_grad)
    np.testing.assert_allclose(fr.grads(len(fr) - 1)[leaf.id], x.grad)
    unused = [n for n in fr.nodes if n.op is not None and n.op.name == "output"
              and not any(n.id == p.id for m in fr.nodes for p in m.parents)]
    assert len(unused) == 2
    assert all(fr.view.node(n.id).role == "intermediate" for n in unused)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_record_card_has_no_shape_row(layout):
    s = step_through(pieces, X, layout=layout)
    assert s.template is not None, s.note
    record = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "split")
    texts = _text_in(s.render_svg(len(s) - 1), f"n_{record.id}")
    assert not any("None" in t for t in texts), texts
