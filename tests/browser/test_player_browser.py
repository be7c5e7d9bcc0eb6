"""The exported HTML player in headless Chromium: buttons, slider, play, keyboard."""

from __future__ import annotations

import random

import pytest

import minigrad
from minigrad import Value
from tests._graphs import Cube
from viz import export_html
from viz.frames import Frames

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
    assert page.inner_text(".mg-title") == "Forward 1/5 · create a"
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
        assert pg.inner_text(".mg-title") == "Forward 1/4 · create a"
        pg.click('[data-act="last"]')
        assert pg.inner_text(".mg-text").startswith("Backward pass complete.")
        assert errors == []
    finally:
        context.close()
