"""The exported player of a torch step-through (PyTorch's own backward, recorded by
``viz.stepper.torch_recording``) in headless Chromium: it steps, restyles the graph and
its panel names the PyTorch Node with the kit's rule."""

from __future__ import annotations

import pytest

import viz

torch = pytest.importorskip("torch", reason="torch is optional")

pytestmark = pytest.mark.browser

STATES = """root => Object.fromEntries([...root.querySelectorAll('g[data-mg-base]')].map(el => {
  const base = el.getAttribute('data-mg-base').split(' ').filter(Boolean);
  return [el.id, el.getAttribute('class').split(' ').filter(c => c && !base.includes(c))
    .join(' ')];
}).filter(([, c]) => c))"""


def test_torch_player_steps_through_pytorchs_backward(page, tmp_path):
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.5, 0.25, -0.5], dtype=torch.float64, requires_grad=True)
    s = viz.step_through(lambda x, w: torch.tanh(x * w).sum(), x, w, layout="builtin")
    path = s.save_html(tmp_path / "torch_player.html")
    fr = s.frames
    n = len(fr)
    page.goto(path.as_uri())
    page.wait_for_selector(".mg-player[data-mg-ready]")
    root = page.locator(".mg-player")
    assert page.inner_text(".mg-counter") == f"step 1 / {n}"
    visit = next(f.index for f in fr.frames if f.kind == "visit" and "MulBackward0" in f.title)
    for _ in range(visit):
        page.click('[data-act="next"]')
    assert page.inner_text(".mg-title") == fr.frames[visit].title
    text = page.inner_text(".mg-text")
    assert text == fr.frames[visit].text
    assert "MulBackward0" in text and "the kit's mul rule" in text
    assert root.evaluate(STATES) == fr.classes(visit)
    page.click('[data-act="last"]')
    assert page.inner_text(".mg-text").startswith("Backward pass complete.")
    assert "x.grad" in page.inner_text(".mg-text")
    assert page.errors == []
