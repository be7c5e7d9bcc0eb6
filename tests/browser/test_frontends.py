"""The step-through widget where students are: JupyterLab 4, Jupyter Notebook 7 and marimo.

Each test starts its front end's server on 127.0.0.1 (a free port, no token, throwaway
config dirs, the kernel importing this checkout) on a temporary copy of a small notebook
(``frontends.ipynb``; for marimo the app ``frontends_marimo_app.py``), opens it in headless
Chromium, steps the widget (the anywidget running ``viz/assets/player.js``), clicks
a node, reads the inspector and the panel, and stops the server.  The step also goes both
ways: in the Jupyter front ends a cell's ``stepper.goto(4)`` moves the browser, and after the
browser stepped, a cell printing ``stepper.step`` sees where it went; in marimo
(``frontends_marimo_sync_app.py``) a cell reading ``mo.ui.anywidget(stepper.widget)`` runs
again at each click, and a button's ``goto`` moves the browser.

Screenshots go to ``$MINIGRAD_SCREENSHOTS`` (default: the test's temporary directory).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.test_lab_stepper import (
    free_port,
    running_lab,
    stop,
    wait_for_server,
)

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
NOTEBOOK = "frontends.ipynb"
MARIMO_APP = "frontends_marimo_app.py"
MARIMO_SYNC_APP = "frontends_marimo_sync_app.py"
# the widget (its element is marked by the module's render), not a text/html player
WIDGET = ".mg-stepper-widget .mg-player[data-mg-ready]"


def shot(page, tmp: Path, name: str) -> Path:
    folder = Path(os.environ.get("MINIGRAD_SCREENSHOTS") or tmp)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"frontend-{name}.png"
    page.screenshot(path=str(path))
    return path


def step_of(widget) -> int:
    return int(widget.get_attribute("data-mg-step"))


def wait_step(widget, k: int, timeout: float = 30_000) -> None:
    widget.page.wait_for_function(
        "([el, k]) => el.getAttribute('data-mg-step') === String(k)",
        arg=[widget.element_handle(), k], timeout=timeout)


def step_click_and_read(widget, first: int) -> None:
    """Next, the arrow key, a click on node ``e``: the page shows what the frames say."""
    n = int(widget.locator(".mg-slider").get_attribute("max")) + 1
    assert widget.locator(".mg-counter").inner_text() == f"step {first + 1} / {n}"
    widget.locator("[data-act='next']").click()
    wait_step(widget, first + 1)
    widget.page.keyboard.press("ArrowRight")  # (the focus is on Next, inside the player)
    wait_step(widget, first + 2)
    assert widget.locator(".mg-counter").inner_text() == f"step {first + 3} / {n}"
    title = widget.locator(".mg-title").inner_text()
    assert title.startswith("Forward · create"), title  # (a, b, c, e, then #5 and #6)
    assert ("(tanh)" in title) == (first == 4) and ("create b" in title) == (first == 0)
    # the slider, dragged to the end: the backward pass is complete
    widget.locator(".mg-slider").evaluate(
        "s => { s.value = s.max; s.dispatchEvent(new Event('input')); }")
    wait_step(widget, n - 1)
    assert "Backward pass complete" in widget.locator(".mg-text").inner_text()
    # click node e: its value, gradient at this step, formula and saved values
    clicked = False
    for g in widget.locator("svg g.node").all():
        g.click()
        if widget.locator(".mg-inspect .mg-inspect-title").inner_text().startswith("e ·"):
            clicked = True
            break
    assert clicked, "no node of the graph is e"
    inspector = widget.locator(".mg-inspect").inner_text()
    assert "value -6.0000" in inspector and "a × b" in inspector
    assert "grad " in inspector and "a = input 0: 2.0000" in inspector  # mul saved its inputs
    widget.locator("[data-act='first']").click()
    wait_step(widget, 0)
    widget.locator("[data-act='last']").click()
    wait_step(widget, n - 1)


def run_jupyter(browser, base: str, url: str, tmp: Path, name: str) -> None:
    """Open the notebook at ``url``, run all cells, drive the widget; ``name`` the front end."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{base}{url}")
        page.wait_for_selector(".jp-Notebook .jp-Cell")
        accept = page.locator(".jp-Dialog .jp-mod-accept")  # which kernel? the notebook's own
        try:
            accept.wait_for(timeout=15_000)
            accept.click()
        except PlaywrightTimeout:
            pass
        try:  # the kernel is ready (Lab's and Notebook 7's toolbars say so)
            page.wait_for_selector("[data-status='idle']", state="attached", timeout=30_000)
        except PlaywrightTimeout:
            pass
        page.click(".lm-MenuBar-itemLabel:text-is('Run')")
        page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
        widget = page.locator(WIDGET).first
        widget.wait_for(timeout=90_000)
        widget.scroll_into_view_if_needed()
        page.wait_for_selector(".jp-OutputArea-output:has-text('python step 4')")
        wait_step(widget, 4)  # stepper.goto(4) in a cell moved the browser
        step_click_and_read(widget, 4)
        widget.locator("[data-act='prev']").click()  # the browser moves Python
        n = int(widget.locator(".mg-slider").get_attribute("max")) + 1
        wait_step(widget, n - 2)
        last = page.locator(".jp-Notebook .jp-Cell").last
        last.locator(".jp-InputArea").click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        page.wait_for_selector(f".jp-OutputArea-output:has-text('python step {n - 2}')")
        widget.scroll_into_view_if_needed()
        path = shot(page, tmp, name)
        assert path.stat().st_size > 10_000
        assert "Error displaying widget" not in page.inner_text("body")
        assert not [e for e in errors if "mg-" in e or "player" in e], errors
    except Exception:
        page.screenshot(path=str(tmp / f"{name}-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def test_the_widget_steps_in_jupyterlab(tmp_path, browser):
    for base, tmp in running_lab(tmp_path, NOTEBOOK):
        run_jupyter(browser, base, f"/lab/workspaces/frontends/tree/{NOTEBOOK}?reset", tmp,
                    "jupyterlab")


def test_the_widget_steps_in_notebook_7(tmp_path, browser):
    for base, tmp in running_lab(tmp_path, NOTEBOOK, app="notebook"):
        run_jupyter(browser, base, f"/notebooks/{NOTEBOOK}", tmp, "notebook7")


def running_marimo(tmp_path, app: str):
    """Serve a temporary copy of the marimo ``app`` (``marimo run``: 127.0.0.1, a free port,
    no token, throwaway config dirs, this checkout first on ``PYTHONPATH``); yield its
    base url, and stop the server."""
    if shutil.which("marimo", path=os.path.dirname(sys.executable)) is None:
        pytest.skip("marimo is not installed in this environment")
    work = tmp_path / "app"
    work.mkdir()
    shutil.copy(HERE / app, work / app)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "MARIMO_SKIP_UPDATE_CHECK": "1"}
    log = open(tmp_path / "marimo.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "marimo", "run", app, "--headless", "--host", "127.0.0.1",
         "--port", str(port), "--no-token", "--no-sandbox", "--no-check"],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_server(f"{base}/health", proc, 90)
        yield base
    finally:
        stop(proc, base)
        log.close()


def marimo_page(browser, base: str, tmp_path: Path, name: str, drive) -> None:
    """Open the served app in Chromium and ``drive(page)``; a failure leaves a screenshot."""
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(base)
        drive(page)
        path = shot(page, tmp_path, name)
        assert path.stat().st_size > 10_000
        assert "not supported in marimo" not in page.inner_text("body")
    except Exception:
        page.screenshot(path=str(tmp_path / f"{name}-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def test_the_widget_steps_in_marimo(tmp_path, browser):
    """marimo runs no script in HTML output: the stepper hands it the widget
    (``Stepper._display_``), which marimo runs as an anywidget."""
    def drive(page):
        widget = page.locator(WIDGET).first
        widget.wait_for(timeout=90_000)
        widget.scroll_into_view_if_needed()
        step_click_and_read(widget, 0)

    for base in running_marimo(tmp_path, MARIMO_APP):
        marimo_page(browser, base, tmp_path, "marimo", drive)


def test_python_sees_the_browsers_step_in_marimo(tmp_path, browser):
    """The other direction in marimo 0.25: a click in the widget reaches the kernel as a
    model update (``widget.set_state``), so the ``step`` traitlet and the stepper follow.
    Bound to a name (``view = mo.ui.anywidget(stepper.widget)``) the widget is a UI
    element, and a cell reading ``view`` runs again by itself; the stepper shown as it is
    follows too, and a cell reads ``stepper.step`` when it runs (a button here); and
    ``stepper.goto(5)`` in a button's handler moves the browser."""
    def text(page, words: str) -> None:
        page.wait_for_function("w => document.body.innerText.includes(w)", arg=words,
                               timeout=60_000)

    def drive(page):
        widgets = page.locator(WIDGET)
        widgets.nth(1).wait_for(timeout=90_000)
        bound, plain = widgets.nth(0), widgets.nth(1)
        text(page, "bound: python step 0, widget value step 0")
        bound.scroll_into_view_if_needed()
        for k in (1, 2, 3):
            bound.locator("[data-act='next']").click()
            wait_step(bound, k)
            text(page, f"bound: python step {k}, widget value step {k}")  # the cell ran again
        bound.locator("[data-act='prev']").click()
        text(page, "bound: python step 2, widget value step 2")
        plain.scroll_into_view_if_needed()
        for _ in range(4):
            plain.locator("[data-act='next']").click()
        wait_step(plain, 4)
        page.get_by_role("button", name="read the step").click()
        text(page, "plain: python step 4")
        page.get_by_role("button", name="goto 5").click()
        wait_step(plain, 5)  # Python moved the browser
        page.get_by_role("button", name="read the step").click()
        text(page, "plain: python step 5")
        assert step_of(bound) == 2  # (each widget has its own step)

    for base in running_marimo(tmp_path, MARIMO_SYNC_APP):
        marimo_page(browser, base, tmp_path, "marimo-sync", drive)
