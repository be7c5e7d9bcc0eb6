"""The built-in layout in headless Chromium: every text fits in its box, and the player
steps through a built-in picture.

Text widths in ``viz.render.svg_cards`` are estimates (no font can be measured in Python);
here the browser measures the real text with the fonts it has and checks each text's
box lies inside its node's box (and each cluster title inside its frame).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import viz
from minigrad import Value
from minigrad.nn.scope import record_scopes, scope
from tests._graphs import Cube, neuron
from viz import export_html

pytestmark = pytest.mark.browser

# [[group id, [background x, y, w, h], [[text, x, y, w, h], ...]], ...] in SVG units
BOXES = """() => [...document.querySelectorAll('g.node, g.cluster')].map(g => {
  const r = g.querySelector('rect').getBBox();
  return [g.id, [r.x, r.y, r.width, r.height],
          [...g.querySelectorAll('text')].map(t => {
            const b = t.getBBox();
            return [t.textContent, b.x, b.y, b.width, b.height];
          })];
})"""


def _pictures() -> dict[str, str]:
    out = {}
    o, _ = neuron()
    o.backward()
    out["neuron"] = viz.draw(o, layout="builtin", legend=True, show_saved=True,
                             edge_labels=True, title="tanh(x1·w1 + x2·w2 + b)").svg()
    x = mg.Tensor(np.array([[1.25, -2.5], [3.75, 40.125]]), requires_grad=True,
                  name="WWW mmm @@@")  # the widest characters there are
    w = mg.Tensor(np.ones((2, 3)), requires_grad=True, name="数据 weights")
    y = ((x @ w).relu() * 2.0).sum()
    y.backward()
    out["tensor"] = viz.draw(y, layout="builtin", show_attrs=True, show_saved=True).svg()
    a = Value(-123456.789, label="a_very_long_name_indeed")
    c = Cube.apply(a) * 2 + a
    c.backward()
    out["function"] = viz.draw(c, layout="builtin", rankdir="TB", digits=6).svg()
    v = mg.Tensor([[1.0, 2.0]], name="x")
    p = mg.Tensor([[1.0], [2.0]], requires_grad=True, name="w")
    with record_scopes() as scopes:
        with scope("encoder"):
            with scope("0"):
                h = (v @ p).relu()
            with scope("1"):
                z = h * 2.0
        loss = z.sum()
    loss.backward()
    out["clusters"] = viz.draw(loss, scopes=scopes, layout="builtin").svg()
    out["boxes"] = viz.draw(loss, scopes=scopes, layout="builtin", modules="box").svg()
    with record_scopes() as scopes:
        with scope("a_module_with_a_title_much_wider_than_its_nodes"):
            k = p * 2.0
    out["long title"] = viz.draw(k.sum(), scopes=scopes, layout="builtin").svg()
    return out


@pytest.mark.parametrize("name", ["neuron", "tensor", "function", "clusters", "boxes",
                                  "long title"])
def test_every_text_lies_inside_its_box(page, name):
    svg = _pictures()[name]
    page.set_content(f"<!DOCTYPE html><html><body>{svg}</body></html>")
    found = page.evaluate(BOXES)
    assert len(found) >= 3
    checked = 0
    for key, (x, y, w, h), texts in found:
        for text, tx, ty, tw, th in texts:
            assert tw > 0, (key, text)  # (measured: the font did render it)
            assert x - 0.5 <= tx and tx + tw <= x + w + 0.5, (name, key, text, "width")
            assert y - 0.5 <= ty and ty + th <= y + h + 0.5, (name, key, text, "height")
            checked += 1
    assert checked >= len(found)
    assert page.errors == []


def test_player_steps_through_a_builtin_picture(page, tmp_path):
    with mg.record() as tape:
        a = Value(2.0, label="a")
        b = Value(3.0, label="b")
        out = (a * b + a) * b
        out.backward()
    path = export_html(tape, tmp_path / "p.html", mode="both", layout="builtin")
    page.goto(path.as_uri())
    page.wait_for_selector(".mg-player[data-mg-ready]")
    page.click('[data-act="next"]')
    current = page.locator(f"#n_{a.id}")
    assert "current" in current.get_attribute("class").split()
    # the state stylesheet reaches the built-in picture's background shape
    assert page.locator(f"#n_{a.id}_s").evaluate("e => getComputedStyle(e).stroke") == (
        "rgb(214, 39, 40)")
    page.click('[data-act="last"]')
    shown = page.locator(f'[data-mg-grad="n_{a.id}"]').text_content()
    assert shown == f"grad {a.grad:.4f}"
    assert page.errors == []
