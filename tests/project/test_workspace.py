"""The student's workspace (``make lab``, ``scripts/workspace.py``): made from the
course's lessons and stubs, never overwriting what the student changed.

Each test builds a small fake course in a temporary folder and plays the story:
make the workspace, edit, let the course change (what ``git pull`` does), sync again.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from exercises import _runner
from scripts import workspace as ws
from tests._helpers import ROOT


@pytest.fixture
def course(tmp_path):
    """A course with two lessons, a data file, test settings and two exercises."""
    root = tmp_path / "course"
    (root / "notebooks" / "data").mkdir(parents=True)
    (root / "exercises" / "solutions").mkdir(parents=True)
    (root / "notebooks" / "01_values.ipynb").write_text("lesson 1 v1")
    (root / "notebooks" / "02_backward.ipynb").write_text("lesson 2 v1")
    (root / "notebooks" / "data" / "points.csv").write_text("1,2\n")
    (root / "notebooks" / "conftest.py").write_text("# nbval settings")
    (root / "notebooks" / "sanitize.cfg").write_text("[regex]")
    (root / "exercises" / "ex01_graph_text.py").write_text("def build_graph():\n    raise "
                                                           "NotImplementedError\n")
    (root / "exercises" / "ex02_mul_backward.py").write_text("stub 2")
    (root / "exercises" / "solutions" / "ex02_mul_backward.py").write_text("answer")
    (root / "exercises" / "_runner.py").write_text("kit code")
    return root


def listing(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_first_sync_copies_lessons_data_and_stubs_but_not_tests_or_solutions(course, tmp_path):
    work = tmp_path / "work"
    report = ws.sync(course, work)
    assert listing(work) == [ws.MANIFEST, "01_values.ipynb", "02_backward.ipynb",
                             "data/points.csv", "exercises/conftest.py",
                             "exercises/ex01_graph_text.py", "exercises/ex02_mul_backward.py"]
    assert sorted(report.copied) == sorted(ws.course_files(course))
    assert (work / "01_values.ipynb").read_text() == "lesson 1 v1"


def test_a_students_edit_survives_a_course_update_and_the_update_is_placed_beside(
        course, tmp_path):
    work = tmp_path / "work"
    ws.sync(course, work)
    (work / "01_values.ipynb").write_text("lesson 1 v1 + my notes")  # the student's edit
    (course / "notebooks" / "01_values.ipynb").write_text("lesson 1 v2")  # git pull
    report = ws.sync(course, work)
    assert (work / "01_values.ipynb").read_text() == "lesson 1 v1 + my notes"
    assert (work / "01_values (course update).ipynb").read_text() == "lesson 1 v2"
    assert report.offered == ["01_values.ipynb"] and not report.updated
    assert any("01_values (course update).ipynb" in line for line in report.lines(work))
    # and again: nothing new to say but the reminder, the edit still there
    again = ws.sync(course, work)
    assert (again.copied, again.updated, again.offered) == ([], [], [])
    assert again.pending == ["01_values.ipynb"]
    assert (work / "01_values.ipynb").read_text() == "lesson 1 v1 + my notes"


def test_an_untouched_copy_follows_the_course(course, tmp_path):
    work = tmp_path / "work"
    ws.sync(course, work)
    (course / "notebooks" / "02_backward.ipynb").write_text("lesson 2 v2")
    report = ws.sync(course, work)
    assert report.updated == ["02_backward.ipynb"]
    assert (work / "02_backward.ipynb").read_text() == "lesson 2 v2"
    assert not (work / "02_backward (course update).ipynb").exists()


def test_a_lesson_added_by_the_course_is_copied_in(course, tmp_path):
    work = tmp_path / "work"
    ws.sync(course, work)
    (course / "notebooks" / "03_new.ipynb").write_text("lesson 3")
    assert ws.sync(course, work).copied == ["03_new.ipynb"]
    assert (work / "03_new.ipynb").read_text() == "lesson 3"


def test_a_deleted_copy_comes_back_fresh_from_the_course(course, tmp_path):
    work = tmp_path / "work"
    ws.sync(course, work)
    (work / "exercises" / "ex02_mul_backward.py").unlink()  # "start this one over"
    assert ws.sync(course, work).copied == ["exercises/ex02_mul_backward.py"]
    assert (work / "exercises" / "ex02_mul_backward.py").read_text() == "stub 2"


def test_an_edited_course_update_copy_is_not_overwritten_by_a_newer_one(course, tmp_path):
    work = tmp_path / "work"
    lesson = course / "notebooks" / "01_values.ipynb"
    ws.sync(course, work)
    (work / "01_values.ipynb").write_text("mine")
    lesson.write_text("v2")
    ws.sync(course, work)
    (work / "01_values (course update).ipynb").write_text("v2, merged by hand")
    lesson.write_text("v3")
    report = ws.sync(course, work)
    assert report.kept == ["01_values.ipynb"]
    assert (work / "01_values (course update).ipynb").read_text() == "v2, merged by hand"
    assert (work / "01_values.ipynb").read_text() == "mine"
    # once the student moves their merge away, the newer version arrives
    (work / "01_values (course update).ipynb").rename(work / "merged.ipynb")
    assert ws.sync(course, work).offered == ["01_values.ipynb"]
    assert (work / "01_values (course update).ipynb").read_text() == "v3"


def test_a_file_without_a_record_counts_as_the_students(course, tmp_path):
    """No manifest (deleted, or a folder the student made): differing files are theirs."""
    work = tmp_path / "work"
    (work / "exercises").mkdir(parents=True)
    (work / "exercises" / "ex02_mul_backward.py").write_text("my answer")
    report = ws.sync(course, work)
    assert (work / "exercises" / "ex02_mul_backward.py").read_text() == "my answer"
    assert report.offered == ["exercises/ex02_mul_backward.py"]
    recorded = json.loads((work / ws.MANIFEST).read_text())["files"]
    assert set(recorded) == set(ws.course_files(course))


def test_a_broken_manifest_is_reported_not_guessed(course, tmp_path):
    work = tmp_path / "work"
    ws.sync(course, work)
    (work / ws.MANIFEST).write_text("{oops")
    with pytest.raises(SystemExit, match="not valid JSON"):
        ws.sync(course, work)


def test_the_command_line_says_what_it_did(course, tmp_path):
    work = tmp_path / "work"
    args = [sys.executable, str(ROOT / "scripts" / "workspace.py"), "sync",
            "--course", str(course), "--workspace", str(work)]
    env = {"PYTHONPATH": str(ROOT)}
    first = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    assert "made your workspace" in first.stdout
    (work / "01_values.ipynb").write_text("mine")
    (course / "notebooks" / "01_values.ipynb").write_text("v2")
    second = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    assert "the course updated 01_values.ipynb, which you changed" in second.stdout


def test_the_runner_and_the_sync_agree_on_the_manifest_name():
    assert _runner.WORKSPACE_MANIFEST == ws.MANIFEST


def test_the_real_course_copies_every_lesson_and_stub_and_no_solution():
    files = ws.course_files(ROOT)
    lessons = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    stubs = sorted(f"exercises/{p.name}" for p in (ROOT / "exercises").glob("ex[0-9][0-9]_*.py"))
    assert sorted(k for k in files if k.endswith(".ipynb")) == lessons
    assert sorted(k for k in files if k.startswith("exercises/")) == stubs
    assert not any("solutions" in k or "checks" in k or k.endswith("conftest.py") for k in files)


def test_lab_settings_are_merged_into_the_environments_overrides(tmp_path):
    path = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"@jupyterlab/apputils-extension:themes": {"theme": "dark"},
                                "@jupyter-widgets/jupyterlab-manager:plugin": {"x": 1}}))
    assert ws.install_lab_settings(tmp_path) == path
    data = json.loads(path.read_text())
    assert data["@jupyterlab/apputils-extension:themes"] == {"theme": "dark"}
    assert data["@jupyter-widgets/jupyterlab-manager:plugin"] == {"x": 1, "saveState": True}
    assert data["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


# --- checking the student's copy of an exercise ------------------------------------------

SOLVED = (ROOT / "exercises" / "solutions" / "ex02_mul_backward.py").read_text()


@pytest.fixture
def real_workspace(tmp_path):
    """A workspace made from this repository, with ex02 solved in the student's copy."""
    work = tmp_path / "workspace"
    ws.sync(ROOT, work)
    (work / "exercises" / "ex02_mul_backward.py").write_text(SOLVED)
    return work


def test_check_in_a_workspace_notebook_reads_the_students_copy(real_workspace, monkeypatch):
    monkeypatch.chdir(real_workspace)  # where a workspace lesson's kernel runs
    assert _runner.student_file("ex02") == real_workspace / "exercises" / "ex02_mul_backward.py"
    assert [o.status for o in _runner.run("ex02")] == [_runner.PASSED]
    monkeypatch.chdir(ROOT)  # the course's copy: still the stub
    assert [o.status for o in _runner.run("ex02")] == [_runner.NOT_ATTEMPTED]


def test_check_sees_each_edit_of_the_workspace_copy(real_workspace, monkeypatch):
    monkeypatch.chdir(real_workspace)
    copy = real_workspace / "exercises" / "ex02_mul_backward.py"
    copy.write_text(SOLVED + "\ndef mul_backward(g, a, b):\n    return g * b, g * b\n")
    assert [o.status for o in _runner.run("ex02")] == [_runner.FAILED]
    copy.write_text(SOLVED.replace("def mul_backward", "def mul_backward(:"))
    outcome, = _runner.run("ex02")
    assert outcome.status == _runner.ERROR
    assert "your file" in outcome.message and "ex02_mul_backward.py" in outcome.message


def test_pytest_on_the_workspace_checks_the_students_copies(real_workspace):
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "exercises", "-q", "-p", "no:cacheprovider",
         "-k", "ex02 or ex03", "-rs"],
        cwd=real_workspace, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed, 2 skipped" in out.stdout  # ex02 solved; ex03's two tasks untouched


# --- a lesson opened and run is not a lesson edited --------------------------------------

def notebook(*sources, outputs=(), **metadata) -> str:
    """A small nbformat-4 notebook: one code cell per source, ``outputs`` on the first."""
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {},
              "outputs": [], "source": src.splitlines(keepends=True)} for src in sources]
    if cells and outputs:
        cells[0]["outputs"] = list(outputs)
        cells[0]["execution_count"] = 1
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"name": "python3"},
                                                    **metadata},
                       "nbformat": 4, "nbformat_minor": 4}, indent=1)


def opened_in_lab(path) -> None:
    """What JupyterLab does to a lesson it opens, runs and autosaves: new metadata (kernel
    display name, language_info, an empty widgets block), outputs, cell ids; no source
    touched.  (Lab writes sources as strings; the course's are lists of lines.)"""
    nb = json.loads(path.read_text())
    nb["metadata"]["kernelspec"]["display_name"] = "Python 3 (ipykernel)"
    nb["metadata"]["language_info"] = {"name": "python", "version": "3.13.5"}
    nb["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nb["nbformat_minor"] = 5
    for i, cell in enumerate(nb["cells"]):
        cell["id"] = f"cell-{i}"
        cell["source"] = "".join(cell["source"])
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ran\n"}]
        cell["execution_count"] = i + 1
    path.write_text(json.dumps(nb))


def edit_cell(path, index, text) -> None:
    nb = json.loads(path.read_text())
    nb["cells"][index]["source"] = text
    path.write_text(json.dumps(nb))


@pytest.fixture
def lesson_course(course):
    (course / "notebooks" / "01_values.ipynb").write_text(notebook("x = 1", "print(x)"))
    return course


def test_a_lesson_opened_run_and_saved_takes_the_course_update(lesson_course, tmp_path):
    work, lesson = tmp_path / "work", lesson_course / "notebooks" / "01_values.ipynb"
    ws.sync(lesson_course, work)
    opened_in_lab(work / "01_values.ipynb")
    assert ws.sync(lesson_course, work).pending == []  # no course change: nothing happens
    assert "ran" in (work / "01_values.ipynb").read_text()  # the student's outputs stay
    lesson.write_text(notebook("x = 2", "print(x)"))  # the course changes a cell
    report = ws.sync(lesson_course, work)
    assert report.rerun == ["01_values.ipynb"] and not report.offered
    assert (work / "01_values.ipynb").read_text() == lesson.read_text()
    assert not (work / "01_values (course update).ipynb").exists()
    assert any("not edited its cells" in line for line in report.lines(work))


def test_an_output_only_or_metadata_only_difference_takes_the_update(lesson_course, tmp_path):
    work, lesson = tmp_path / "work", lesson_course / "notebooks" / "01_values.ipynb"
    ws.sync(lesson_course, work)
    (work / "01_values.ipynb").write_text(notebook(
        "x = 1", "print(x)", outputs=[{"output_type": "stream", "name": "stdout",
                                       "text": "1\n"}]))  # outputs only
    lesson.write_text(notebook("x = 1", "print(x)", "x + 1"))  # the course adds a cell
    assert ws.sync(lesson_course, work).rerun == ["01_values.ipynb"]
    (work / "01_values.ipynb").write_text(notebook("x = 1", "print(x)", "x + 1",
                                                   widgets={}))  # metadata only
    lesson.write_text(notebook("x = 1", "print(x)", "x + 2"))
    assert ws.sync(lesson_course, work).rerun == ["01_values.ipynb"]
    assert (work / "01_values.ipynb").read_text() == lesson.read_text()


def test_a_lesson_whose_cell_was_edited_is_kept_and_the_update_goes_beside(
        lesson_course, tmp_path):
    work, lesson = tmp_path / "work", lesson_course / "notebooks" / "01_values.ipynb"
    ws.sync(lesson_course, work)
    opened_in_lab(work / "01_values.ipynb")
    edit_cell(work / "01_values.ipynb", 1, "print(x, 'my note')")
    mine = (work / "01_values.ipynb").read_text()
    lesson.write_text(notebook("x = 2", "print(x)"))
    report = ws.sync(lesson_course, work)
    assert report.offered == ["01_values.ipynb"] and not report.rerun
    assert (work / "01_values.ipynb").read_text() == mine
    assert (work / "01_values (course update).ipynb").read_text() == lesson.read_text()


@pytest.mark.parametrize("change", ["add", "delete", "retype"])
def test_a_changed_cell_list_makes_the_lesson_the_students(lesson_course, tmp_path, change):
    work, lesson = tmp_path / "work", lesson_course / "notebooks" / "01_values.ipynb"
    ws.sync(lesson_course, work)
    nb = json.loads((work / "01_values.ipynb").read_text())
    if change == "add":
        nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": ""})
    elif change == "delete":
        del nb["cells"][0]
    else:
        nb["cells"][0]["cell_type"] = "markdown"
    (work / "01_values.ipynb").write_text(json.dumps(nb))
    lesson.write_text(notebook("x = 2", "print(x)"))
    assert ws.sync(lesson_course, work).offered == ["01_values.ipynb"]
    assert json.loads((work / "01_values.ipynb").read_text()) == nb


def test_a_lesson_edited_back_to_the_course_version_may_follow_it(lesson_course, tmp_path):
    """Sources equal to the course's new version: following it loses no cell the student
    wrote (also how a workspace made by an older kit, with no cell record, is judged)."""
    work, lesson = tmp_path / "work", lesson_course / "notebooks" / "01_values.ipynb"
    ws.sync(lesson_course, work)
    manifest = json.loads((work / ws.MANIFEST).read_text())
    del manifest["cells"]  # an older kit's manifest
    (work / ws.MANIFEST).write_text(json.dumps(manifest))
    (work / "01_values.ipynb").write_text(notebook("x = 2", "print(x)", widgets={}))
    lesson.write_text(notebook("x = 2", "print(x)"))
    assert ws.sync(lesson_course, work).rerun == ["01_values.ipynb"]


def test_an_older_manifest_without_cell_records_keeps_a_run_lesson_when_unsure(
        lesson_course, tmp_path):
    """With no record of the cells it was copied from, a lesson whose cells differ from the
    course's new version counts as the student's: never overwritten on a guess."""
    work, lesson = tmp_path / "work", lesson_course / "notebooks" / "01_values.ipynb"
    ws.sync(lesson_course, work)
    manifest = json.loads((work / ws.MANIFEST).read_text())
    del manifest["cells"]
    (work / ws.MANIFEST).write_text(json.dumps(manifest))
    opened_in_lab(work / "01_values.ipynb")
    lesson.write_text(notebook("x = 2", "print(x)"))
    assert ws.sync(lesson_course, work).offered == ["01_values.ipynb"]
    assert "ran" in (work / "01_values.ipynb").read_text()


def test_an_exercise_stub_keeps_the_byte_rule(course, tmp_path):
    """A stub differing only in whitespace is still the student's: it is their code."""
    work = tmp_path / "work"
    ws.sync(course, work)
    stub = work / "exercises" / "ex02_mul_backward.py"
    stub.write_text("stub 2\n")
    (course / "exercises" / "ex02_mul_backward.py").write_text("stub 2, v2")
    assert ws.sync(course, work).offered == ["exercises/ex02_mul_backward.py"]
    assert stub.read_text() == "stub 2\n"


def test_a_course_update_copy_only_opened_in_lab_takes_the_next_update(lesson_course, tmp_path):
    work, lesson = tmp_path / "work", lesson_course / "notebooks" / "01_values.ipynb"
    ws.sync(lesson_course, work)
    edit_cell(work / "01_values.ipynb", 0, "x = 10  # mine")
    lesson.write_text(notebook("x = 2", "print(x)"))
    ws.sync(lesson_course, work)
    opened_in_lab(work / "01_values (course update).ipynb")  # opened to compare, run, saved
    lesson.write_text(notebook("x = 3", "print(x)"))
    report = ws.sync(lesson_course, work)
    assert report.offered == ["01_values.ipynb"] and not report.kept
    assert (work / "01_values (course update).ipynb").read_text() == lesson.read_text()
    # but one whose cells were edited (a merge by hand) is kept
    edit_cell(work / "01_values (course update).ipynb", 1, "print(x)  # merged")
    lesson.write_text(notebook("x = 4", "print(x)"))
    assert ws.sync(lesson_course, work).kept == ["01_values.ipynb"]


def test_cells_hash_reads_types_and_sources_only(tmp_path):
    path = tmp_path / "a.ipynb"
    path.write_text(notebook("x = 1", "print(x)"))
    before = ws.cells_hash(path)
    opened_in_lab(path)
    assert ws.cells_hash(path) == before
    edit_cell(path, 0, "x = 1 ")
    assert ws.cells_hash(path) != before
    path.write_text("{not json")
    assert ws.cells_hash(path) is None  # not a notebook: bytes decide
