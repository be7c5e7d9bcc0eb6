"""``viz.DisplayOptions``: one frozen set of settings read by every renderer."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import minigrad
import viz
from minigrad import Value
from viz.render.options import FIELDS

FAKE_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><g id="graph0" class="graph"></g></svg>'


def graph():
    a, b = Value(2.0, label="a"), Value(1 / 3, label="b")
    out = a * b
    out.backward()
    return out, a, b


def test_is_frozen_and_has_the_renderers_defaults():
    opts = viz.DisplayOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.digits = 2
    assert (opts.digits, opts.width, opts.preview, opts.rankdir, opts.max_nodes) == (
        4, 60, 6, "auto", 1000)
    assert opts.replace(digits=2).digits == 2 and opts.digits == 4


def test_every_renderer_keyword_is_an_option():
    for fn in (viz.draw, viz.text, viz.build_view):
        params = inspect.signature(fn).parameters
        assert "options" in params
        assert set(params) - {"root", "roots", "options"} <= set(FIELDS), fn.__name__


def test_one_object_styles_the_drawing_the_text_and_the_panel():
    out, a, b = graph()
    opts = viz.DisplayOptions(digits=2, rankdir="TB")
    assert "data=0.33" in viz.text(out, options=opts)
    drawn = viz.draw(out, options=opts)
    assert "rankdir=TB" in drawn.source and "<td>data 0.33</td>" in drawn.source
    assert drawn.options is opts
    assert viz.build_view(out, options=opts).node(b).data == "0.33"
    with minigrad.record() as tape:
        x = Value(1 / 3, label="x")
        (x * 2.0).backward()
    s = viz.Stepper(tape, options=opts, svg=FAKE_SVG)
    assert s.options.digits == 2 and s.options.rankdir == "TB"
    assert s.frames.options.digits == 2
    s.first()
    s.next()
    assert "x = 0.33" in s.panel


def test_keywords_win_over_options_and_build_them():
    out, a, b = graph()
    opts = viz.DisplayOptions(digits=2)
    assert "data=0.333" in viz.text(out, options=opts, digits=3)
    assert viz.text(out, digits=3) == viz.text(out, options=viz.DisplayOptions(digits=3))
    assert viz.text(out) == viz.text(out, options=viz.DisplayOptions())


def test_renderers_ignore_fields_they_have_no_use_for():
    out, _, _ = graph()
    assert viz.text(out, options=viz.DisplayOptions(rankdir="TB")) == viz.text(out)


def test_bad_values_are_refused_naming_where_they_came_in():
    with pytest.raises(ValueError, match="DisplayOptions: rankdir must be one of"):
        viz.DisplayOptions(rankdir="tb")
    with pytest.raises(ValueError, match="DisplayOptions: digits"):
        viz.DisplayOptions(digits=-1)
    out, _, _ = graph()
    with pytest.raises(ValueError, match="draw: rankdir must be one of"):
        viz.draw(out, rankdir="tb")
    with pytest.raises(ValueError, match="viz.text: digits"):
        viz.text(out, digits=-1)
    with pytest.raises(TypeError, match="options must be a viz.DisplayOptions"):
        viz.text(out, options={"digits": 2})


def test_modules_true_and_false_mean_frames_on_and_off():
    assert viz.DisplayOptions(modules=True).modules == "cluster"
    assert viz.DisplayOptions(modules=False).modules is None
    assert viz.DisplayOptions().replace(modules=False).modules is None
    out, _, _ = graph()
    assert viz.draw(out, modules=True).options.modules == "cluster"
    assert viz.draw(out, modules=False).options.modules is None
    with pytest.raises(ValueError, match=r"modules must be 'cluster' \(or True\)"):
        viz.draw(out, modules="frames")


def test_stepper_draw_options_show_the_options_it_draws_with():
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        (a * a).backward()
    s = viz.Stepper(tape, rankdir="TB", svg=FAKE_SVG)
    assert s.draw_options["rankdir"] == "TB"
    assert s.draw_options == s.options.as_dict()
