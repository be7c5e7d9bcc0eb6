"""``python -m exercises exNN`` (exercises/__main__.py): one command that checks the
student's copy from the repository root and from inside the workspace (where a terminal
opened in JupyterLab may start), saying which file it read.

Each test runs the command in a subprocess, as a student types it: ``python -m``, no
``pytest`` on the PATH, the kit found through ``PYTHONPATH`` as ``make lab`` sets it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from exercises import _runner
from scripts import workspace as ws
from tests._helpers import ROOT

SOLVED = (ROOT / "exercises" / "solutions" / "ex02_mul_backward.py").read_text()
WRONG = SOLVED + "\ndef mul_backward(g, a, b):\n    return g * b, g * b\n"


@pytest.fixture
def work(tmp_path):
    """A workspace made from this repository, with ex02 solved in the student's copy."""
    folder = tmp_path / "workspace"
    ws.sync(ROOT, folder)
    (folder / "exercises" / "ex02_mul_backward.py").write_text(SOLVED)
    return folder


def command(*args, cwd, workspace=None):
    """``python -m exercises ARGS`` in ``cwd``; ``workspace``: the repository's workspace
    (``$MINIGRAD_WORKSPACE``; the tests never touch a real ``workspace/`` folder)."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    if workspace is not None:
        env[_runner.WORKSPACE_ENV] = str(workspace)
    return subprocess.run([sys.executable, "-m", "exercises", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_from_a_terminal_in_the_workspace_it_checks_the_students_copy(work):
    out = command("ex02", "ex03", cwd=work)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"checking your workspace copy {work / 'exercises' / 'ex02_mul_backward.py'}"
    assert "✓ mul_backward: passed" in out.stdout
    assert "· tanh: not attempted yet" in out.stdout  # ex03: the workspace's untouched copy
    assert f"checking your workspace copy {work / 'exercises' / 'ex03_tanh.py'}" in lines


def test_from_a_subfolder_of_the_workspace_too(work):
    (work / "notes").mkdir()
    out = command("ex02", cwd=work / "notes")
    assert out.returncode == 0 and "✓ mul_backward: passed" in out.stdout, out.stdout


def test_from_the_repository_root_it_checks_the_workspace_copy_not_the_stub(work):
    out = command("ex02", cwd=ROOT, workspace=work)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[0].startswith("checking your workspace copy")
    assert "✓ mul_backward: passed" in out.stdout
    assert "not attempted" not in out.stdout


def test_a_wrong_answer_fails_with_the_message_and_exit_status_1(work):
    (work / "exercises" / "ex02_mul_backward.py").write_text(WRONG)
    for cwd, where in ((work, None), (ROOT, work)):
        out = command("ex02", cwd=cwd, workspace=where)
        assert out.returncode == 1, out.stdout
        assert "✗ mul_backward: failed" in out.stdout


def test_a_file_that_does_not_import_names_it(work):
    (work / "exercises" / "ex02_mul_backward.py").write_text("def mul_backward(:\n")
    out = command("2", cwd=work)
    assert out.returncode == 1
    assert "your file" in out.stdout and "ex02_mul_backward.py doesn't import" in out.stdout


def test_without_a_workspace_it_checks_the_course_stub_and_says_so(tmp_path):
    out = command("ex02", cwd=ROOT, workspace=tmp_path / "none")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[0] == ("checking the course's stub exercises/"
                                          "ex02_mul_backward.py (you have no workspace copy: "
                                          "make lab makes one)")
    assert "· mul_backward: not attempted yet" in out.stdout


def test_solutions_and_a_bad_name(tmp_path):
    out = command("ex02", "--solutions", cwd=tmp_path)
    assert out.returncode == 0 and "checking the reference solution" in out.stdout
    assert "✓ mul_backward: passed" in out.stdout
    bad = command("ex99", cwd=tmp_path)
    assert bad.returncode == 2 and "no exercise 'ex99'" in bad.stderr


def test_the_default_workspace_is_the_repositorys(tmp_path, monkeypatch):
    """Without ``$MINIGRAD_WORKSPACE``: ``<repository>/workspace``, where ``make lab``
    makes it."""
    course = tmp_path / "repo" / "exercises"
    course.mkdir(parents=True)
    (course / "ex02_mul_backward.py").write_text("stub")
    monkeypatch.setattr(_runner, "COURSE", course)
    monkeypatch.delenv(_runner.WORKSPACE_ENV, raising=False)
    assert _runner.your_file("ex02", start=tmp_path) == course / "ex02_mul_backward.py"
    mine = tmp_path / "repo" / "workspace" / "exercises" / "ex02_mul_backward.py"
    mine.parent.mkdir(parents=True)
    mine.write_text(SOLVED)
    assert _runner.your_file("ex02", start=tmp_path) == course / "ex02_mul_backward.py"
    (tmp_path / "repo" / "workspace" / ws.MANIFEST).write_text("{}")  # made by make lab
    assert _runner.your_file("ex02", start=tmp_path) == mine


def test_check_in_a_workspace_notebook_says_it_read_the_copy(work, monkeypatch, capsys):
    monkeypatch.chdir(work)
    _runner.check("ex02")
    assert "(checked your workspace copy" in capsys.readouterr().out
    monkeypatch.chdir(ROOT / "notebooks")  # a course lesson: its committed output unchanged
    _runner.check("ex02")
    assert "checked your workspace copy" not in capsys.readouterr().out
