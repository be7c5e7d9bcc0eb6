"""The memory strip (issue #18): saved bytes alive per step of a replay, counted as
``minigrad.memory.ledger`` counts them, in the panel, the widget and the player."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

import minigrad
from minigrad import Value, func, nn
from minigrad.memory import format_bytes, ledger
from viz.stepper.memory_strip import MemoryTrack, strip_html, strip_svg
from viz.stepper.stepper import Stepper, step_through

MEMORY = re.compile(r"^memory: .*saved now (\S+ \S+), peak (\S+ \S+)$", re.M)


def mlp(segments: int | None):
    """A fresh seeded MLP and its input, and the function step_through and ledger run."""
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(),
                          nn.Linear(4, 1))
    x = minigrad.tensor(np.linspace(-1, 1, 6).reshape(2, 3))

    def f(x):
        out = model(x) if segments is None else minigrad.checkpoint_sequential(model, segments, x)
        return (out * out).sum()

    return f, x


def ends_of_visits(s) -> list[int]:
    """The step at which each visit's effects are complete: the next visit, or the end."""
    visits = [k for k, f in enumerate(s.frames.frames) if f.kind == "visit"]
    return visits[1:] + [len(s) - 1]


@pytest.mark.parametrize("segments", [None, 2])
def test_the_strip_matches_the_ledger_of_the_same_backward_pass(segments):
    f, x = mlp(segments)
    s = step_through(f, x, memory=True)
    f, x = mlp(segments)
    book = ledger(f(x))
    track = s.memory
    # the replayed ledger is the live one, step for step
    assert track.ledger.series()["alive"] == book.series()["alive"]
    assert track.ledger.series()["freed"] == book.series()["freed"]
    assert track.ledger.series()["peak"] == book.series()["peak"]
    # and each visit's step k of the ledger is what the strip shows once that visit is over
    ends = ends_of_visits(s)
    assert len(ends) == len(book.steps) - 1
    for k, i in enumerate(ends, 1):
        assert track.alive[i] == book.steps[k].alive, (k, i)
        assert track.peak[i] == book.steps[k].peak, (k, i)
    start = next(k for k, fr in enumerate(s.frames.frames) if fr.kind == "seeded")
    assert track.alive[start] == book.start
    assert track.alive[-1] == book.alive == 0
    assert track.top == book.peak


def test_memory_falls_during_backward_and_rises_during_forward():
    f, x = mlp(None)
    s = step_through(f, x, memory=True)
    fwd = [s.memory.alive[k] for k, fr in enumerate(s.frames.frames) if fr.phase == "forward"]
    bwd = [s.memory.alive[k] for k, fr in enumerate(s.frames.frames) if fr.phase == "backward"]
    assert fwd == sorted(fwd) and fwd[-1] > 0
    assert bwd == sorted(bwd, reverse=True) and bwd[-1] == 0
    assert s.memory.top == max(s.memory.alive)


def test_each_step_says_what_it_freed_and_what_is_left():
    f, x = mlp(None)
    s = step_through(f, x, memory=True)
    track = s.memory
    tanh_freed = 0
    for k, fr in enumerate(s.frames.frames):
        m = MEMORY.search(fr.text)
        assert m, (k, fr.text)
        assert m.groups() == (format_bytes(track.alive[k]), format_bytes(track.peak[k]))
        for node, size in track.freed[k]:
            if node.op.name == "tanh":
                assert f"freed tanh ({s.frames.name(node)})'s saved output: " \
                       f"{format_bytes(size)}" in fr.text
                assert size == node.data.nbytes  # tanh's output was saved by no one else
                tanh_freed += 1
    assert tanh_freed == 2
    assert s.panel.splitlines()[-1].startswith("memory: ")


def test_a_vmapped_function_holds_every_examples_saved_values():
    # vmap's values are batches whose shape is one example's: the strip weighs all of them,
    # as the ledger of the same function on the stacked batch does
    def f(w, x):
        return (x * w).tanh().sum()

    rng = np.random.default_rng(0)
    w, xs = rng.normal(size=3), rng.normal(size=(5, 3))
    s = step_through(func.vmap(f, in_dims=(None, 0)), w, xs, memory=True)
    stacked = ledger((minigrad.tensor(xs, requires_grad=True) * minigrad.tensor(w)).tanh().sum())
    assert s.memory.top == stacked.peak == 2 * xs.nbytes + w.nbytes  # mul: x, w; tanh: out
    assert s.memory.alive[-1] == 0
    assert f"peak {format_bytes(stacked.peak)}" in s.frames[len(s) - 1].text


def test_a_shared_buffer_is_freed_with_its_last_holder():
    # mul saves tanh's output, which tanh saved too: freeing mul frees nothing yet
    with minigrad.record() as tape:
        a = minigrad.tensor(np.ones(4), requires_grad=True)
        t = a.tanh()
        loss = (t * t).sum()
        loss.backward()
    s = Stepper(tape, memory=True)
    mul = next(n for n in tape.nodes if n.op is not None and n.op.name == "mul")
    k = next(k for k, fr in enumerate(s.frames.frames)
             if any(n is mul for n, _ in s.memory.freed[k]))
    assert dict((n.id, b) for n, b in s.memory.freed[k])[mul.id] == 0
    assert "still saved by another node" in s.frames[k].text


def test_the_recompute_step_allocates_again():
    f, x = mlp(2)
    s = step_through(f, x, memory=True)
    steps = [k for k, fr in enumerate(s.frames.frames) if fr.kind == "recomputed"]
    assert steps
    for k in steps:
        assert s.memory.allocated[k] > 0
        assert s.memory.alive[k] == s.memory.alive[k - 1] + s.memory.allocated[k] - sum(
            b for _, b in s.memory.freed[k])
        assert f"the recompute saves {format_bytes(s.memory.allocated[k])} again" in \
            s.frames[k].text


def test_memory_is_opt_in_and_leaves_the_panel_alone_by_default():
    s = step_through(lambda a, b: (a * b).tanh(), 2.0, -1.0)
    assert s.memory is None
    assert "memory:" not in s.panel
    assert 'class="mg-memory"' not in s.to_html()


def test_memory_needs_a_backward_pass():
    with pytest.raises(ValueError, match="needs a replay with a backward pass"):
        step_through(lambda a: a.tanh(), 0.5, mode="forward", memory=True)
    with pytest.raises(ValueError, match="backward pass"):
        step_through(lambda a: a.tanh(), 0.5, mode="forward-mode", memory=True)


def test_the_strip_draws_one_bar_per_step_with_the_current_one_marked():
    f, x = mlp(None)
    s = step_through(f, x, memory=True)
    n = len(s)
    i = n // 2 + 3
    svg = strip_svg(s.memory, i)
    assert svg.count('class="mg-mem-bar') == n
    assert re.findall(r'class="mg-mem-bar mg-mem-now" data-k="(\d+)"', svg) == [str(i)]
    assert len(re.findall(r"mg-mem-future", svg)) == n - 1 - i
    assert f"peak {format_bytes(s.memory.top)}" in svg


def test_the_player_carries_every_steps_numbers():
    f, x = mlp(None)
    s = step_through(f, x, memory=True)
    page = s.to_html()
    assert page.count('class="mg-memory"') == 1
    assert 'data-mg-memory="' in page
    part = strip_html(s.memory, 0)
    assert "<script>" in part and "<script>" not in strip_html(s.memory, 0, script=False)


def test_the_widget_redraws_the_strip_per_step():
    pytest.importorskip("ipywidgets")
    f, x = mlp(None)
    s = step_through(f, x, memory=True)
    w = s.widget  # the strip is in the widget's markup, with every step's numbers; the
    # player's module redraws it per step (tests/browser/test_memory_strip_browser.py)
    strip = re.search(r'<div class="mg-memory" data-mg-memory="([^"]*)"', w.markup)
    lines = json.loads(html.unescape(strip.group(1)))["lines"]
    assert lines == [s.memory.line(k) for k in range(len(s))]
    assert "<script>" not in w.markup  # (nothing runs from the markup: the module does it)
    assert 'class="mg-memory"' not in step_through(lambda a: a.tanh(), 0.5).widget.markup


def test_values_scalar_engine_counts_floats():
    s = step_through(lambda a, b: (a * b).tanh(), Value(2.0), Value(-1.0), memory=True)
    assert isinstance(s.memory, MemoryTrack)
    assert s.memory.top > 0 and s.memory.alive[-1] == 0
