"""JupyterLab tests of ``viz.TrainingView``.

* A training loop's live view is one output, updated in place through its display handle
  (not a new output per frame), and its last frame shows every panel, each an SVG image
  the browser decoded and drew (curves, ratios, histograms, boundary, graph).
* Lesson 17 as committed, opened without running it in a Lab with fresh Jupyter dirs (so
  the notebook is untrusted and its HTML sanitised): each live view's last frame is
  there, every panel image drawn, and no "Error displaying widget".

Started like ``test_lab_stepper`` (127.0.0.1, free port, empty token, throwaway Jupyter
dirs) on temporary copies; screenshots go to the test's tmp folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from . import test_lab_stepper
from .test_lab_stepper import run_all, running_lab

pytestmark = pytest.mark.browser

NOTEBOOK = "training_view.ipynb"
VIEW = ".jp-OutputArea-output .minigrad-training-view"
LESSON = Path(__file__).parents[2] / "notebooks" / "17_watching_a_network_learn.ipynb"
DRAWN = "img => img.complete && img.naturalWidth > 0"


def drawn_panels(view) -> dict:
    """``{panel name: drawn?}`` for the panel images of one view."""
    # (by alt: an untrusted notebook's sanitiser drops data-* attributes, keeps alt)
    names = view.locator("img.tv-panel").evaluate_all("els => els.map(e => e.alt)")
    drawn = view.locator("img.tv-panel").evaluate_all(f"els => els.map({DRAWN})")
    return dict(zip(names, drawn))


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
        page.wait_for_function(
            f"s => [...document.querySelectorAll(s + ' img.tv-panel')].every({DRAWN})",
            arg=VIEW)
        panels = drawn_panels(view)
        for panel in ("loss", "acc", "ratio", "boundary", "weights 0", "grads 4", "graph"):
            assert panels.get(panel) is True, (panel, panels)
        view.screenshot(path=str(tmp / "training-view-lab.png"))
    except Exception:
        page.screenshot(path=str(tmp / "lab-failure.png"), full_page=True)
        raise
    finally:
        context.close()


@pytest.fixture
def lesson_lab(tmp_path, browser, monkeypatch):
    here = tmp_path / "lesson"
    here.mkdir()
    shutil.copy(LESSON, here / LESSON.name)
    monkeypatch.setattr(test_lab_stepper, "HERE", here)  # running_lab copies from HERE
    yield from running_lab(tmp_path, LESSON.name)


def test_saved_lesson_17_shows_its_last_frames_untrusted(lesson_lab, browser):
    base, tmp = lesson_lab
    # (Lab renders only the cells near the viewport: a tall one shows the whole lesson)
    context = browser.new_context(viewport={"width": 1400, "height": 16000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{base}/lab/workspaces/mgl17/tree/{LESSON.name}?reset")
        page.wait_for_selector(VIEW)
        views = page.locator(VIEW)
        page.wait_for_function("s => document.querySelectorAll(s).length >= 4", arg=VIEW)
        assert views.count() == 4  # scalar demo, fit(live=True), lr too high, dead layer
        for k in range(4):
            view = views.nth(k)
            view.scroll_into_view_if_needed()
            page.wait_for_function(f"v => [...v.querySelectorAll('img.tv-panel')].every({DRAWN})",
                                   arg=view.element_handle())
            panels = drawn_panels(view)
            assert {"loss", "acc", "ratio", "boundary", "graph"} <= set(panels), panels
            assert all(panels.values()), panels
        assert page.locator("text=Error displaying").count() == 0
        views.nth(3).screenshot(path=str(tmp / "lesson17-dead-layer-untrusted.png"))
    except Exception:
        page.screenshot(path=str(tmp / "lab-failure.png"), full_page=True)
        raise
    finally:
        context.close()
