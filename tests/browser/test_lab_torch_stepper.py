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

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .test_lab_stepper import START_TIMEOUT, free_port, stop, wait_for_server

torch = pytest.importorskip("torch", reason="torch is not installed: the torch step-through "
                                             "in JupyterLab is not tested")

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
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
    if shutil.which("jupyter-lab", path=os.path.dirname(sys.executable)) is None:
        pytest.skip("JupyterLab is not installed in this environment")
    work = tmp_path / "notebooks"
    work.mkdir()
    shutil.copy(HERE / NOTEBOOK, work / NOTEBOOK)
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
    labconfig = home / "config" / "labconfig"
    labconfig.mkdir(parents=True)
    (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": {
        "@jupyterlab/apputils-extension:announcements": True}}))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         "--IdentityProvider.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={work}", "--ServerApp.disable_check_xsrf=True",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--ServerApp.terminals_enabled=False"]
        + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        wait_for_server(f"{base}/api/status", proc, START_TIMEOUT)
        yield base, tmp_path
    finally:
        stop(proc, base)
        log.close()


def run_all(page, base) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(f"{base}/lab/workspaces/mgtorch/tree/{NOTEBOOK}?reset")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    accept = page.locator(".jp-Dialog .jp-mod-accept")  # which kernel: the notebook's own
    try:
        accept.wait_for(timeout=20_000)
        accept.click()
    except PlaywrightTimeout:
        pass
    page.wait_for_selector(".jp-NotebookPanel [data-status='idle']")
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")


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
        run_all(page, base)
        widget = page.locator(".mg-stepper-widget").first
        widget.wait_for()
        widget.scroll_into_view_if_needed()
        page.wait_for_selector(".mg-widget svg g.node")
        assert page.locator(".mg-widget svg g.node[id^='n_']").count() == 5  # x, w, 3 Nodes
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
