"""What a ``Stepper`` shows and refuses: the static output nbconvert renders, wrong draw
options at the call, a missing ``dot``, module boxes, a graph too large to draw."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad
import viz
from minigrad import Tensor, Value, nn
from tests._helpers import FAKE_SVG, needs_dot
from viz.stepper.stepper import Stepper, step_through

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


# --- static=True: the player itself is the output ------------------------------------


def test_static_output_is_the_player_alone_so_nbconvert_renders_it():
    static = step_through(lambda a: a * 2, 1.0, svg=FAKE_SVG, static=True)
    bundle = static._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}  # no widget view to win over it
    assert 'class="mg-stepper mg-player"' in bundle["text/html"]
    live = step_through(lambda a: a * 2, 1.0, svg=FAKE_SVG)._repr_mimebundle_()
    assert set(live) == {"text/plain", "text/html", WIDGET_MIME}  # the player for saved files


# --- wrong options fail at the call ------------------------------------------------------


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


# --- module boxes ----------------------------------------------------------------------


def test_module_boxes_are_refused_by_the_stepper_with_the_alternative():
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    with nn.record_scopes() as scopes, minigrad.record() as tape:
        model(Tensor(np.ones((2, 2), np.float32))).sum().backward()
    with pytest.raises(ValueError, match="modules='cluster'"):
        Stepper(tape, params=model, scopes=scopes, modules="box")
    s = Stepper(tape, params=model, scopes=scopes, svg=FAKE_SVG)  # clusters are fine
    assert len(s) > 0


# --- a graph too large to draw ----------------------------------------------------------


def test_a_stepper_over_a_large_graph_does_not_suggest_a_refused_option():
    s = step_through(lambda a, b: a * b + a * a - b, 2.0, -3.0, max_nodes=3)
    assert s.note.startswith("drawn as an overview: ") and "max_nodes=3" in s.note
    assert "box" not in s.note.replace("inside a box", "")


def test_a_stepper_over_a_large_graph_steps_on_its_overview():
    def loss(*ws):  # six examples through one neuron: its repeats group into examples
        return sum((ws[0] * x + ws[1]).tanh() for x in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6))

    s = step_through(loss, 0.5, -0.2, max_nodes=10, layout="builtin")
    assert s.template is not None and s.note.startswith("drawn as an overview: ")
    assert ">example × 6<" in s.svg or ">tanh × 6<" in s.svg  # the overview's box
    drawn = set(s.template.base)  # the nodes and edges the steps light up, those drawn
    assert drawn and drawn < set(s.frames.elements)
    markup = s.widget.markup
    assert '<div class="mg-note">drawn as an overview: ' in markup
    assert '<div class="mg-nograph">' not in markup
    whole = step_through(loss, 0.5, -0.2, layout="builtin")  # under max_nodes: every node
    assert whole.note is None and len(whole.template.base) > len(drawn)
