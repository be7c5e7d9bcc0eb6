"""marimo test of ``viz.TrainingView``: under ``marimo run`` the view finds marimo through
``sys.modules`` and replaces the cell's output with each frame (``marimo.output.replace``),
so the page shows one view, at the last step, with its panels.  The server is started on
127.0.0.1 with a free port and no token, on a temporary copy of
``training_view_marimo.py``, with this checkout first on ``PYTHONPATH``, and stopped after."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .test_lab_stepper import free_port, wait_for_server

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
NOTEBOOK = "training_view_marimo.py"


@pytest.fixture
def marimo_app(tmp_path, browser):
    pytest.importorskip("marimo", reason="marimo is not installed")
    shutil.copy(HERE / NOTEBOOK, tmp_path / NOTEBOOK)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), "HOME": str(tmp_path)}
    log = open(tmp_path / "marimo.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "marimo", "run", NOTEBOOK, "--headless", "--host", "127.0.0.1",
         "--port", str(port), "--no-token"],
        cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_server(base, proc, timeout=60)
        yield base, tmp_path
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # the session we started for the server
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        log.close()


def test_training_view_replaces_its_output_in_marimo(marimo_app, browser):
    base, tmp = marimo_app
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(base + "/")
        page.wait_for_function("() => document.body.innerText.includes('step 29')")
        views = page.locator(".minigrad-training-view")
        assert views.count() == 1
        for panel in ("loss", "acc", "ratio", "boundary", "weights 0", "grads 2", "graph"):
            image = views.first.locator(f"img.tv-panel[alt='{panel}']")
            assert image.count() == 1, panel
            image.scroll_into_view_if_needed()
            assert image.evaluate("img => img.complete && img.naturalWidth > 0"), panel
        views.first.screenshot(path=str(tmp / "training-view-marimo.png"))
    except Exception:
        page.screenshot(path=str(tmp / "marimo-failure.png"), full_page=True)
        raise
    finally:
        context.close()
