"""How the engine runs, in the exported player (issue #18), in headless Chromium: a
ready-queue replay shows each node's pending count in its card and the queue in the
panel, a hook's step marks the node, and multi-output cards keep their texts inside."""

from __future__ import annotations

import re

import numpy as np
import pytest

import viz
from tests.browser.test_player_browser import GRADS, OUTSIDE, STATES, goto, open_player
from tests.viz.stepper.test_engine_notes import hooked_h
from viz.stepper.stepper import GradText, step_through
from viz.stepper.template import grad_strings

pytestmark = pytest.mark.browser

LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]




def pieces(x):
    return (x.split(2)[0] * 2).sum() + x.split(2)[1].tanh().sum()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_player_counts_down_queues_and_marks_the_hook(page, tmp_path, layout):
    s = step_through(hooked_h, 2.0, -3.0, scheduler="ready-queue", layout=layout)
    assert s.template is not None, s.note
    fr = s.frames
    root = open_player(page, s.save_html(tmp_path / "ready.html"))
    text = GradText()
    pending = 0
    for k in range(len(s)):
        goto(root, k)
        assert root.evaluate(STATES) == fr.classes(k), k
        shown = root.evaluate(GRADS)
        expected = grad_strings(fr, k, text)
        assert shown == {el: expected[el] for el in shown}, k
        pending += sum("· pending" in t for t in shown.values())
        panel = page.inner_text(".mg-text")
        if fr.frames[k].phase == "backward":
            assert re.search(r"^ready queue: .+$", panel, re.M), k
        assert root.evaluate(OUTSIDE) == [], k
    assert pending > 0
    hook = next(f for f in fr.frames if f.kind == "hooked")
    goto(root, hook.index)
    assert "hooked" in root.locator(f'[id="n_{hook.node}"]').get_attribute("class").split()
    assert "hook `clip` on h changed its gradient" in page.inner_text(".mg-text")
    # the hook's look reaches the node's background shape
    assert root.evaluate(
        "(root, id) => getComputedStyle(root.querySelector('[id=\"' + id + '_s\"]')).stroke",
        f"n_{hook.node}") == "rgb(219, 39, 119)"
    assert "ready:" in page.inner_text(".mg-legend")
    assert page.errors == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_multi_output_replay_keeps_texts_inside_their_cards(page, tmp_path, layout):
    s = step_through(pieces, np.arange(4.0).reshape(4, 1) / 4, layout=layout)
    assert s.template is not None, s.note
    root = open_player(page, s.save_html(tmp_path / "pieces.html"))
    for k in range(len(s)):
        goto(root, k)
        assert root.evaluate(STATES) == s.frames.classes(k), k
        assert root.evaluate(OUTSIDE) == [], k
    visit = next(f for f in s.frames.frames if f.kind == "visit" and f.title.endswith("(split)"))
    goto(root, visit.index)
    assert "Nothing used output" in page.inner_text(".mg-text")
    assert page.errors == []
