"""A create_graph step-through in headless Chromium, with no kernel (issue #16): the graph
of tanh's first derivative appears node by node, every text stays inside its box, and the
second backward steps through that graph."""

from __future__ import annotations

import math

import pytest

from tests.browser.test_player_browser import GRADS, OUTSIDE, STATES, goto, open_player
from viz import step_through

pytestmark = pytest.mark.browser

OPACITY = "(root, id) => getComputedStyle(root.querySelector('[id=\"' + id + '\"]')).opacity"


def opacity(page, root, key) -> str:
    """The node's opacity once its fade (player.css: 0.15 s) is over."""
    page.wait_for_function(
        "id => !document.querySelector('[id=\"' + id + '\"]').getAnimations().length", arg=key)
    return root.evaluate(OPACITY, key)


def tanh(x):
    return x.tanh()


@pytest.fixture
def player(page, tmp_path):
    s = step_through(tanh, 0.5, second=True)
    if s.template is None:
        pytest.skip(s.note)
    return s, open_player(page, s.save_html(tmp_path / "tanh.html"))


def test_every_step_matches_the_frames_and_texts_fit(page, player):
    s, root = player
    fr = s.frames
    for k in range(len(s)):
        goto(root, k)
        assert root.evaluate(STATES) == fr.classes(k), k
        assert page.inner_text(".mg-title") == fr.frames[k].title
        assert root.evaluate(OUTSIDE) == [], k
    assert page.errors == []


def test_the_gradients_graph_appears_node_by_node(page, player):
    s, root = player
    fr = s.frames
    built = [k for k, f in enumerate(fr.frames) if f.kind == "built"]
    assert len(built) >= 3
    for k in built:
        key = f"n_{fr.frames[k].node}"
        goto(root, k - 1)
        assert opacity(page, root, key) == "0", (k, key)
        goto(root, k)
        assert opacity(page, root, key) == "1", (k, key)
        assert "new" in root.locator(f'[id="{key}"]').get_attribute("class").split()
        # the "just built" look reaches the node's background shape
        assert root.evaluate(
            "(root, id) => getComputedStyle(root.querySelector('[id=\"' + id + '_s\"]')).stroke",
            key) == "rgb(202, 138, 4)"
        assert "Built by" in page.inner_text(".mg-text")
    assert page.errors == []


def test_the_second_backward_steps_through_that_graph(page, player):
    s, root = player
    fr = s.frames
    second = [k for k, f in enumerate(fr.frames) if f.title.startswith("Backward 2 · ")]
    assert len(second) >= 6
    x = next(n for n in fr.nodes if n.op is None and n.requires_grad)
    goto(root, second[0])
    assert page.inner_text(".mg-title").startswith("Backward 2 · seed ")
    goto(root, len(s) - 1)
    t = math.tanh(0.5)
    assert root.evaluate(GRADS)[f"n_{x.id}"] == f"grad {-2 * t * (1 - t * t):.4f}"
    assert page.inner_text(".mg-text").startswith("Backward pass complete.")
    assert page.errors == []
