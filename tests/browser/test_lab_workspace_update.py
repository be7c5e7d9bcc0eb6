"""Reading a lesson is not editing it: a workspace lesson opened, run and saved in
JupyterLab still takes the course's update; one whose cell was edited is kept, with the
update beside it (``scripts/workspace.py``, ``make lab``).

JupyterLab rewrites a notebook it opens and runs (kernel display name, language_info, a
widgets block, outputs, cell ids); the test lets a real Lab do that, rather than guessing
what it writes.  One short-lived server on a temporary workspace made from a two-cell
course lesson (started as ``make lab`` does: the kit's settings and save hook, via
``start_lab``, whose served folder is ``tmp/notebooks``: the workspace here).
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from scripts import workspace as ws
from tests.browser.test_lab_save_reopen import start_lab
from tests.browser.test_lab_stepper import stop

pytestmark = pytest.mark.browser

LESSON = "01_lesson.ipynb"


def lesson(*sources: str) -> str:
    """A course lesson as the kit commits one: nbformat 4.4, sources as lists of lines."""
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# A lesson"]}] + [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": src.splitlines(keepends=True)} for src in sources]
    return json.dumps({"cells": cells, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 4}, indent=1) + "\n"


def sources(path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]


def open_lesson(page, base: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(f"{base}/lab/workspaces/mgws/tree/{LESSON}?reset")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    accept = page.locator(".jp-Dialog .jp-mod-accept")  # which kernel: the notebook's own
    try:
        accept.wait_for(timeout=10_000)
        accept.click()
    except PlaywrightTimeout:
        pass
    page.wait_for_selector(".jp-NotebookPanel [data-status='idle']")


def save(page) -> None:
    """ctrl+s, as a student saves; then wait for the tab to lose its "dirty" mark."""
    page.locator(".jp-NotebookPanel .jp-Notebook").first.click()  # command mode, focused
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !document.querySelector('.jp-mod-current.jp-mod-dirty')")
    page.wait_for_timeout(500)


def in_lab(browser, base, tmp, name, act) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_lesson(page, base)
        act(page)
    except Exception:
        page.screenshot(path=str(tmp / f"{name}-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def run_all_and_save(page) -> None:
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    page.wait_for_selector(".jp-OutputArea-output:has-text('42')")
    save(page)


def edit_first_code_cell_and_save(page) -> None:
    editor = page.locator(".jp-CodeCell .cm-content").first
    editor.click()
    page.keyboard.press("End")
    page.keyboard.type("  # my note")
    save(page)


def test_a_lesson_run_in_lab_takes_the_update_and_an_edited_one_is_kept(tmp_path, browser):
    if shutil.which("jupyter-lab", path=os.path.dirname(sys.executable)) is None:
        pytest.skip("JupyterLab is not installed in this environment")
    course = tmp_path / "course"
    (course / "notebooks").mkdir(parents=True)
    course_lesson = course / "notebooks" / LESSON
    course_lesson.write_text(lesson("x = 41", "print(x + 1)"))
    work = tmp_path / "notebooks"  # the folder start_lab serves: the student's workspace
    ws.sync(course, work)
    settings = tmp_path / "lab-settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(json.dumps(ws.LAB_OVERRIDES))
    mine = work / LESSON

    proc, base, log = start_lab(tmp_path, settings, "lab.log")
    try:
        # 1. open, run, save: Lab rewrites the file, no cell's source changes
        in_lab(browser, base, tmp_path, "run", run_all_and_save)
        saved = json.loads(mine.read_text())
        assert saved["metadata"].get("language_info"), "Lab did not save the lesson"
        assert "42" in json.dumps(saved["cells"][2]["outputs"])
        assert mine.read_text() != course_lesson.read_text()  # bytes differ ...
        assert sources(mine) == sources(course_lesson)  # ... sources do not
        course_lesson.write_text(lesson("x = 41", "print(x + 2)"))  # the course's update
        report = ws.sync(course, work)
        assert report.rerun == [LESSON] and not report.offered
        assert mine.read_text() == course_lesson.read_text()
        assert not (work / ws.beside(LESSON)).exists()

        # 2. edit a cell, save: the lesson is the student's; the next update goes beside it
        in_lab(browser, base, tmp_path, "edit", edit_first_code_cell_and_save)
        assert sources(mine)[1] == "x = 41  # my note"
        edited = mine.read_text()
        course_lesson.write_text(lesson("x = 41", "print(x + 3)"))
        report = ws.sync(course, work)
        assert report.offered == [LESSON] and not report.rerun
        assert mine.read_text() == edited
        assert (work / ws.beside(LESSON)).read_text() == course_lesson.read_text()
    finally:
        stop(proc, base)
        log.close()
