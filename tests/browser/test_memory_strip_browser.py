"""The memory strip and a checkpointed block in the exported player (issue #18), in
headless Chromium: the strip follows every step with the numbers ``MemoryTrack`` computed
(the same as ``minigrad.memory.ledger``), stays inside the viewport, and the recompute
step shows the block's nodes.  Screenshots go to ``MINIGRAD_SHOTS`` when it is set."""

from __future__ import annotations

import html
import os
from pathlib import Path

import numpy as np
import pytest

import minigrad
import viz
from minigrad import nn
from tests.browser.test_player_browser import STATES, goto, open_player
from viz.stepper.stepper import step_through

pytestmark = pytest.mark.browser

LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]

STRIP = """root => {
  const m = root.querySelector('.mg-memory');
  const now = [...m.querySelectorAll('.mg-mem-bar.mg-mem-now')].map(b => +b.dataset.k);
  const future = m.querySelectorAll('.mg-mem-bar.mg-mem-future').length;
  const r = m.getBoundingClientRect();
  return {at: +m.dataset.mgAt, now, future, text: m.querySelector('.mg-mem-text').textContent,
          left: r.left, right: r.right, width: r.width, height: r.height,
          vw: document.documentElement.clientWidth};
}"""


def checkpointed(layout: str):
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(),
                          nn.Linear(4, 1))
    x = minigrad.tensor(np.linspace(-1, 1, 6).reshape(2, 3))

    def mlp(x):
        return (minigrad.checkpoint_sequential(model, 2, x) ** 2).sum()

    return step_through(mlp, x, memory=True, layout=layout)


def shoot(page, name: str) -> None:
    folder = os.environ.get("MINIGRAD_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / name), full_page=True)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_strip_follows_every_step_inside_the_viewport(page, tmp_path, layout):
    s = checkpointed(layout)
    assert s.template is not None, s.note
    track = s.memory
    root = open_player(page, s.save_html(tmp_path / "memory.html"))
    n = len(s)
    for k in range(n):
        goto(root, k)
        got = root.evaluate(STRIP)
        assert got["at"] == k and got["now"] == [k] and got["future"] == n - 1 - k, k
        assert got["text"] == track.line(k), k
        assert track.line(k) in page.inner_text(".mg-text"), k
        assert got["left"] >= 0 and got["right"] <= got["vw"] and got["height"] > 20, k
        assert root.evaluate(STATES) == s.frames.classes(k), k
    assert page.errors == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_screens_of_the_strip_the_drawing_and_the_recompute(page, tmp_path, layout):
    s = checkpointed(layout)
    assert s.template is not None, s.note
    frames = s.frames.frames
    root = open_player(page, s.save_html(tmp_path / "shots.html"))
    visits = [f.index for f in frames if f.kind == "visit"]
    mid = visits[len(visits) // 2]
    goto(root, mid)
    assert root.evaluate(STRIP)["text"].startswith("memory: ")
    shoot(page, f"strip_mid_backward_{layout}.png")
    end = next(f.index for f in frames if f.phase == "forward" and f.kind == "end")
    goto(root, end)
    ck = root.locator("g.node.checkpoint")
    assert ck.count() == 1 and ck.is_visible()
    assert "checkpoint segment[0:2] (2 ops)" in ck.text_content()
    shoot(page, f"checkpointed_mlp_{layout}.png")
    visit = next(f for f in frames if f.kind == "visit" and "checkpoint" in f.title)
    goto(root, visit.index)
    assert "recomputing block segment[0:2] (2 ops) to get its saved values" in \
        page.inner_text(".mg-text")
    last = max(f.index for f in frames if f.kind == "recomputed")
    goto(root, last)
    shown = root.locator("g.node.recomputed")
    assert shown.count() == 2
    for i in range(2):
        box = shown.nth(i).bounding_box()
        assert box is not None and box["width"] > 0
        assert "hidden" not in shown.nth(i).get_attribute("class").split()
        # (opacity fades in over 0.15 s: wait for it rather than race it)
        page.wait_for_function("el => getComputedStyle(el).opacity === '1'",
                               arg=shown.nth(i).element_handle())
    assert "the recompute saves" in page.inner_text(".mg-text")
    shoot(page, f"recompute_step_{layout}.png")
    assert html.escape("recomputed") in page.inner_text(".mg-legend")
    assert page.errors == []
