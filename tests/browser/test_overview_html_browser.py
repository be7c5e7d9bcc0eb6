"""An overview's group boxes open on a click, in headless Chromium (``viz.render.overview_html``,
``player.js: expandable``): micrograd's demo loss (a 2-16-16-1 MLP over 100 examples, ~66k
nodes) drawn as an overview; clicking ``example × 100`` shows the drawing with one example
opened beside ``example × 99 more``, a nested group opens inside it, and "back" returns."""

from __future__ import annotations

import os

import pytest

import viz

from .test_overview_browser import LAYOUTS, demo_loss

pytestmark = pytest.mark.browser

TITLES = "() => [...document.querySelector('.mg-graph svg').querySelectorAll('g.node.group')]" \
         ".map(g => g.querySelector('text').textContent)"


def _click_box(page, title):
    # (its title: an opened example's box lists its neurons' groups in its lines)
    page.locator(".mg-graph svg g.node.group").get_by_text(title, exact=True).click()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_clicking_a_group_box_opens_it_and_back_folds_it(page, layout, tmp_path):
    loss, model = demo_loss()
    graph = viz.draw(loss, params=model, layout=layout)
    page.set_content(f"<html><body>{graph._repr_html_()}</body></html>")
    root = page.locator(".minigrad-graph[data-mg-ready]")
    root.wait_for()
    assert root.get_attribute("data-mg-drawing") == "0"
    assert "example × 100" in page.evaluate(TITLES)
    assert page.locator('[data-expand="back"]').is_disabled()
    assert page.locator(".mg-zoom").count() == 1  # one zoom bar, on the shown drawing

    _click_box(page, "example × 100")
    titles = page.evaluate(TITLES)
    assert "example × 99 more" in titles and "example × 100" not in titles
    assert "layers.0.neurons.* × 16" in titles
    assert root.get_attribute("data-mg-drawing") != "0"
    assert page.locator(".mg-zoom").count() == 1 and page.locator(".mg-graph svg").count() == 1
    assert "opened: example" in page.inner_text(".mg-expand-what")
    folder = os.environ.get("MINIGRAD_SCREENSHOTS") or str(tmp_path)
    page.screenshot(path=os.path.join(folder, f"overview-opened-{layout}.png"), full_page=True)

    _click_box(page, "layers.0.neurons.* × 16")  # nested: a neuron of the opened example
    titles = page.evaluate(TITLES)
    assert "layers.0.neurons.* × 15 more" in titles and "example × 99 more" in titles
    _click_box(page, "layers.0.neurons.* × 15 more")  # its own box folds it again
    assert "layers.0.neurons.* × 16" in page.evaluate(TITLES)

    page.click('[data-expand="back"]')  # back: the nested one opened again
    assert "layers.0.neurons.* × 15 more" in page.evaluate(TITLES)
    page.click('[data-expand="top"]')
    assert root.get_attribute("data-mg-drawing") == "0"
    assert "example × 100" in page.evaluate(TITLES)
    page.click('[data-expand="back"]')
    page.click('[data-expand="top"]')
    page.screenshot(path=os.path.join(folder, f"overview-back-{layout}.png"), full_page=True)
    assert page.errors == []


def test_a_step_through_over_max_nodes_steps_on_the_overview(page, tmp_path):
    def loss(*ws):  # six examples through one neuron: grouped in the overview
        return sum((ws[0] * x + ws[1]).tanh() for x in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6))

    s = viz.step_through(loss, 0.5, -0.2, max_nodes=10, layout="builtin")
    page.set_content(s.to_html())
    root = page.locator(".mg-player[data-mg-ready]")
    root.wait_for()
    assert "drawn as an overview" in page.inner_text(".mg-note")
    assert page.locator(".mg-graph svg g.node.group").count() >= 1
    seen_current = 0
    for _ in range(len(s.frames)):
        page.click('[data-act="next"]')
        seen_current += page.locator(".mg-graph svg g.node.current").count()
    assert root.get_attribute("data-mg-step") == str(len(s.frames) - 1)
    assert seen_current > 0  # the nodes drawn outside the boxes light up
    folder = os.environ.get("MINIGRAD_SCREENSHOTS") or str(tmp_path)
    page.screenshot(path=os.path.join(folder, "step-through-overview.png"), full_page=True)
    assert page.errors == []
