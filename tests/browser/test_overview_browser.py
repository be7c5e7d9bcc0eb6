"""The overview of a big graph as a notebook shows it, in headless Chromium: an 800 px output
area with JupyterLab's own rule for pictures (``max-width: 100%; height: auto``).

The text of every box and node must render at least 10 px high (font size times the
picture's scale, and the text's bounding box), and stay inside its box: micrograd's demo
loss (a 2-16-16-1 MLP over 100 examples, ~66k nodes) as an overview, and lesson 11's
fourth derivative of tanh (56 nodes, 1,700 px wide at full size), which a notebook may
shrink only down to readable text (``viz.render.draw.readable``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import viz
from minigrad import Value
from minigrad.autograd import grad
from minigrad.nn.neurons import MLP

pytestmark = pytest.mark.browser

CELL = 800
# JupyterLab 4's rule (rendermime's CSS), copied: a picture never wider than its output area
PAGE = """<style>body {{ margin: 0 }} .jp-RenderedHTMLCommon svg {{ max-width: 100%;
height: auto }}</style><div class="jp-RenderedHTMLCommon" style="width: {width}px">{html}</div>"""
# [smallest rendered font px, smallest text box height px, texts checked, texts outside their box]
TEXTS = """() => {
  const svg = document.querySelector('svg');
  let font = 1e9, box = 1e9, checked = 0; const outside = [];
  for (const g of svg.querySelectorAll('g.node')) {
    const shape = g.querySelector('polygon, rect, path').getBoundingClientRect();
    for (const t of g.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const r = t.getBoundingClientRect();
      font = Math.min(font, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
      box = Math.min(box, r.height);
      checked++;
      if (r.left < shape.left - 1.5 || r.right > shape.right + 1.5) outside.push(t.textContent);
    }
  }
  return [font, box, checked, outside];
}"""


def demo_loss(examples=100):
    rng = np.random.default_rng(1337)
    model = MLP(2, [16, 16, 1], rng=random.Random(1337))
    xs = [[Value(float(v)) for v in row] for row in rng.normal(size=(examples, 2))]
    ys = np.where(rng.normal(size=examples) > 0, 1.0, -1.0)
    losses = [(1 + -float(y) * model(x)).relu() for x, y in zip(xs, ys)]
    loss = sum(losses) * (1.0 / examples) + 1e-4 * sum(p * p for p in model.parameters())
    loss.backward()
    return loss, model


def fourth_derivative():
    x = Value(0.5, label="x")
    d = x.tanh()
    for _ in range(4):
        (d,) = grad(d, [x], create_graph=True)
    return d


LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not installed"))]


def _texts(page, graph):
    page.set_content(PAGE.format(width=CELL, html=graph._repr_html_()))
    return page.evaluate(TEXTS)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_demo_losss_overview_reads_at_ten_pixels_in_an_800_px_cell(page, layout):
    loss, model = demo_loss()
    graph = viz.draw(loss, params=model, layout=layout)
    assert graph.full_view is not None and len(graph.view.nodes) < 30  # an overview
    font, box, checked, outside = _texts(page, graph)
    assert checked >= len(graph.view.nodes) and not outside
    assert font >= 10 and box >= 10, (font, box)
    assert page.evaluate("document.body.innerText").count("Overview: ") == 1
    assert not page.errors


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lesson_11s_fourth_derivative_offers_zoom_up_to_readable_text(page, layout):
    """Wider than the cell, the graph gets the player's zoom and pan: "fit" shrinks it
    only to its floor (text about 9 px), and "100%" shows its text at full size (issue
    #31: at least 10 px at the cell's width, or the drawing offers zoom)."""
    graph = viz.draw(fourth_derivative(), show_grad=False, layout=layout)
    font, box, _, outside = _texts(page, graph)
    assert page.locator('[data-zoom="one"]').count() == 1  # it offers zoom
    assert font >= 8.5 and not outside, (font, box, outside)
    page.click('[data-zoom="one"]')
    font, box, _, outside = page.evaluate(TEXTS)
    assert font >= 10 and box >= 10 and not outside, (font, box, outside)
    assert not page.errors
