"""``viz.draw`` of a graph bigger than a cell, in headless Chromium: the player's module
(``viz.render.pan_zoom``) fits it to the box, zooms with the buttons and pans by dragging."""

from __future__ import annotations

import os

import numpy as np
import pytest

import viz
from minigrad import Tensor, nn

pytestmark = pytest.mark.browser


def test_a_big_drawing_fits_zooms_and_pans(page, tmp_path):
    np.random.seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                          nn.Linear(16, 4))
    html = viz.draw(model(Tensor(np.ones((2, 8)))).sum())._repr_html_()
    assert "data-mg-zoom-pan" in html
    page.set_viewport_size({"width": 700, "height": 700})  # a narrow cell
    page.set_content(f"<html><body>{html}</body></html>")
    graph = page.locator(".minigrad-graph[data-mg-ready]")
    graph.wait_for()
    fitted = float(graph.get_attribute("data-mg-zoom"))
    assert fitted < 1  # shrunk to the box (down to the readable floor)
    page.click('[data-zoom="one"]')
    assert float(graph.get_attribute("data-mg-zoom")) == 1
    box = page.locator(".minigrad-graph .mg-graph")
    before = box.evaluate("b => [b.scrollLeft, b.scrollTop]")
    r = box.bounding_box()
    page.mouse.move(r["x"] + r["width"] / 2, r["y"] + r["height"] / 2)
    page.mouse.down()
    page.mouse.move(r["x"] + r["width"] / 2 - 150, r["y"] + r["height"] / 2 - 100, steps=5)
    page.mouse.up()
    after = box.evaluate("b => [b.scrollLeft, b.scrollTop]")
    assert after[0] > before[0] or after[1] > before[1], (before, after)  # dragged: panned
    page.click('[data-zoom="fit"]')
    assert float(graph.get_attribute("data-mg-zoom")) == pytest.approx(fitted)
    folder = os.environ.get("MINIGRAD_SCREENSHOTS") or str(tmp_path)
    page.screenshot(path=os.path.join(folder, "draw-pan-zoom.png"))
    assert page.errors == []
