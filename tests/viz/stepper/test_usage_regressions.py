"""Regression tests for viz problems found in QA: the stepper and a student's gradients,
parameter names, clearer errors, integer inputs and the cursor."""

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

# --- step_through and the student's own gradients -----------------------------------------


def test_step_through_shows_this_pass_and_leaves_the_students_grads_alone():
    """The README's first look: a and b already hold gradients from c.backward()."""
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = a * b + a
    c.backward()
    (a * a).backward()  # something else accumulated on top: a.grad = -2 + 4
    before = (a.grad, b.grad)

    s = step_through(lambda a, b: a * b + a, a, b, svg=FAKE_SVG)
    assert (a.grad, b.grad) == before == (2.0, 2.0)
    texts = [f.text for f in s.frames.frames if f.kind == "contribute"]
    assert "added to a.grad: — → 1.0000" in texts[1]  # this pass starts from nothing
    assert "added to a.grad: 1.0000 → -2.0000" in texts[2]
    s.last()
    assert s.panel.endswith("Gradients of the leaves: a.grad = -2.0000, b.grad = 2.0000.")
    assert s.frames.grads(len(s) - 1)[a.id] == -2.0


def test_step_through_restores_tensor_grads():
    x = minigrad.Tensor(np.array([1.0, 2.0]), requires_grad=True, name="x")
    (x * x).sum().backward()
    s = step_through(lambda x: (x * 3.0).sum(), x, svg=FAKE_SVG)
    np.testing.assert_array_equal(x.grad, [2.0, 4.0])
    np.testing.assert_array_equal(s.frames.grads(len(s) - 1)[x.id], [3.0, 3.0])


def test_step_through_on_an_intermediate_leaves_its_graph_usable():
    """Stepping through ``h * 2`` for an intermediate ``h`` of the student's graph used
    to release that graph's saved values: their own ``L.backward()`` then failed."""
    a = Value(2.0, label="a")
    h = a * 3.0
    L = h * h
    s = step_through(lambda h: h * 2.0, h, svg=FAKE_SVG)
    assert s.frames.grads(len(s) - 1)[a.id] == 6.0  # the recorded pass went through h
    assert a.grad is None  # and was set aside
    L.backward()
    assert a.grad == 2 * 6.0 * 3.0

    x = minigrad.Tensor(np.array([1.0, -2.0]), requires_grad=True)
    t = x.tanh()
    loss = (t * t).sum()
    step_through(lambda t: (t * 2.0).sum(), t, svg=FAKE_SVG)
    loss.backward()
    np.testing.assert_allclose(x.grad, 2 * t.data * (1 - t.data ** 2))


def test_step_through_of_fresh_inputs_still_releases_its_graph():
    """Only an earlier graph is kept: the recorded graph itself is released as usual."""
    s = step_through(lambda a, b: a * b, 2.0, 3.0, svg=FAKE_SVG)
    assert all(n.saved is None for n in s.frames.nodes if n.op is not None)


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


def test_step_through_of_a_function_returning_its_input():
    with pytest.raises(ValueError, match="returned its input 'a' unchanged"):
        step_through(lambda a: a, 1.0)
    with pytest.raises(ValueError, match="returned a leaf"):
        step_through(lambda a: Value(3.0), 1.0)


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


# --- inputs -------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [np.arange(3), [0, 1, 2], np.array([0, 1, 2], dtype=np.int8),
                                  np.array([False, True, True])])
def test_integer_inputs_become_float32_like_lists(data):
    s = step_through(lambda a: (a * 2.0).sum(), data, svg=FAKE_SVG)
    leaf = s.frames.nodes[0]
    assert leaf.data.dtype == np.float32
    np.testing.assert_array_equal(s.frames.grads(len(s) - 1)[leaf.id], [2.0, 2.0, 2.0])


def test_float64_arrays_keep_their_dtype_and_strings_are_refused():
    s = step_through(lambda a: (a * 2.0).sum(), np.arange(3.0), svg=FAKE_SVG)
    assert s.frames.nodes[0].data.dtype == np.float64
    with pytest.raises(TypeError, match="step_through: input 'a' is an array of dtype"):
        step_through(lambda a: a.sum(), np.array(["x"]))


# --- wording and the cursor ---------------------------------------------------------------


def test_one_node_is_singular():
    a = Value(2.0, label="a")
    s = step_through(lambda v: v.exp(), a, mode="forward", svg=FAKE_SVG)
    assert s.frames[0].title == "Forward · start (1 node to create)"
    assert s.frames[0].text.startswith("Forward pass: 1 node is created, from values")
    two = step_through(lambda v: v.exp().exp(), a, mode="forward", svg=FAKE_SVG)
    assert two.frames[0].title == "Forward · start (2 nodes to create)"


def test_goto_takes_list_style_indices_and_only_integers():
    s = step_through(lambda a, b: a * b + a, 2.0, 3.0, svg=FAKE_SVG)
    n = len(s)
    s.goto(-1)
    assert s.step == n - 1
    s.goto(-2)
    assert s.step == n - 2
    s.goto(-10 * n)  # out of range is clamped, as for big positive steps
    assert s.step == 0
    s.prev()  # prev at the first step stays there (it is not goto(-1))
    assert s.step == 0
    s.goto(np.int64(3))
    assert s.step == 3
    for bad in (1.5, 2.0, "3", None):
        with pytest.raises(TypeError, match="the step must be an integer"):
            s.goto(bad)
    assert s.step == 3


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


def test_a_second_forward_pass_after_a_backward_is_replayed():
    with minigrad.record() as tape:
        a, b = Value(2.0, label="a"), Value(3.0, label="b")
        (a * b).backward()
        c = Value(5.0, label="c")
        second = (a + c) * b
        second.label = "L2"
        second.backward()
    stepper = viz.Stepper(tape)
    assert "6 nodes" in stepper.panel and "before recording" not in stepper.panel
    stepper.goto(-1)
    assert "a.grad = 6.0000, b.grad = 9.0000, c.grad = 3.0000" in stepper.panel
