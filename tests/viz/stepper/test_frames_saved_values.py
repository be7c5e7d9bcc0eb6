"""The stepper shows saved values as they were at each step: kept until the recorded
backward freed them (``Frames.released_at``), never released when nothing was saved."""

from __future__ import annotations

import dataclasses
import re

import minigrad
from minigrad import Value
from tests._graphs import Cube
from tests._helpers import needs_dot
from viz.stepper.stepper import Stepper, step_through


def _companions(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<g id="(se?_\d+_\w+)" class="([^"]*)"', svg))


@needs_dot
def test_step_through_shows_a_functions_saved_values_until_backward_frees_them():
    s = step_through(lambda x: Cube.apply(x) * 2, 1.5)
    cube = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "Cube")
    assert cube.saved is None  # released by the recorded backward
    s.goto(2)
    assert "Cube" in s.panel.splitlines()[0]
    svg = s.render_svg()
    assert "saved: released" not in svg and "saved_tensors[0] = input 0" in svg
    end = s.frames.released_at[cube.id]
    visit = next(f.index for f in s.frames.frames if f.kind == "visit" and f.node == cube.id)
    assert end > visit  # freed once the visit (and its contributions) is over
    for i in range(len(s)):
        states = _companions(s.render_svg(i))
        assert "saved: released" not in s.render_svg(i)
        freed = "freed" in states[f"s_{cube.id}_0"].split()
        assert freed == (i >= end), i
    assert "released after its node's backward" in s.widget.markup  # the legend


def _recorded_cube(retain_graph: bool = False):
    """A tape of ``Cube.apply(x) * 2`` and its backward, recorded in one block."""
    with minigrad.record() as tape:
        y = Cube.apply(Value(1.5, label="x")) * 2
        y.backward(retain_graph=retain_graph)
    return tape, y


@needs_dot
def test_recorded_tape_shows_saved_values_until_their_release():
    # backward inside the block: the graph's values are gone before the Stepper sees
    # them, but the tape kept what each op saved when it was created
    tape, y = _recorded_cube()
    s = Stepper(tape)
    cube = y.parents[0]
    assert cube.saved is None
    end = s.frames.released_at[cube.id]
    for i in range(len(s)):
        svg = s.render_svg(i)
        assert "saved: released" not in svg and "saved_tensors[0] = input 0" in svg
        assert ("freed" in _companions(svg)[f"s_{cube.id}_0"].split()) == (i >= end), i


@needs_dot
def test_a_release_after_the_recording_is_not_shown_as_the_recordings():
    """retain_graph=True inside the block, then a plain backward outside it: the
    recorded pass released nothing, so the replay never strikes anything through."""
    tape, y = _recorded_cube(retain_graph=True)
    assert tape.released == set()
    y.backward()  # unrecorded: this one releases
    cube = y.parents[0]
    assert cube.saved is None
    s = Stepper(tape)
    assert s.frames.released_at == {}
    assert all("freed" not in c and "released" not in c
               for i in range(len(s)) for c in _companions(s.render_svg(i)).values())
    # released inside the block: recorded as such
    tape2, y2 = _recorded_cube()
    assert y2.parents[0].id in tape2.released
    assert y2.parents[0].id in Stepper(tape2).frames.released_at


@needs_dot
def test_a_tape_without_saved_values_never_claims_a_release_before_it_happened():
    """An event list recorded without saved values (an older or hand-made tape)."""
    tape, y = _recorded_cube()
    tape.events[:] = [dataclasses.replace(e, saved=None) if e.kind == "created" else e
                      for e in tape.events]
    s = Stepper(tape)
    cube = y.parents[0]
    end = s.frames.released_at[cube.id]
    for i in range(len(s)):
        states = _companions(s.render_svg(i))
        assert ("hidden" in states[f"s_{cube.id}_released"].split()) == (i < end), i
    # with retain_graph=True nothing is released, and the values show throughout
    tape2, y = _recorded_cube(retain_graph=True)
    s2 = Stepper(tape2)
    assert s2.frames.released_at == {}
    assert all("freed" not in c and "released" not in c
               for i in range(len(s2)) for c in _companions(s2.render_svg(i)).values())


@needs_dot
def test_an_op_that_saved_nothing_is_never_shown_as_released():
    s = step_through(lambda a, b: (a + b) * a, 2.0, -3.0, show_saved=True)
    add = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "add")
    for i in range(len(s)):
        assert f"s_{add.id}_released" not in s.render_svg(i)
