"""A lesson saved after running reopens with its outputs, never "Error displaying widget".

JupyterLab autosaves a notebook a student has run.  A widget output is saved as a
pointer to a model in the kernel; reopened in a fresh server, a pointer with no saved
state shows "Error displaying widget: model not found".  ``make lab`` runs Lab with
the kit's settings (widget state saved, no news pop-up: ``scripts/workspace.py
lab-settings``) and a pre-save hook (``scripts/lab_save.py``); this test does the
same with a small notebook of its own: a ``fit`` progress bar and a step-through.
It runs the notebook, saves it, stops the server, starts a fresh one and reopens it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from scripts.workspace import LAB_OVERRIDES
from tests._helpers import ROOT
from tests.browser.test_lab_stepper import free_port, stop, wait_for_server

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent
NOTEBOOK = "save_reopen.ipynb"
ERROR = "Error displaying widget"


def start_lab(tmp: Path, settings: Path, log_name: str):
    """Lab on ``tmp/notebooks`` with the kit's settings and save hook, as ``make lab``."""
    home = tmp / "jupyter"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "IPYTHONDIR": str(home / "ipython"),
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(tmp / log_name, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         "--IdentityProvider.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={tmp / 'notebooks'}", "--ServerApp.disable_check_xsrf=True",
         f"--LabApp.app_settings_dir={settings}",
         "--ContentsManager.pre_save_hook=scripts.lab_save.drop_orphan_widget_views",
         "--ServerApp.terminals_enabled=False"]
        + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        cwd=tmp / "notebooks", env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for_server(f"{base}/api/status", proc, 90)
    except Exception:
        stop(proc, base)
        log.close()
        raise
    return proc, base, log


@pytest.fixture
def lab_dirs(tmp_path, browser):
    if shutil.which("jupyter-lab", path=os.path.dirname(sys.executable)) is None:
        pytest.skip("JupyterLab is not installed in this environment")
    (tmp_path / "notebooks").mkdir()
    shutil.copy(HERE / NOTEBOOK, tmp_path / "notebooks" / NOTEBOOK)
    settings = tmp_path / "lab-settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(json.dumps(LAB_OVERRIDES))
    return tmp_path, settings


def setting_default(base: str, plugin: str, key: str):
    """A setting's default as the server hands it to Lab (overrides applied)."""
    with urllib.request.urlopen(f"{base}/lab/api/settings/{plugin}", timeout=10) as r:
        return json.load(r)["schema"]["properties"][key]["default"]


def open_notebook(page, base) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(f"{base}/lab/workspaces/mgsave/tree/{NOTEBOOK}?reset")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    accept = page.locator(".jp-Dialog .jp-mod-accept")  # which kernel: the notebook's own
    try:
        accept.wait_for(timeout=20_000)
        accept.click()
    except PlaywrightTimeout:
        pass
    page.wait_for_selector(".jp-NotebookPanel [data-status='idle']")


def run_and_save(browser, base, tmp) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_notebook(page, base)
        page.click(".lm-MenuBar-itemLabel:text-is('Run')")
        page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
        page.wait_for_selector(".jp-OutputArea-output:has-text('done')")
        page.wait_for_selector(".mg-stepper-widget")
        page.click(".lm-MenuBar-itemLabel:text-is('File')")
        page.click(".lm-Menu-itemLabel:text-is('Save Notebook')")
        page.wait_for_function(  # saved: the tab loses its "dirty" mark
            "() => !document.querySelector('.jp-mod-current.jp-mod-dirty')")
    except Exception:
        page.screenshot(path=str(tmp / "save-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def test_a_saved_lesson_reopens_without_widget_errors(lab_dirs, browser):
    tmp, settings = lab_dirs
    proc, base, log = start_lab(tmp, settings, "lab-1.log")
    try:
        assert setting_default(base, "@jupyterlab/apputils-extension:notification",
                               "fetchNews") == "false"  # no news pop-up over the graphs
        assert setting_default(base, "@jupyter-widgets/jupyterlab-manager:plugin",
                               "saveState") is True
        run_and_save(browser, base, tmp)
    finally:
        stop(proc, base)
        log.close()

    saved = json.loads((tmp / "notebooks" / NOTEBOOK).read_text())
    assert saved["metadata"].get("widgets"), "widget state was not saved with the notebook"

    proc, base, log = start_lab(tmp, settings, "lab-2.log")  # a fresh server
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_notebook(page, base)
        outputs = page.locator(".jp-OutputArea-output")
        outputs.last.scroll_into_view_if_needed()
        # the progress bars, restored from the saved state at their final text
        bars = page.locator(".jp-OutputArea-output .widget-hprogress")
        bars.first.wait_for()
        assert bars.count() == 2  # one per epoch
        assert "4/4" in page.inner_text(".jp-OutputArea-output:has(.widget-hprogress)")
        # the step-through as its standalone player: it steps with no kernel
        player = page.locator(".jp-OutputArea .mg-player[data-mg-ready]")
        player.wait_for()
        player.locator("[data-act='last']").click()
        assert "Backward pass complete" in player.locator(".mg-text").inner_text()
        page.wait_for_timeout(1000)  # (a widget renderer that fails does so by now)
        assert page.locator(f"text={ERROR}").count() == 0
        assert ERROR not in page.inner_text(".jp-NotebookPanel")
        if os.environ.get("MINIGRAD_SCREENSHOTS"):
            page.screenshot(path=os.path.join(os.environ["MINIGRAD_SCREENSHOTS"],
                                              "lab-reopened.png"), full_page=True)
    except Exception:
        page.screenshot(path=str(tmp / "reopen-failure.png"), full_page=True)
        raise
    finally:
        context.close()
        stop(proc, base)
        log.close()
