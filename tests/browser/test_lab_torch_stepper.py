"""JupyterLab test of a torch step-through: PyTorch's real backward in the stepper widget.

Starts Lab as ``test_lab_stepper`` does (127.0.0.1, free port, empty token, throwaway
Jupyter dirs, bounded shutdown) on a temporary copy of ``torch_stepper.ipynb``
(``viz.step_through(loss)`` of ``torch.tanh(x * w).sum()``), runs all cells, moves the
widget's slider into the backward pass and reads its panel: the first backward step
says the step-through ran the loss's backward once, and the visit of ``MulBackward0``
names the PyTorch Node with the kit's mul rule.  The kernel imports this checkout's
``viz`` (``PYTHONPATH``), not whichever one the venv has installed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .test_lab_stepper import run_all, running_lab

torch = pytest.importorskip("torch", reason="torch is not installed: the torch step-through "
                                             "in JupyterLab is not tested")

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent
NOTEBOOK = "torch_stepper.ipynb"
PANEL = ".mg-stepper-widget .mg-panel"


def notebook_frames():
    """The notebook's step-through built here, for the step numbers and texts to expect."""
    import viz

    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.5, 0.25, -0.5], dtype=torch.float64, requires_grad=True)
    return viz.step_through(torch.tanh(x * w).sum(), layout="builtin").frames


@pytest.fixture
def torch_lab(tmp_path, browser):
    yield from running_lab(tmp_path, NOTEBOOK)


def test_torch_step_through_in_jupyterlab(torch_lab, browser):
    base, tmp = torch_lab
    fr = notebook_frames()
    n = len(fr)
    seed = next(f.index for f in fr.frames if f.kind == "seeded")
    visit = next(f.index for f in fr.frames if f.kind == "visit" and "MulBackward0" in f.title)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        run_all(page, base, NOTEBOOK, "mgtorch")
        widget = page.locator(".mg-stepper-widget").first
        widget.wait_for()
        widget.scroll_into_view_if_needed()
        page.wait_for_selector(".mg-stepper-widget svg g.node")
        assert page.locator(".mg-stepper-widget svg g.node[id^='n_']").count() == 5  # x, w, 3 Nodes
        assert f"step 1 / {n}" in page.inner_text(".mg-stepper-widget")

        def step_to(index: int, words: str) -> str:
            """Next ▶ until step ``index`` (each click waits for the kernel's answer)."""
            for k in range(current[0] + 1, index + 1):
                page.click(".mg-stepper-widget button:has-text('Next ▶')")
                page.wait_for_function(
                    "s => document.querySelector('.mg-stepper-widget').innerText.includes(s)",
                    arg=f"step {k + 1} / {n}")
            current[0] = index
            page.wait_for_function(
                f"() => (document.querySelector({PANEL!r}) || {{}}).innerText"
                f"?.includes({words!r})")
            return page.inner_text(PANEL)

        current = [0]
        # the first backward step: what the step-through did to the user's graph
        text = step_to(seed, "Seed")
        assert "This step-through ran the loss's backward once" in text
        assert "without retain_graph=True PyTorch freed the graph" in text
        # into the backward pass: the visit of the PyTorch Node, with the kit's formula
        text = step_to(visit, "MulBackward0")
        assert "visit" in text and "MulBackward0" in text
        assert "the kit's mul rule, ∂/∂a = b" in text
        if os.environ.get("MINIGRAD_SCREENSHOTS"):  # to look at it: a directory to write to
            page.screenshot(path=os.path.join(os.environ["MINIGRAD_SCREENSHOTS"], "lab-torch.png"))
    except Exception:
        page.screenshot(path=str(tmp / "lab-torch-failure.png"), full_page=True)
        raise
    finally:
        context.close()
