"""Regression tests for an instructor-path review of viz: saved-value labels, saved
values in the stepper, static notebooks, wrong options, module boxes, plot axes,
odd labels and numeric options."""

from __future__ import annotations

import dataclasses
import inspect
import re
import warnings

import numpy as np
import pytest

import minigrad
import viz
import viz.plots
from minigrad import Tensor, Value, nn
from minigrad.core.op import registered_ops
from tests._graphs import Cube
from tests._helpers import FAKE_SVG, needs_dot
from viz.stepper.page import step_payload
from viz.stepper.stepper import GradText, Stepper, step_through
from viz.stepper.template import SvgTemplate

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def saved_aliases(node) -> list:
    view = viz.build_view(node, show_saved=True)
    return [s.alias for s in view.node(node).saved]


# --- 1. what an op saved is labelled by what it is ----------------------------------------


def test_scalar_relu_saves_its_output_and_maximum_its_weights():
    # (ops.shared: as the tensor engine's.)  For x > 0 the scalar forward returns x
    # itself, the same float object as out, which is labelled out, as relu's rule names it.
    assert saved_aliases(Value(1.5).relu()) == ["out"]
    assert saved_aliases(Value(-1.5).relu()) == ["out"]
    a, b = Value(1.5), Value(0.5)
    assert saved_aliases(a.maximum(b)) == [None, None]  # the weights 1.0 and 0.0
    src = viz.draw(Value(1.5).relu(), show_saved=True).source
    assert "saved[0] = out" in src and "= input 0" not in src


@pytest.mark.parametrize("make", [lambda v: Value(v), lambda v: Tensor(np.array([v, 2 * v]),
                                                                        requires_grad=True),
                                  lambda v: Tensor(np.array(v), requires_grad=True)],
                         ids=["scalar", "tensor", "tensor-0d"])
def test_ops_that_save_their_output_still_say_out(make):
    # (a 0-d numpy op returns a scalar, which the tensor engine makes an array: the saved
    # output must be that same array, not the scalar, to be recognised as out)
    for fn in (lambda x: x.tanh(), lambda x: x.exp(), lambda x: x.sigmoid(),
               lambda x: x.sqrt(), lambda x: x.relu() if isinstance(x, Tensor) else x.tanh()):
        assert saved_aliases(fn(make(0.7))) == ["out"]
    assert saved_aliases(make(0.7) ** 2) == ["input 0", "input 1", "out"]
    x = make(0.7)
    assert saved_aliases(x * x) == ["input 0", "input 0"]


def _rule_names(op) -> list[str] | None:
    """The names a rule gives the saved values: ``rule(g, x)`` -> ``["x"]``."""
    try:
        params = list(inspect.signature(op.grads[0]).parameters.values())
    except (TypeError, ValueError, IndexError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    return [p.name for p in params[1:] if p.kind is p.POSITIONAL_OR_KEYWORD]


def _scalar_nodes(op):
    for t in (0.2, 0.8):  # both halves of the domain: ReLU's kink, max's tie side
        xs = [Value(lo + t * (hi - lo)) for lo, hi in op.domain]
        yield xs[0]._unary(op) if op.arity == 1 else xs[0]._binary(op, xs[1])


def _tensor_nodes(op):
    for inputs, attrs in op.cases(np.random.default_rng(0))[:3]:
        xs = [Tensor(np.asarray(x), requires_grad=np.asarray(x).dtype.kind == "f")
              for x in inputs]
        if not any(x.requires_grad for x in xs):
            continue
        out = minigrad.apply_op(op, *xs, **attrs)
        # (a multi-output op's saved values are its record's, its outputs' one parent)
        yield out[0].parents[0] if isinstance(out, tuple) else out


BUILT_IN_OPS = [op for op in registered_ops()
                if op.engine in ("scalar", "tensor") and (op.domain or op.cases)]


@pytest.mark.parametrize("op", BUILT_IN_OPS, ids=lambda op: f"{op.engine}.{op.name}")
def test_every_ops_saved_values_are_labelled_as_its_rules_name_them(op):
    """A saved value the rule calls ``out`` is labelled out; one it calls anything
    else (x, a, b, p, a mask ...) is never labelled out.  (Unlabelled is allowed: a
    0-d tensor op saves a numpy scalar, not the array its node holds.)"""
    names = _rule_names(op)
    nodes = _scalar_nodes(op) if op.engine == "scalar" else _tensor_nodes(op)
    for node in nodes:
        if node.op is not op or not node.saved or names is None:
            continue
        for name, alias in zip(names, saved_aliases(node)):
            if alias is not None:
                assert (alias == "out") == (name == "out"), (op.name, name, alias)


# --- 2. the stepper shows saved values as they were at each step ------------------------


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
    assert "saved: released" not in svg and "saved[0] = input 0" in svg
    end = s.frames.released_at[cube.id]
    visit = next(f.index for f in s.frames.frames if f.kind == "visit" and f.node == cube.id)
    assert end > visit  # freed once the visit (and its contributions) is over
    for i in range(len(s)):
        states = _companions(s.render_svg(i))
        assert "saved: released" not in s.render_svg(i)
        freed = "freed" in states[f"s_{cube.id}_0"].split()
        assert freed == (i >= end), i
        assert ("freed" in s.step_css(i)) == (i >= end)
    assert "released after its node's backward" in s.widget.panel.value


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
        assert "saved: released" not in svg and "saved[0] = input 0" in svg
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


def test_player_payload_replays_the_saved_value_states():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><g id="n_1" class="node"></g>'
           '<g id="n_2" class="node"></g><g id="s_2_0" class="node saved"></g>'
           '<g id="s_2_released" class="node saved released"></g></svg>')
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        y = Cube.apply(a)
        y.backward()
    fr = Stepper(tape, svg=svg).frames
    svg = svg.replace("n_1", f"n_{a.id}").replace("2", str(y.id))
    t = SvgTemplate(svg, fr.elements)
    payload = step_payload(fr, t, GradText())
    states = [""] * len(t.companions)
    seen = []
    for k, f in enumerate(payload["frames"]):
        for j, st in f["s"]:
            states[j] = st
        assert states == t.companion_classes(fr.class_strings(k), fr.released(k))
        seen.append(tuple(states))
    assert ("", "hidden") in seen and ("freed", "") in seen


# --- 3. static=True: the player itself is the output ------------------------------------


def test_static_output_is_the_player_alone_so_nbconvert_renders_it():
    static = step_through(lambda a: a * 2, 1.0, svg=FAKE_SVG, static=True)
    bundle = static._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}  # no widget view to win over it
    assert 'class="mg-stepper mg-player"' in bundle["text/html"]
    live = step_through(lambda a: a * 2, 1.0, svg=FAKE_SVG)._repr_mimebundle_()
    assert set(live) == {"text/plain", "text/html", WIDGET_MIME}  # the player for saved files


# --- 4. wrong options fail at the call ------------------------------------------------------


def test_wrong_draw_options_raise_at_the_call():
    with pytest.raises(ValueError, match="rankdir must be one of"):
        step_through(lambda x, y: x * y + x, 1.0, 2.0, rankdir="tb")
    with pytest.raises(TypeError, match=r"unknown option 'rank_dir' \(did you mean 'rankdir'\?\)"):
        step_through(lambda x, y: x * y + x, 1.0, 2.0, rank_dir="TB")
    with minigrad.record() as tape:
        a = Value(2.0)
        (a * a).backward()
    with pytest.raises(TypeError, match="highlight"):
        Stepper(tape, highlight=[object()])
    with pytest.raises(ValueError, match="digits"):
        Stepper(tape, digits=-1, svg=FAKE_SVG)


def test_missing_dot_still_steps_and_export_warns_why(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot anywhere, and dot asked for
    s = step_through(lambda x: x * 2, 1.0, layout="dot")
    assert s.template is None and "not installed" in s.note
    with pytest.warns(RuntimeWarning, match="no graph.*not installed"):
        s.save_html(tmp_path / "a.html")
    with pytest.warns(RuntimeWarning, match="no graph"):
        viz.export_html(s, tmp_path / "b.html")
    assert "mg-nograph" in (tmp_path / "a.html").read_text(encoding="utf-8")


@needs_dot
def test_export_with_a_graph_does_not_warn(tmp_path):
    s = step_through(lambda x: x * 2, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.save_html(tmp_path / "a.html")


# --- 5. module boxes ----------------------------------------------------------------------


def test_module_boxes_are_refused_by_the_stepper_with_the_alternative():
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    with nn.record_scopes() as scopes, minigrad.record() as tape:
        model(Tensor(np.ones((2, 2), np.float32))).sum().backward()
    with pytest.raises(ValueError, match="modules='cluster'"):
        Stepper(tape, params=model, scopes=scopes, modules="box")
    s = Stepper(tape, params=model, scopes=scopes, svg=FAKE_SVG)  # clusters are fine
    assert len(s) > 0


# --- 6. ax= for every plot -------------------------------------------------------------------


def test_every_plot_function_takes_ax():
    for name in viz.plots.__all__:
        assert "ax" in inspect.signature(getattr(viz.plots, name)).parameters, name


def test_plot_history_draws_into_given_axes():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert viz.plot_history({"loss": [1, 0.5], "val_loss": [1.2, 0.8]}, ax=ax) is fig
    assert ax.get_title() == "loss" and len(ax.get_lines()) == 2 and len(fig.axes) == 1
    fig2, axes = plt.subplots(1, 2)
    assert viz.plot_history({"loss": [1, 0.5], "acc": [0.2, 0.6]}, ax=axes) is fig2
    assert [a.get_title() for a in axes] == ["loss", "acc"]
    with pytest.raises(ValueError, match="2 panel"):
        viz.plot_history({"loss": [1, 0.5], "acc": [0.2, 0.6]}, ax=ax)
    plt.close("all")


# --- 7. odd labels and numeric options ------------------------------------------------------


@needs_dot
@pytest.mark.parametrize("label, shown", [("esc\x1b[31m", "esc\\x1b[31m"), ("\x00", "\\x00"),
                                          ("x\ny", "x\\ny"), ("lone\ud800", "lone\\ud800")])
def test_control_characters_in_labels_draw_and_read_the_same_everywhere(label, shown):
    a = Value(1.0, label=label)
    c = a * 2
    c.backward()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", viz.draw(c).svg())
    assert shown in texts
    assert f"leaf {shown}  data=" in viz.text(c)
    s = step_through(lambda v: v * 2, Value(1.0, label=label), mode="backward")
    s.last()
    assert f"{shown}.grad = 2.0" in s.panel and s.template is not None


@pytest.mark.parametrize("call, match", [
    (lambda c: viz.text(c, digits=-1), "digits must be an integer >= 0"),
    (lambda c: viz.text(c, width=0), "width must be None or an integer >= 1"),
    (lambda c: viz.text(c, preview=-2), "preview"),
    (lambda c: viz.text(c, max_indent=-1), "max_indent"),
    (lambda c: viz.draw(c, digits=-1), "digits"),
    (lambda c: viz.draw(c, depth=0), "depth"),
    (lambda c: viz.draw(c, max_nodes=0), "max_nodes"),
])
def test_numeric_options_are_checked_with_a_clear_error(call, match):
    c = Value(2.0) * 3.0
    with pytest.raises(ValueError, match=match):
        call(c)
    with pytest.raises(TypeError, match="digits must be an integer"):
        viz.text(c, digits=2.5)
    assert "data=6.00" in viz.text(c, digits=2)


@needs_dot
def test_an_op_that_saved_nothing_is_never_shown_as_released():
    s = step_through(lambda a, b: (a + b) * a, 2.0, -3.0, show_saved=True)
    add = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "add")
    for i in range(len(s)):
        assert f"s_{add.id}_released" not in s.render_svg(i)


def test_a_stepper_over_a_large_graph_does_not_suggest_a_refused_option():
    s = step_through(lambda a, b: a * b + a * a - b, 2.0, -3.0, max_nodes=3)
    assert s.note.startswith("graph not drawn: ") and "max_nodes=3" in s.note
    assert "box" not in s.note
