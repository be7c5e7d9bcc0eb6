"""The exported HTML player in headless Chromium: buttons, slider, play, keyboard."""

from __future__ import annotations

import random

import pytest

import minigrad
from minigrad import Value
from tests._graphs import Cube
from viz import export_html
from viz.stepper.frames import Frames

pytestmark = pytest.mark.browser

# {element id: state classes} as the page shows them (the renderer's own classes removed)
STATES = """root => {
  const out = {};
  for (const el of root.querySelectorAll('g[data-mg-base]')) {
    const base = el.getAttribute('data-mg-base').split(' ').filter(Boolean);
    const extra = el.getAttribute('class').split(' ').filter(c => c && !base.includes(c));
    if (extra.length) out[el.id] = extra.join(' ');
  }
  return out;
}"""
GRADS = """root => Object.fromEntries([...root.querySelectorAll('[data-mg-grad]')]
  .map(t => [t.getAttribute('data-mg-grad'), t.textContent]))"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        b = Value(3.0, label="b")
        out = (a * b + a) * b
        out.backward()
    path = export_html(tape, tmp_path_factory.mktemp("player") / "player.html", mode="both")
    return path, tape, a, b


def open_player(page, path):
    page.goto(path.as_uri())
    page.wait_for_selector(".mg-player[data-mg-ready]")
    return page.locator(".mg-player")


def step(page) -> int:
    return int(page.get_attribute(".mg-player", "data-mg-step"))


def test_next_prev_and_end_restyle_the_graph(page, exported):
    path, tape, a, b = exported
    fr = Frames(tape, "both")
    n = len(fr)
    root = open_player(page, path)
    assert page.inner_text(".mg-counter") == f"step 1 / {n}"
    assert page.inner_text(".mg-title") == fr.frames[0].title
    states = root.evaluate(STATES)
    assert states == fr.classes(0)  # every created node starts hidden
    assert states[f"n_{a.id}"] == "hidden"

    page.click('[data-act="next"]')
    assert step(page) == 1
    states = root.evaluate(STATES)
    assert states[f"n_{a.id}"] == "current"
    assert page.inner_text(".mg-title") == "Forward · create a"
    assert page.inner_text(".mg-counter") == f"step 2 / {n}"
    assert page.inner_text(".mg-text") == fr.frames[1].text

    page.click('[data-act="last"]')
    assert step(page) == n - 1
    states = root.evaluate(STATES)
    assert states == fr.classes(n - 1)
    assert "accumulated" in states[f"n_{a.id}"] and "accumulated" in states[f"n_{b.id}"]
    grads = root.evaluate(GRADS)
    assert grads[f"n_{a.id}"] == f"grad {a.grad:.4f}" == "grad 12.0000"
    assert page.inner_text(".mg-text").startswith("Backward pass complete.")

    page.click('[data-act="prev"]')
    assert step(page) == n - 2 and root.evaluate(STATES) == fr.classes(n - 2)
    page.click('[data-act="first"]')
    assert step(page) == 0 and root.evaluate(STATES) == fr.classes(0)
    assert set(root.evaluate(GRADS).values()) == {"grad —"}
    assert page.errors == []


def test_every_step_matches_the_frames_in_any_order(page, exported):
    path, tape, a, _ = exported
    fr = Frames(tape, "both")
    root = open_player(page, path)
    order = list(range(len(fr)))
    order += random.Random(0).sample(order, len(order))  # jumps back and forth
    for k in order:
        root.evaluate(
            "(root, k) => { const s = root.querySelector('.mg-slider'); s.value = String(k);"
            " s.dispatchEvent(new Event('input')); }", k)
        assert step(page) == k
        assert root.evaluate(STATES) == fr.classes(k), k
        g = fr.grads(k)[a.id]
        assert root.evaluate(GRADS)[f"n_{a.id}"] == ("grad —" if g is None else f"grad {g:.4f}")
        assert page.inner_text(".mg-title") == fr.frames[k].title
    assert page.errors == []


def test_play_runs_to_the_end_and_keyboard_steps(page, exported):
    path, tape, _, _ = exported
    n = len(Frames(tape, "both"))
    open_player(page, path)
    page.select_option(".mg-speed", label="very fast")
    page.click('[data-act="play"]')
    assert page.inner_text('[data-act="play"]') == "⏸ Pause"
    page.wait_for_function(
        f"document.querySelector('.mg-player').getAttribute('data-mg-step') == '{n - 1}'",
        timeout=20_000)
    page.wait_for_function(
        "document.querySelector('[data-act=\"play\"]').textContent.includes('Play')")
    page.focus(".mg-player")
    page.keyboard.press("Home")
    assert step(page) == 0
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert step(page) == 2
    page.keyboard.press("ArrowLeft")
    assert step(page) == 1
    assert page.errors == []


def test_page_works_offline(browser, exported):
    path, _, _, _ = exported
    context = browser.new_context(offline=True)
    try:
        pg = context.new_page()
        requests = []
        pg.on("request", lambda r: requests.append(r.url))
        pg.goto(path.as_uri())
        pg.wait_for_selector(".mg-player[data-mg-ready]", timeout=15_000)
        pg.click('[data-act="next"]')
        assert pg.get_attribute(".mg-player", "data-mg-step") == "1"
        assert requests == [path.as_uri()]  # nothing fetched but the page itself
    finally:
        context.close()


def companion_classes(root) -> dict:
    return root.evaluate("root => Object.fromEntries([...root.querySelectorAll("
                         "'g.saved[data-mg-base]')].map(g => [g.id, g.getAttribute('class')]))")


def test_saved_values_show_until_backward_frees_them(page, tmp_path):
    from viz import step_through

    s = step_through(lambda x: Cube.apply(x) * 2, 1.5)
    cube = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "Cube")
    freed_from = s.frames.released_at[cube.id]
    root = open_player(page, s.save_html(tmp_path / "cube.html"))
    for k in range(len(s)):
        root.evaluate(
            "(root, k) => { const s = root.querySelector('.mg-slider'); s.value = String(k);"
            " s.dispatchEvent(new Event('input')); }", k)
        box = companion_classes(root)[f"s_{cube.id}_0"].split()
        assert ("freed" in box) == (k >= freed_from), k
        assert ("hidden" in box) == (k < 2), k  # shown from the step that creates Cube
        assert "saved: released" not in root.locator(".mg-graph").inner_text()
    # faded once freed (the opacity change is a CSS transition: wait for it to settle)
    page.wait_for_function(
        f"() => parseFloat(getComputedStyle(document.querySelector('#s_{cube.id}_0'))"
        f".opacity) < 1", timeout=5_000)
    assert page.errors == []


def test_static_stepper_survives_nbconvert_export(browser, tmp_path):
    """An executed notebook exported to HTML keeps a working player, offline."""
    import subprocess
    import sys

    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbconvert")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import viz\ns = viz.step_through(lambda a, b: a * b + a, 2.0, -3.0, static=True)\ns")]
    nbformat.write(nb, tmp_path / "static.ipynb")
    done = subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "html", "--execute", "static.ipynb"],
        cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    context = browser.new_context(offline=True)  # (nbconvert's own CDN scripts fail: fine)
    try:
        pg = context.new_page()
        errors = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.goto((tmp_path / "static.html").as_uri())
        pg.wait_for_selector(".mg-player[data-mg-ready]", timeout=15_000)
        assert pg.locator(".mg-player svg g.node[id^='n_']").count() == 4
        pg.click('[data-act="next"]')
        assert pg.get_attribute(".mg-player", "data-mg-step") == "1"
        assert pg.inner_text(".mg-title") == "Forward · create a"
        pg.click('[data-act="last"]')
        assert pg.inner_text(".mg-text").startswith("Backward pass complete.")
        assert errors == []
    finally:
        context.close()


def test_an_executed_lesson_exported_by_nbconvert_keeps_working_players(browser, tmp_path):
    """Lesson 2 as committed (executed, widget views dropped: the player is each step-through's
    text/html), exported with no kernel: every player steps, offline."""
    import shutil
    import subprocess
    import sys

    from tests._helpers import ROOT

    pytest.importorskip("nbconvert")
    lesson = "02_backward_step_by_step.ipynb"
    shutil.copy(ROOT / "notebooks" / lesson, tmp_path / lesson)
    done = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", lesson],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    context = browser.new_context(offline=True)  # (nbconvert's own CDN scripts fail: fine)
    try:
        pg = context.new_page()
        errors = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.goto((tmp_path / lesson.replace(".ipynb", ".html")).as_uri())
        players = pg.locator(".mg-player")
        pg.wait_for_selector(".mg-player[data-mg-ready]", timeout=15_000)
        count = players.count()
        assert count >= 1
        assert pg.locator(".mg-player[data-mg-ready]").count() == count  # every one runs
        assert "Error displaying widget" not in pg.inner_text("body")
        first = players.first
        first.scroll_into_view_if_needed()
        step = int(first.get_attribute("data-mg-step"))
        first.locator('[data-act="next"]').click()
        assert first.get_attribute("data-mg-step") == str(step + 1)
        assert errors == []
    finally:
        context.close()


# --- issue #20: the first frame, text inside its boxes, readable sizes ------------------

# [node id, text, how far it sticks out (px)] for every shown text not inside its node's
# box, or not inside its own cell (the smallest of the node's boxes where it starts)
OUTSIDE = """root => {
  const bad = [];
  const out = (r, box) => Math.max(box.left - r.left, r.right - box.right,
                                   box.top - r.top, r.bottom - box.bottom);
  for (const g of root.querySelectorAll('g.node[id^="n_"]')) {
    const shape = g.querySelector('.mg-s');
    if (!shape) continue;
    const node = shape.getBoundingClientRect();
    const cells = [...g.querySelectorAll('polygon:not(.mg-s)')].map(p => p.getBoundingClientRect());
    for (const t of g.querySelectorAll('text')) {
      if (getComputedStyle(t).display === 'none') continue;
      const r = t.getBoundingClientRect();
      const x = r.left + 1, y = (r.top + r.bottom) / 2;
      const cell = cells.filter(c => c.left <= x && x <= c.right && c.top <= y && y <= c.bottom)
        .sort((a, b) => a.width * a.height - b.width * b.height)[0];
      const worst = Math.max(out(r, node), cell ? r.right - cell.right : 0);
      if (worst > 0.5) bad.push([g.id, t.textContent, worst]);
    }
  }
  return bad;
}"""


def captured_w():
    from viz import step_through

    w = Value(0.5, label="w")
    return step_through(lambda x: (w * x).tanh(), 2.0)


def module_step():
    import numpy as np

    from minigrad import nn
    from viz import step_through

    np.random.seed(0)
    layer = nn.Linear(3, 2)
    return step_through(lambda x: layer(x).tanh().sum(), np.array([[1.0, 2.0, 3.0]]),
                        params=layer)


def goto(root, k) -> None:
    root.evaluate("(root, k) => { const s = root.querySelector('.mg-slider'); s.value = "
                  "String(k); s.dispatchEvent(new Event('input')); }", k)


@pytest.mark.parametrize("make", [captured_w, module_step], ids=["captured-w", "nn-module"])
def test_every_text_stays_inside_its_node_in_the_player(page, tmp_path, make):
    s = make()
    if s.template is None:
        pytest.skip(s.note)
    root = open_player(page, s.save_html(tmp_path / "p.html"))
    grads = set()
    for k in range(len(s)):
        goto(root, k)
        assert root.evaluate(OUTSIDE) == [], k
        grads.update(root.evaluate(GRADS).values())
    assert "grad —" in grads and len(grads) > 2  # the texts did change over the replay
    assert page.errors == []


def test_a_page_opens_on_the_first_step_whatever_code_did_before(page, tmp_path):
    from viz import step_through

    s = step_through(lambda a, b: a * b + a, 2.0, 3.0, mode="forward")
    s.last()  # a lesson printed every panel before showing the stepper
    root = open_player(page, s.save_html(tmp_path / "first.html"))
    assert step(page) == 0
    assert page.inner_text(".mg-counter") == f"step 1 / {len(s)}"
    assert page.inner_text(".mg-title") == s.frames[0].title
    assert set(root.evaluate(STATES).values()) == {"hidden"}  # nothing created yet
    page.click('[data-act="next"]')  # and Next moves on
    assert step(page) == 1


def test_player_text_is_readable_and_controls_hold_one_line(browser, tmp_path):
    """At 800 px a lesson's graph used to shrink to ~7 px text; at 1,400 px the controls
    must sit on one line.  (MINIGRAD_SCREENSHOTS=dir saves what the test saw.)"""
    import os

    from viz import step_through

    def neuron(x1, x2, w1, w2, b):
        n = x1 * w1 + x2 * w2 + b
        n.label = "n"
        return n.tanh()

    s = step_through(neuron, 2.0, 0.0, -3.0, 1.0, 6.88)
    path = s.save_html(tmp_path / "neuron.html")
    shots = os.environ.get("MINIGRAD_SCREENSHOTS")
    for width in (1400, 800):
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            pg = context.new_page()
            open_player(pg, path)
            pg.click('[data-act="last"]')
            sizes = pg.eval_on_selector_all(
                ".mg-graph svg text",
                "ts => ts.map(t => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a)")
            assert min(sizes) >= 10.5, (width, min(sizes))
            tops = pg.eval_on_selector_all(
                ".mg-controls > *", "els => els.map(e => e.getBoundingClientRect().top)")
            if width == 1400:
                assert max(tops) - min(tops) < 10, tops  # one line
            if shots:
                pg.screenshot(path=os.path.join(shots, f"player-{width}.png"))
        finally:
            context.close()
