"""A forward-mode step-through in the exported player (issue #17), in headless Chromium:
nodes appear with their tangent (ṫ …), each edge lights up as it adds its share, and
every text stays inside its card, in both layouts."""

from __future__ import annotations

import pytest

import viz
from tests.browser.test_player_browser import GRADS, OUTSIDE, STATES, goto, open_player
from viz.stepper.stepper import step_through
from viz.stepper.template import grad_strings

pytestmark = pytest.mark.browser

LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]


def f(a, b):
    return (a * b).tanh() + a


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_player_steps_tangents_forward(page, tmp_path, layout):
    s = step_through(f, 0.5, -0.3, mode="forward-mode", tangents=(1.0, 0.5), layout=layout)
    assert s.template is not None, s.note
    fr = s.frames
    root = open_player(page, s.save_html(tmp_path / "forward.html"))
    for k in range(len(s)):
        goto(root, k)
        assert root.evaluate(STATES) == fr.classes(k), k
        shown = root.evaluate(GRADS)
        expected = grad_strings(fr, k, s.grad_text)
        assert shown == {el: expected[el] for el in shown}, k
        assert all(t.startswith("ṫ ") for t in shown.values()), shown
        assert page.inner_text(".mg-title") == fr.frames[k].title
        assert root.evaluate(OUTSIDE) == [], k
    edge = next(x for x in fr.frames if x.kind == "tangent")
    goto(root, edge.index)
    assert "current" in root.locator(f'[id="{edge.edge}"]').get_attribute("class").split()
    assert " × " in page.inner_text(".mg-text") and "added to ṫ" in page.inner_text(".mg-text")
    assert "has a tangent" in page.inner_text(".mg-legend")
    assert page.errors == []
