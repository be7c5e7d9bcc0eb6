"""pytest plugin for the exercises: each ``exercises/exNN_*.py`` file is collected as
one test per task, so ``pytest exercises/`` reads like a checklist::

    exercises/ex04_exp_pow.py::exp_backward PASSED
    exercises/ex04_exp_pow.py::pow_backward SKIPPED (not attempted yet)

* an untouched stub (still raising ``NotImplementedError``) is *skipped*;
* a wrong answer *fails* with the check's message only (no traceback into the
  checking code), e.g. what was expected, what came back, and a hint;
* ``--solutions`` (or ``MINIGRAD_SOLUTIONS=1``) checks ``exercises/solutions/``
  instead, which is what CI runs; there, a ``NotImplementedError`` fails.

A student's workspace (``make lab``) holds copies in ``workspace/exercises/``, with a
``conftest.py`` re-exporting these hooks: ``pytest workspace/exercises/`` checks those.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from exercises import _runner
from exercises._catalog import find
from exercises.checks import ExerciseFailure

HERE = Path(__file__).resolve().parent
STUB = re.compile(r"ex\d\d_\w+\.py")
ENV = "MINIGRAD_SOLUTIONS"


def pytest_addoption(parser):
    parser.addoption(
        "--solutions", action="store_true", default=False,
        help=f"check the reference solutions in exercises/solutions/ instead of your "
             f"answers (same as {ENV}=1)")


def solutions_mode(config) -> bool:
    flag = config.getoption("solutions", default=False)
    env = os.environ.get(ENV, "").strip().lower() in ("1", "true", "yes", "on")
    return bool(flag or env)


def pytest_report_header(config):
    if solutions_mode(config):
        return "exercises: checking the reference solutions in exercises/solutions/"
    return ("exercises: checking your answers in exNN_*.py (exercises/ is the course's copy; "
            "yours, after make lab: workspace/exercises/; --solutions: the references)")


def pytest_collect_file(file_path: Path, parent):
    # A stub sits directly in an `exercises` folder: the course's (HERE) or a student
    # workspace's, whose conftest.py re-exports these hooks (scripts/workspace.py).
    if file_path.parent.name == HERE.name and STUB.fullmatch(file_path.name):
        try:
            find(file_path.stem)
        except KeyError:
            return None
        return ExerciseFile.from_parent(parent, path=file_path)
    return None


class ExerciseFile(pytest.File):
    def collect(self):
        exercise = find(self.path.stem)
        for task in exercise.tasks:
            yield ExerciseItem.from_parent(self, name=task, exercise=exercise, task=task)


class ExerciseItem(pytest.Item):
    def __init__(self, *, exercise, task, **kwargs):
        super().__init__(**kwargs)
        self.exercise = exercise
        self.task = task
        self.add_marker(pytest.mark.exercise)

    def runtest(self):
        solutions = solutions_mode(self.config)
        # (the collected file itself: the course's stub, or a workspace copy; LoadError: see
        # repr_failure)
        module = _runner.load(self.exercise, solutions=solutions, path=self.path)
        impl = getattr(module, self.task)
        try:
            _runner.checker(self.exercise, self.task)(impl)
        except ExerciseFailure:
            raise
        except Exception as exc:
            if solutions:  # the reference is broken: a contributor wants the whole traceback
                raise
            outcome = _runner.classify(self.exercise, self.task, exc, impl)
            if outcome.status == _runner.NOT_ATTEMPTED:
                reason = (f"not attempted yet: {self.exercise.id} {self.task} "
                          f"still raises NotImplementedError")
                try:  # report the exercise file, not this conftest, as the skip's location
                    raise pytest.skip.Exception(reason, _use_item_location=True) from None
                except TypeError:  # a pytest without that (private) keyword
                    pytest.skip(reason)
            if outcome.status == _runner.FAILED:
                raise ExerciseFailure(outcome.message) from None
            raise _runner.CheckError(outcome.message) from None

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (ExerciseFailure, _runner.CheckError)):
            return f"{self.exercise.id} {self.task}: {excinfo.value}"
        if isinstance(excinfo.value, _runner.LoadError):  # the file's line, not importlib's
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, 0, f"{self.exercise.id} {self.task}"


def pytest_configure(config):
    config.addinivalue_line("markers", "exercise: a check of one exercise task")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    counts = {}
    for key in ("passed", "failed", "skipped", "error"):
        for rep in terminalreporter.stats.get(key, []):
            if rep.when in ("call", "setup") and "::" in rep.nodeid and \
                    STUB.fullmatch(rep.nodeid.split("::")[0].rsplit("/", 1)[-1]):
                counts[key] = counts.get(key, 0) + 1
    if not counts:
        return
    whose = "reference solutions" if solutions_mode(config) else "your answers"
    parts = [f"{counts[k]} {label}" for k, label in (
        ("passed", "passed"), ("failed", "failed"), ("error", "errors"),
        ("skipped", "not attempted yet")) if counts.get(k)]
    terminalreporter.write_sep("-", f"exercises ({whose}): {', '.join(parts)}")
