"""JupyterLab smoke test: the stepper widget in a real Lab, restyled by its controls.

Starts Lab from this venv on 127.0.0.1 (free port, empty token, throwaway
config/data/settings dirs) on a temporary copy of ``stepper_smoke.ipynb``,
runs all cells from the Run menu, clicks Next and moves the slider, and
checks that the graph restyles (computed styles change, nothing re-laid out).
Lab is always shut down, with bounded timeouts.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
NOTEBOOK = "stepper_smoke.ipynb"
START_TIMEOUT = 90  # seconds for Lab to answer
RED = "rgb(214, 39, 40)"  # current
GREEN = "rgb(44, 160, 44)"  # has a gradient


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(url: str, proc, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"JupyterLab did not answer at {url} within {timeout} s")


def stop(proc, base: str) -> None:
    """Ask Lab to shut down (it stops its kernels), then make sure it is gone."""
    if proc.poll() is None:
        try:
            req = urllib.request.Request(f"{base}/api/shutdown", method="POST")
            urllib.request.urlopen(req, timeout=5).close()
        except OSError:
            pass
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)  # the session we started for Lab
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def running_lab(tmp_path, notebook: str, app: str = "jupyterlab"):
    """Start JupyterLab (``app="notebook"``: Jupyter Notebook 7) on a temporary copy of
    ``notebook``; yield ``(base url, tmp_path)``.

    127.0.0.1, a free port, an empty token, throwaway Jupyter dirs, no pop-ups, and the
    kernel importing this checkout (``PYTHONPATH``), not whichever copy the venv has."""
    script = {"jupyterlab": "jupyter-lab", "notebook": "jupyter-notebook"}[app]
    if shutil.which(script, path=os.path.dirname(sys.executable)) is None:
        pytest.skip(f"{script} is not installed in this environment")
    work = tmp_path / "notebooks"
    work.mkdir()
    shutil.copy(HERE / notebook, work / notebook)
    home = tmp_path / "jupyter"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "IPYTHONDIR": str(home / "ipython"),
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    # no news/update pop-ups over the notebook
    labconfig = home / "config" / "labconfig"
    labconfig.mkdir(parents=True)
    (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": {
        "@jupyterlab/apputils-extension:announcements": True}}))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", app, "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         "--IdentityProvider.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={work}", "--ServerApp.disable_check_xsrf=True",
         "--ServerApp.terminals_enabled=False"]
        + (["--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
           if app == "jupyterlab" else [])
        + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        wait_for_server(f"{base}/api/status", proc, START_TIMEOUT)
        yield base, tmp_path
    finally:
        stop(proc, base)
        log.close()


@pytest.fixture
def lab(tmp_path, browser):
    yield from running_lab(tmp_path, NOTEBOOK)


def run_all(page, base, notebook: str = NOTEBOOK, workspace: str = "mgtest") -> None:
    """Open ``notebook`` in Lab and run all its cells."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{notebook}?reset")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    # Lab may ask which kernel to start: take the notebook's own (python3)
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    try:
        accept.wait_for(timeout=20_000)
        accept.click()
    except PlaywrightTimeout:
        pass
    page.wait_for_selector(".jp-NotebookPanel [data-status='idle']")  # the kernel is ready
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")


def open_and_run(browser, base, tmp):
    """A fresh browser context on the smoke notebook, all cells run: (context, page)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        run_all(page, base)
    except Exception:
        page.screenshot(path=str(tmp / "lab-failure.png"), full_page=True)
        context.close()
        raise
    return context, page


def test_stepper_widget_restyles_in_jupyterlab(lab, browser):
    """The anywidget (the player's own module): its controls restyle the one SVG; the
    other front ends, and the step synced with Python, are tests/browser/test_frontends.py."""
    base, tmp = lab
    context, page = open_and_run(browser, base, tmp)
    widget_svg = ".mg-stepper-widget svg"
    nodes_sel = f"{widget_svg} g.node[id^='n_']"
    try:
        widget = page.locator(".mg-stepper-widget .mg-player[data-mg-ready]").first
        widget.wait_for()
        widget.scroll_into_view_if_needed()
        assert page.locator(nodes_sel).count() == 4  # a, b, a*b, a*b + a

        def strokes() -> list[str]:
            return page.eval_on_selector_all(
                f"{widget_svg} .mg-s", "els => els.map(e => getComputedStyle(e).stroke)")

        # step 0 of "both": nothing created yet, every node hidden
        page.wait_for_function(
            f"() => [...document.querySelectorAll({nodes_sel!r})]"
            ".every(e => getComputedStyle(e).opacity === '0')")
        layout = page.eval_on_selector(widget_svg, "s => s.getAttribute('viewBox')")
        assert "step 1 / " in widget.inner_text()  # opens on the first step
        # the controls hold one line at 1,400 px
        tops = widget.locator(".mg-controls").evaluate(
            "row => [...row.children].map(e => Math.round(e.getBoundingClientRect().top))")
        assert max(tops) - min(tops) < 10, tops

        widget.locator("button:has-text('Next ▶')").click()
        page.wait_for_function(
            f"() => [...document.querySelectorAll({nodes_sel!r})]"
            ".filter(e => getComputedStyle(e).opacity === '0').length === 3")
        assert RED in strokes()  # the new node is outlined as current
        assert "Forward · create a" in widget.locator(".mg-panel").inner_text()
        assert "step 2 / " in widget.inner_text()

        widget.locator("button:has-text('Next ▶')").focus()
        page.keyboard.press("End")  # to the end with the keyboard
        page.wait_for_function(
            "() => (document.querySelector('.mg-stepper-widget .mg-panel') || {}).innerText"
            "?.includes('Backward pass complete')")
        page.wait_for_function(  # (opacity fades in over 0.15 s)
            f"() => [...document.querySelectorAll({nodes_sel!r})]"
            ".every(e => getComputedStyle(e).opacity === '1')")
        assert GREEN in strokes()  # nodes holding a gradient
        grads = page.eval_on_selector_all(f"{widget_svg} [data-mg-grad]",
                                          "els => els.map(e => e.textContent)")
        assert "grad 4.0000" in grads and "grad 2.0000" in grads  # a.grad, b.grad
        # restyled, not redrawn: the same SVG element and layout
        assert page.eval_on_selector(widget_svg, "s => s.getAttribute('viewBox')") == layout
        if os.environ.get("MINIGRAD_SCREENSHOTS"):  # to look at it: a directory to write to
            page.screenshot(path=os.path.join(os.environ["MINIGRAD_SCREENSHOTS"], "lab.png"))
    except Exception:
        page.screenshot(path=str(tmp / "lab-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def test_static_player_runs_in_jupyterlab(lab, browser):
    """static=True outputs the standalone player: Lab runs its inline script (the
    output of a cell run in this session is trusted), so it steps like the widget."""
    base, tmp = lab
    context, page = open_and_run(browser, base, tmp)
    try:
        player = page.locator(".jp-OutputArea .mg-player[data-mg-ready]:has(script.mg-data)")
        player.wait_for()
        player.scroll_into_view_if_needed()
        assert player.get_attribute("data-mg-step") == "0"
        assert player.locator("svg g.node[id^='n_']").count() == 2  # x and x*x
        player.locator("[data-act='next']").click()
        assert player.get_attribute("data-mg-step") == "1"
        assert "Forward · create x" in player.locator(".mg-title").inner_text()
        player.locator("[data-act='last']").click()
        assert "Backward pass complete" in player.locator(".mg-text").inner_text()
    except Exception:
        page.screenshot(path=str(tmp / "lab-static-failure.png"), full_page=True)
        raise
    finally:
        context.close()
