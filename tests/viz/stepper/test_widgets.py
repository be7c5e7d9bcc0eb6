"""The notebook widget (``viz.stepper.widgets``), driven without a kernel: an anywidget whose
JavaScript is the player's own module, its step synced with Python both ways."""

from __future__ import annotations

import pytest
import traitlets

from tests._helpers import FAKE_SVG
from viz.assets import module_script
from viz.stepper.page import player_data
from viz.stepper.stepper import step_through
from viz.stepper.template import script

pytest.importorskip("anywidget")


def _stepper(**options):
    return step_through(lambda a, b: a * b + a, 2.0, 3.0, **options)


def test_the_widgets_javascript_is_the_players_module_read_from_the_package():
    from importlib import resources

    w = _stepper().widget
    module = resources.files("viz").joinpath("assets", "player.js").read_text("utf-8")
    assert w._esm == script() == module
    assert "export default" in w._esm and "render" in w._esm
    assert "http://" not in w._esm.replace("http://www.w3.org", "")  # nothing from a CDN
    assert "https://" not in w._esm and "import " not in w._esm.split("*/", 1)[1]


def test_goto_in_python_moves_the_widget_and_the_widget_moves_python():
    s = _stepper()
    w = s.widget
    n = len(s)
    assert w.step == 0
    s.goto(5)  # Python's cursor -> the browser (the synced trait)
    assert w.step == 5
    s.next()
    assert w.step == 6
    s.last()
    assert w.step == n - 1
    w.step = 2  # what the slider in the browser does
    assert s.step == 2 and s.panel.splitlines()[0].startswith(f"step 3 / {n}")
    w.step = n + 40  # out of range from the browser: clamped, never an error
    assert w.step == s.step == n - 1
    w.step = -3
    assert w.step == s.step == 0


def test_the_traits_that_sync_are_the_step_speed_markup_and_data():
    w = _stepper(speed="fast").widget
    synced = {name for name in w.trait_names(sync=True) if not name.startswith("_")}
    assert {"step", "speed", "markup", "data"} <= synced
    assert w.speed == "fast"
    w.speed = "slow"  # the browser's speed menu
    assert w.stepper.speed == "slow"
    with pytest.raises(traitlets.TraitError, match="speed must be one of"):
        w.speed = "warp"


def test_the_frames_payload_is_the_pages_and_holds_every_step():
    s = _stepper()
    w = s.widget
    data = w.data
    page = player_data(s.frames, s.template, s.grad_text, speed=s.speed)
    assert {k: v for k, v in data.items() if k != "info"} == {
        k: v for k, v in page.items() if k != "info"}
    assert len(data["frames"]) == len(s)
    assert [f["t"] for f in data["frames"]] == [f.title for f in s.frames.frames]
    assert data["speed"] == "normal" and data["start"] == 0
    a = next(n for n in s.frames.nodes if n.label == "a")
    info = {i["n"]: i for i in data["info"]}
    assert data["elements"][info["a"]["e"]] == f"n_{a.id}"
    assert "grad 4.0000" in data["gtexts"]  # a's gradient at the end


def test_the_markup_is_the_pages_opening_step_without_its_scripts():
    s = _stepper()
    w = s.widget
    assert w.markup.startswith('<div class="mg-stepper mg-player"')
    assert 'data-act="next"' in w.markup and 'class="mg-slider"' in w.markup
    assert 'class="mg-inspect"' in w.markup and "mg-legend" in w.markup
    assert "<script" not in w.markup  # the module and the data come as traits
    page = s.to_html(fragment=True)
    assert page.startswith(w.markup[:-len("</div>")])  # the same markup, then data and module
    assert module_script() in page  # the same module, compacted (viz.assets)


def test_the_widget_bundle_carries_the_offline_player_beside_the_view():
    s = _stepper()
    bundle = s.widget._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == s.widget.model_id
    assert data["text/html"] == s.to_html(fragment=True)


def test_the_widget_opens_where_the_stepper_does():
    s = step_through(lambda a: a * 2, 1.0, svg=FAKE_SVG, start=-1)
    s._repr_mimebundle_()
    assert s.widget.step == len(s) - 1
    here = step_through(lambda a: a * 2, 1.0, svg=FAKE_SVG, start=None)
    here.goto(3)  # built mid-replay: the step is valid against the frames sent with it
    assert here.widget.step == 3 and here.widget.data["start"] == 3


def test_widget_without_dot_shows_the_panel_and_a_note(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    s = _stepper(layout="dot")  # dot asked for but missing: no picture
    w = s.widget
    assert s.template is None and "graph not drawn" in s.note
    assert "mg-nograph" in w.markup and "graph not drawn" in w.markup
    assert w.data["info"] == []
    w.step = 1
    assert "create a" in s.panel


def test_marimo_is_handed_the_widget():
    s = _stepper()
    s.goto(4)
    assert s._display_() is s.widget and s.step == 0  # (opens on start=0)


def test_marimo_gets_the_page_in_an_iframe_for_a_static_stepper():
    pytest.importorskip("marimo")
    s = _stepper(static=True)
    shown = s._display_()
    assert "iframe" in shown.text and "mg-player" in shown.text
