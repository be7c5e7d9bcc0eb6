"""Where frames go: a function, nowhere, Jupyter's display handle, marimo's output."""

import sys
import types

import pytest

from viz.training import live_output
from viz.training.live_output import Frame, output_for, running_jupyter, running_marimo


def test_a_callable_gets_the_html_and_none_shows_nothing():
    got = []
    output_for(got.append)(Frame("<b>x</b>", "x"))
    assert got == ["<b>x</b>"]
    assert output_for(None)(Frame("<b>x</b>", "x")) is None


def test_outside_a_notebook_nothing_is_shown(monkeypatch):
    monkeypatch.delitem(sys.modules, "marimo", raising=False)
    assert not running_marimo()
    assert not running_jupyter()  # plain pytest: no kernel
    assert output_for("auto") is live_output._nowhere


def test_bad_display_is_named():
    with pytest.raises(ValueError, match="display must be"):
        output_for("browser")


def test_frame_shows_html_in_notebooks_and_text_elsewhere():
    f = Frame("<svg/>", "TrainingView: step 3")
    assert f._repr_html_() == "<svg/>" and repr(f) == "TrainingView: step 3"


def test_jupyter_displays_once_then_updates_in_place(monkeypatch):
    calls = []

    class Handle:
        def update(self, obj):
            calls.append(("update", obj.text))

    def display(obj, display_id=False):
        calls.append(("display", obj.text, display_id))
        return Handle()

    fake = types.ModuleType("IPython.display")
    fake.display = display
    monkeypatch.setitem(sys.modules, "IPython.display", fake)
    show = live_output._Jupyter()
    for k in range(3):
        show(Frame("<p/>", f"frame {k}"))
    assert calls == [("display", "frame 0", True), ("update", "frame 1"), ("update", "frame 2")]


def test_marimo_is_detected_from_sys_modules_and_replaces_the_output(monkeypatch):
    replaced = []
    mo = types.ModuleType("marimo")
    mo.running_in_notebook = lambda: True
    mo.Html = lambda html: ("Html", html)
    mo.output = types.SimpleNamespace(replace=replaced.append)
    monkeypatch.setitem(sys.modules, "marimo", mo)
    assert running_marimo()
    show = output_for("auto")
    show(Frame("<p>1</p>", "1"))
    assert replaced == [("Html", "<p>1</p>")]
