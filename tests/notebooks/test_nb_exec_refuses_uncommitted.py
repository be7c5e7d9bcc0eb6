"""``make nb-exec`` (``scripts/nb_exec.py``) rewrites lessons whole, so it refuses one
with changes that are not committed, and says which, before running anything."""

from __future__ import annotations

import shutil
import subprocess

import nbformat
import pytest

from scripts import nb_exec

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo,
                   check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    """A git checkout with one committed lesson, whose cell was never run."""
    git(tmp_path, "init", "-q")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(1 + 1)")]
    nbformat.write(nb, tmp_path / "lesson.ipynb")
    git(tmp_path, "add", "lesson.ipynb")
    git(tmp_path, "commit", "-qm", "lesson")
    return tmp_path


def never_run(monkeypatch):
    ran = []
    monkeypatch.setattr(nb_exec, "run", lambda path, timeout: ran.append(path) or 0.0)
    return ran


def test_an_edited_lesson_is_refused_and_left_as_it_is(repo, monkeypatch, capsys):
    lesson = repo / "lesson.ipynb"
    nb = nbformat.read(lesson, as_version=4)
    nb.cells[0].source = "print('my edit')"
    nbformat.write(nb, lesson)
    edited = lesson.read_text()
    ran = never_run(monkeypatch)
    assert nb_exec.main([str(lesson)]) == 1
    assert ran == [] and lesson.read_text() == edited
    err = capsys.readouterr().err
    assert "uncommitted changes" in err and str(lesson) in err and "--force" in err


def test_an_untracked_lesson_is_refused_too(repo, monkeypatch):
    new = repo / "new.ipynb"
    shutil.copy(repo / "lesson.ipynb", new)
    ran = never_run(monkeypatch)
    assert nb_exec.main([str(repo / "lesson.ipynb"), str(new)]) == 1
    assert ran == []


def test_committed_lessons_run_and_force_runs_an_edited_one(repo, monkeypatch):
    lesson = repo / "lesson.ipynb"
    ran = never_run(monkeypatch)
    assert nb_exec.main([str(lesson)]) == 0
    lesson.write_text(lesson.read_text().replace("1 + 1", "2 + 2"))
    assert nb_exec.main([str(lesson), "--force"]) == 0
    assert ran == [str(lesson), str(lesson)]


def test_outside_a_git_checkout_it_refuses_and_says_why(tmp_path, monkeypatch, capsys):
    lesson = tmp_path / "lesson.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), lesson)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    ran = never_run(monkeypatch)
    assert nb_exec.main([str(lesson)]) == 2
    assert ran == [] and "git cannot tell" in capsys.readouterr().err


def test_a_real_run_rewrites_a_committed_lesson_with_its_output(repo):
    lesson = repo / "lesson.ipynb"
    assert nb_exec.main([str(lesson)]) == 0
    out = nbformat.read(lesson, as_version=4).cells[0].outputs
    assert out[0]["text"] == "2\n"
