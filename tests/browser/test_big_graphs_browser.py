"""Big graphs in the exported player, in headless Chromium at 1,400 px: they fit the window,
every label stays inside its node, zoom and pan work, and a module folds when clicked."""

from __future__ import annotations

import random
import shutil

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import Value, nn
from minigrad.data import load_digits
from minigrad.nn.neurons import MLP
from viz import Stepper

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz 'dot' not installed"),
]

WINDOW = {"width": 1400, "height": 900}

# every shown node's text boxes against its background shape: [texts checked, ones sticking out]
LABELS_OUTSIDE = """root => {
  const out = []; let checked = 0;
  for (const g of root.querySelectorAll('.mg-graph g.node[id^="n_"]')) {
    const shape = g.querySelector('.mg-s');
    if (!shape || getComputedStyle(g).display === 'none') continue;
    const s = shape.getBoundingClientRect();
    for (const t of g.querySelectorAll('text')) {
      if (getComputedStyle(t).display === 'none' || !t.textContent.trim()) continue;
      const r = t.getBoundingClientRect(), slack = 1.5;
      checked++;
      if (r.left < s.left - slack || r.right > s.right + slack ||
          r.top < s.top - slack || r.bottom > s.bottom + slack)
        out.push(g.id + ': ' + t.textContent);
    }
  }
  return [checked, out];
}"""
SIZES = """root => { const g = root.querySelector('.mg-graph');
  return {player: root.getBoundingClientRect().width, page: document.documentElement.scrollWidth,
          scroll: g.scrollWidth, client: g.clientWidth, left: g.scrollLeft}; }"""


def scalar_mlp_tape():
    with mg.record() as tape:
        model = MLP(3, [4, 4, 1], rng=random.Random(0))
        x = [Value(v, label=f"x{i}") for i, v in enumerate((0.5, -1.0, 2.0))]
        loss = (model(x) - 1.0) ** 2
        loss.backward()
    return tape


def digits_cnn_tape():
    X, y = load_digits(flatten=False)
    g = np.random.default_rng(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, rng=g), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1, rng=g), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10, rng=g))
    with mg.record() as tape, nn.record_scopes() as scopes:
        images = mg.Tensor(X[:32].reshape(32, 1, 8, 8), name="images")
        loss = F.cross_entropy(model(images), y[:32])
        loss.backward()
    return tape, scopes


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    mlp = Stepper(scalar_mlp_tape())
    assert len(mlp.frames.nodes) == 120
    tape, scopes = digits_cnn_tape()
    cnn = Stepper(tape, scopes=scopes)
    return {"mlp": mlp.save_html(folder / "mlp.html"), "cnn": cnn.save_html(folder / "cnn.html")}


@pytest.fixture
def wide(browser):
    context = browser.new_context(viewport=WINDOW)
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.errors = errors
    try:
        yield pg
    finally:
        context.close()


def labels_outside(root) -> list[str]:
    checked, outside = root.evaluate(LABELS_OUTSIDE)
    assert checked > 0
    return outside


def open_player(page, path):
    page.goto(path.as_uri())
    page.wait_for_selector(".mg-player[data-mg-ready]")
    return page.locator(".mg-player")


def zoom(page) -> float:
    return float(page.get_attribute(".mg-player", "data-mg-zoom"))


@pytest.mark.parametrize("which", ["mlp", "cnn"])
def test_the_graph_fits_the_window_and_labels_stay_in_their_boxes(wide, pages, which):
    root = open_player(wide, pages[which])
    wide.click('[data-act="last"]')  # every node shown, with its final gradient
    sizes = root.evaluate(SIZES)
    assert sizes["player"] <= WINDOW["width"] and sizes["page"] <= WINDOW["width"]
    assert sizes["scroll"] <= sizes["client"] and sizes["left"] == 0  # nothing scrolled sideways
    assert 0 < zoom(wide) <= 1
    assert labels_outside(root) == []
    assert wide.errors == []


def test_zoom_buttons_change_the_scale_and_fit_comes_back(wide, pages):
    root = open_player(wide, pages["mlp"])
    fitted = zoom(wide)
    assert fitted < 1  # the MLP is wider than the window: shown whole, scaled down
    wide.click('[data-zoom="in"]')
    assert zoom(wide) == pytest.approx(fitted * 1.25, rel=1e-3)
    wide.click('[data-zoom="out"]')
    wide.click('[data-zoom="out"]')
    assert zoom(wide) == pytest.approx(fitted / 1.25, rel=1e-3)
    wide.click('[data-zoom="one"]')
    assert zoom(wide) == 1
    assert wide.inner_text(".mg-zoom-level") == "100%"
    sizes = root.evaluate(SIZES)
    assert sizes["scroll"] > sizes["client"]  # now it pans
    wide.click('[data-zoom="fit"]')
    assert zoom(wide) == pytest.approx(fitted)
    assert labels_outside(root) == []


def test_ctrl_wheel_zooms_and_dragging_pans(wide, pages):
    root = open_player(wide, pages["mlp"])
    fitted = zoom(wide)
    box = wide.locator(".mg-graph").bounding_box()
    wide.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    wide.keyboard.down("Control")
    wide.mouse.wheel(0, -100)
    wide.keyboard.up("Control")
    wide.wait_for_function(f"+document.querySelector('.mg-player').dataset.mgZoom > {fitted}")
    wide.click('[data-zoom="one"]')  # room to pan
    before = root.evaluate(SIZES)["left"]
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    wide.mouse.move(x, y)
    wide.mouse.down()
    wide.mouse.move(x - 150, y, steps=5)
    wide.mouse.up()
    assert root.evaluate(SIZES)["left"] == pytest.approx(before + 150, abs=2)


def test_clicking_a_module_folds_it_into_a_box_with_its_gradient(wide, pages):
    root = open_player(wide, pages["cnn"])
    wide.click('[data-act="last"]')
    wide.click("#c_7 text")  # the title of module 7: Linear
    assert wide.get_attribute(".mg-player", "data-mg-folded") == "c_7"
    box = wide.locator("#box_c_7")
    assert box.is_visible()
    lines = box.locator("text").all_text_contents()
    assert lines[0] == "7: Linear"
    # its output (the linear op's node) is hidden, and its gradient is the box's last line
    out = root.evaluate("""root => { const b = root.querySelector('#c_7').getBBox();
      const inside = [...root.querySelectorAll('g.node[id^="n_"]')].filter(n => {
        const r = n.getBBox(); const x = r.x + r.width / 2, y = r.y + r.height / 2;
        return x > b.x && x < b.x + b.width && y > b.y && y < b.y + b.height; });
      return inside.map(n => [n.id, getComputedStyle(n).display,
                              (n.querySelector('[data-mg-grad]') || {}).textContent]); }""")
    assert len(out) == 3 and all(display == "none" for _, display, _ in out)
    assert lines[-1] in {grad for _, _, grad in out if grad}
    # the box's text fits inside it
    inside = box.evaluate("""b => { const r = b.querySelector('rect').getBoundingClientRect();
      return [...b.querySelectorAll('text')].every(t => { const q = t.getBoundingClientRect();
        return q.left >= r.left && q.right <= r.right &&
               q.top >= r.top && q.bottom <= r.bottom; }); }""")
    assert inside
    box.click()
    assert wide.get_attribute(".mg-player", "data-mg-folded") == ""
    assert not box.is_visible()
    assert labels_outside(root) == []
    assert wide.errors == []


def test_a_folded_box_follows_the_step(wide, pages):
    open_player(wide, pages["cnn"])
    wide.click("#c_7 text")
    first = wide.locator("#box_c_7 text").all_text_contents()
    wide.click('[data-act="last"]')
    last = wide.locator("#box_c_7 text").all_text_contents()
    assert first[-1] != last[-1] and last[-1].startswith("grad norm ")


IN_VIEW = """root => {
  const box = root.querySelector('.mg-graph').getBoundingClientRect();
  const el = root.querySelector('g.node.current') || root.querySelector('g.node.receiving')
    || root.querySelector('g.edge.current');
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1
    && r.bottom <= box.bottom + 1;
}"""


def test_the_current_node_stays_in_view_as_steps_advance(browser, pages):
    """The 3-4-4-1 scalar MLP at 1,000 x 700: its current node at step 100 once sat 1,475 px
    down in a 648 px box that never scrolled.  Zoomed to 100% (taller than the box), every
    step's current node is inside the box's visible part."""
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    try:
        pg = context.new_page()
        root = open_player(pg, pages["mlp"])
        pg.click('[data-zoom="one"]')
        box = root.evaluate("r => { const g = r.querySelector('.mg-graph');"
                            " return [g.scrollHeight, g.clientHeight]; }")
        assert box[0] > box[1]  # the graph is taller than its box: it must scroll
        n = int(root.locator(".mg-slider").get_attribute("max")) + 1
        seen = 0
        for k in range(0, n, 7):
            root.evaluate("(r, k) => { const s = r.querySelector('.mg-slider'); s.value = "
                          "String(k); s.dispatchEvent(new Event('input')); }", k)
            shown = root.evaluate(IN_VIEW)
            if shown is not None:
                seen += 1
                assert shown, k
        assert seen > n // 14  # most steps have a current node
    finally:
        context.close()
