"""``viz.draw``'s output of a graph bigger than a cell zooms and pans with the player's
module (``viz.render.pan_zoom``); a small graph keeps its plain output."""

from __future__ import annotations

import numpy as np

import viz
from minigrad import Tensor, Value, nn
from viz.assets import module_script
from viz.render.pan_zoom import BIG, pan_zoom_html, svg_size_px


def test_svg_size_reads_points_and_pixels():
    assert svg_size_px('<svg width="300pt" height="60pt" viewBox="0 0 300 60">') == (400.0, 80.0)
    assert svg_size_px('<svg width="300px" height="60px">') == (300.0, 60.0)
    assert svg_size_px("<div>no svg</div>") is None


def test_a_small_graph_keeps_its_plain_output():
    x = Value(2.0, label="x")
    g = viz.draw(x * x + x, layout="builtin")
    html = g._repr_html_()
    assert html.startswith('<div class="minigrad-graph" style="overflow:auto">')
    assert "<script" not in html
    assert pan_zoom_html(g.svg()) is None


def test_a_big_graph_runs_the_players_own_module():
    np.random.seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    loss = model(Tensor(np.ones((2, 8)))).sum()
    g = viz.draw(loss, layout="builtin")
    w, h = svg_size_px(g.svg())
    assert w > BIG[0] or h > BIG[1]
    html = g._repr_html_()
    assert 'data-mg-zoom-pan="1"' in html and '<div class="mg-graph"><svg' in html
    assert module_script() in html  # the module itself, not a second pan/zoom
    assert html.count("function zoomPan(") == 1 and html.count("mountAll(document);") == 1


def test_always_wraps_a_small_drawing_and_carries_extra_markup_inside():
    svg = '<svg width="300pt" height="60pt" viewBox="0 0 300 60"><g/></svg>'
    html = pan_zoom_html(svg, "<p>note</p>", always=True, extra="<template>x</template>",
                         expandable=True)
    assert html.startswith('<div class="minigrad-graph" data-mg-zoom-pan="1" data-mg-expand="1">')
    assert html.index("<template>x</template>") < html.index("<p>note</p>") < html.index("<script")
    assert 'data-mg-expand="1"' not in pan_zoom_html(svg, always=True)
