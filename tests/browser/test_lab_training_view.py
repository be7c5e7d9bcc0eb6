"""JupyterLab test of ``viz.TrainingView``: a training loop's live view is one output,
updated in place through its display handle (not a new output per frame), and its last
frame shows every panel: curves, the ratio panel with its guide, the histograms, the
decision boundary and the graph with coloured edges.  Started like ``test_lab_stepper``
(127.0.0.1, free port, empty token, throwaway Jupyter dirs) on a temporary copy of
``training_view.ipynb``; a screenshot of the frame goes to the test's tmp folder."""

from __future__ import annotations

import pytest

from .test_lab_stepper import run_all, running_lab

pytestmark = pytest.mark.browser

NOTEBOOK = "training_view.ipynb"
VIEW = ".jp-OutputArea-output .minigrad-training-view"


@pytest.fixture
def training_lab(tmp_path, browser):
    yield from running_lab(tmp_path, NOTEBOOK)


def test_training_view_updates_in_place_in_jupyterlab(training_lab, browser):
    base, tmp = training_lab
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        run_all(page, base, NOTEBOOK, "mgtraining")
        page.wait_for_selector(VIEW)
        page.wait_for_function(
            "s => [...document.querySelectorAll(s)].some(e => e.innerText.includes('step 59'))",
            arg=VIEW + " .tv-title")
        page.wait_for_selector(".jp-NotebookPanel [data-status='idle']")
        assert page.locator(VIEW).count() == 1  # one output, replaced frame by frame
        view = page.locator(VIEW).first
        view.scroll_into_view_if_needed()
        for panel in ("loss", "acc", "ratio", "boundary", "weights 0", "grads 4"):
            assert view.locator(f"svg[data-panel='{panel}']").count() == 1, panel
        assert view.locator("svg[data-panel='ratio'] line.guide").count() == 1
        assert view.locator("svg[data-panel='boundary'] circle.point").count() == 100
        edges = view.locator("[data-panel='graph'] svg g.edge path")
        assert edges.count() >= 3
        colours = {edges.nth(k).get_attribute("stroke") for k in range(edges.count())}
        assert len(colours) >= 2  # coloured by gradient norm, not all one colour
        view.screenshot(path=str(tmp / "training-view-lab.png"))
    except Exception:
        page.screenshot(path=str(tmp / "lab-failure.png"), full_page=True)
        raise
    finally:
        context.close()
