"""Regression tests for viz problems found in QA that span the stepper and the
renderers: the final panel, parameter names, clearer errors, wording, the README's first
look and odd labels.  (What the stepper records of a student's gradients and inputs is
in ``test_recording_student_grads.py``, the cursor in ``test_cursor.py``.)"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad
import viz
from minigrad import Value, nn
from tests._helpers import FAKE_SVG, ROOT
from viz.stepper.frames import Frames
from viz.stepper.stepper import Stepper, step_through

# --- the final panel ----------------------------------------------------------------------


def test_final_panel_comes_from_the_recording_not_the_live_grad():
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        (a * 3.0).backward()
    a.grad = None  # e.g. zero_grad() before the stepper is made
    fr = Frames(tape, "backward")
    assert fr[len(fr) - 1].text.endswith("Gradients of the leaves: a.grad = 3.0000.")


# --- names --------------------------------------------------------------------------------


def test_panel_uses_the_scoped_parameter_names_of_the_picture():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    x = minigrad.Tensor(np.ones((1, 2), dtype=np.float32))
    with nn.record_scopes() as scopes, minigrad.record() as tape:
        model(x).sum().backward()
    s = Stepper(tape, mode="backward", scopes=scopes, svg=FAKE_SVG)
    s.last()
    names = re.findall(r"([\w.]+)\.grad = ", s.panel)
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"], s.panel
    assert any("added to 2.weight.grad" in f.text for f in s.frames.frames)
    named = dict(s.draw_options["params"])  # what the picture is drawn with
    assert {"0.weight", "0.bias", "2.weight", "2.bias"} <= set(named)


# --- errors -------------------------------------------------------------------------------


def test_a_node_passed_for_a_tape_is_named_as_such(tmp_path):
    y = Value(2.0) * 3.0
    for call in (lambda: Stepper(y), lambda: viz.export_html(y, tmp_path / "x.html")):
        with pytest.raises(TypeError, match=r"got a Value \(a graph node, not a tape\)"
                                            r".*viz\.step_through.*minigrad\.record"):
            call()
    with pytest.raises(TypeError, match="got a list"):
        Stepper([])


def test_draw_highlight_rejects_what_is_not_a_node():
    y = Value(2.0) * 3.0
    with pytest.raises(TypeError, match="highlight takes graph nodes.*float 3.5"):
        viz.draw(y, highlight=[3.5])
    with pytest.raises(TypeError, match="highlight takes"):
        viz.draw(y, highlight=["W"])
    assert viz.draw(y, highlight=[np.int64(y.id), f"n_{y.id}", y]).source  # all still fine


def test_an_empty_tape_is_as_empty_as_an_empty_list():
    with minigrad.record() as empty:
        pass
    for what in (empty, []):
        with pytest.raises(ValueError, match="nothing to show"):
            viz.draw(what)
        with pytest.raises(ValueError, match="nothing to show"):
            viz.text(what)


# --- wording and the README ---------------------------------------------------------------


def test_one_node_is_singular():
    a = Value(2.0, label="a")
    s = step_through(lambda v: v.exp(), a, mode="forward", svg=FAKE_SVG)
    assert s.frames[0].title == "Forward · start (1 node to create)"
    assert s.frames[0].text.startswith("Forward pass: 1 node is created, from values")
    two = step_through(lambda v: v.exp().exp(), a, mode="forward", svg=FAKE_SVG)
    assert two.frames[0].title == "Forward · start (2 nodes to create)"


def test_readme_first_look_snippet_keeps_its_promises(capsys):
    """The README's snippet runs as written, prints what its comment says, and the
    step-through at its end leaves a.grad and b.grad as c.backward() left them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## A first look", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert "viz.step_through(" in code
    ns: dict = {}
    exec(compile(code, "README.md", "exec"), ns)
    assert capsys.readouterr().out.splitlines()[0] == "-2.0 2.0"
    assert (ns["a"].grad, ns["b"].grad) == (-2.0, 2.0)


# --- found by fuzzing the renderers with odd labels and recordings ------------------------
def test_a_label_that_reads_like_a_gradient_is_not_the_gradient_slot():
    with minigrad.record() as tape:
        a = Value(2.0, label="grad 3.0000")
        b = Value(3.0, label="b")
        (a * b).backward()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", viz.Stepper(tape).render_svg(0))
    assert texts[:3] == ["grad 3.0000", "data 2.0000", "grad —"]  # name kept; grad not yet


def test_text_printer_keeps_one_line_per_node_with_a_newline_in_a_name():
    a = Value(1.0, label="line1\nline2")
    out = a * 2
    out.label = "L"
    out.backward()
    lines = viz.text(out).splitlines()
    assert len(lines) == 3 and "leaf line1\\nline2  data=1.0000" in lines[1]


def test_exported_html_escapes_script_like_labels_in_its_data():
    with minigrad.record() as tape:
        a = Value(1.0, label="<!--<script></script>")
        (a * 2.0).backward()
    page = viz.Stepper(tape).to_html()
    start = page.index('<script type="application/json"')
    block = page[start:page.index("</script>", start)]
    assert "<!--" not in block and "<script>" not in block.split(">", 1)[1]
    assert "\\u003c!--\\u003cscript>" in block


# --- a mistyped mode ----------------------------------------------------------------------


@pytest.mark.parametrize("typo, meant", [("forward_mode", "forward-mode"),
                                         ("backwards", "backward")])
def test_step_through_names_every_mode_and_the_nearest_before_running_fn(typo, meant):
    ran = []

    def f(a):
        ran.append(a)
        return a * 2.0

    with pytest.raises(ValueError) as err:
        step_through(f, 1.0, mode=typo)
    message = str(err.value)
    for mode in ("'forward'", "'backward'", "'both'", "'forward-mode'"):
        assert mode in message
    assert f"did you mean {meant!r}" in message
    assert ran == []  # refused before recording anything
