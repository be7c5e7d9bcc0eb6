"""Feedback the exercise runner gives when an exception escapes a check (rather than
a wrong answer a check recognises): a few readable lines, never a page of traceback.

Wrong answers that a check itself must reject, with the hint it gives, live in
``exercises/checks/mistakes.py`` and are run by ``tests/test_exercises_meta.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from exercises import _runner
from exercises.solutions.ex09_tape import Tape as _SolutionTape

ROOT = Path(__file__).resolve().parents[1]


def _chain(g, a, b):
    raise NotImplementedError


def _mul_backward_with_unfinished_helper(g, a, b):
    return _chain(g, a, b)


def test_a_helper_still_raising_not_implemented_is_a_short_error():
    outcome = _runner.run("ex02", mul_backward=_mul_backward_with_unfinished_helper)[0]
    assert outcome.status == _runner.ERROR
    assert outcome.message.startswith("NotImplementedError")
    assert "hint: a helper still raises NotImplementedError (_chain)" in outcome.message
    assert "test_exercise_feedback.py:" in outcome.message  # the student's line
    assert "Traceback" not in outcome.message and len(outcome.message.splitlines()) <= 4


# The reference Tape with ``mul`` written as ``multiply``, as a student might.
_MisnamedTape = type("Tape", (), {
    **{k: v for k, v in vars(_SolutionTape).items() if k not in ("mul", "__dict__",
                                                                    "__weakref__")},
    "multiply": vars(_SolutionTape)["mul"]})


def test_a_misnamed_method_names_the_method_the_checks_call():
    outcome = _runner.run_task("ex09", "Tape", _MisnamedTape)
    assert outcome.status == _runner.ERROR, outcome
    assert outcome.message.startswith("AttributeError")
    assert "hint: the checks call Tape.mul" in outcome.message
    assert "missing or misnamed" in outcome.message
    assert "Traceback" not in outcome.message and len(outcome.message.splitlines()) <= 4


class Tape(_SolutionTape):
    """Everything written except the listing."""

    def __init__(self):
        super().__init__()

    def listing(self) -> str:
        """The program, one instruction per line."""
        raise NotImplementedError


def test_a_partly_written_class_fails_naming_the_unfinished_methods():
    outcome = _runner.run_task("ex09", "Tape", Tape)
    assert outcome.status == _runner.FAILED, outcome
    assert "Tape.listing still raises NotImplementedError" in outcome.message
    # still "not attempted" when nothing is written yet
    stub = _runner.load("ex09").Tape
    assert _runner.run_task("ex09", "Tape", stub).status == _runner.NOT_ATTEMPTED


def test_pytest_shows_an_escaped_exception_in_a_few_lines(tmp_path):
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    stub = tmp_path / "exercises" / "ex02_mul_backward.py"
    stub.write_text(stub.read_text().replace(
        "    raise NotImplementedError",
        "    return _chain(g, a, b)\n\n\ndef _chain(g, a, b):\n    raise NotImplementedError"))
    env = {k: v for k, v in os.environ.items() if k != "MINIGRAD_SOLUTIONS"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                             "exercises", "-k", "ex02"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "ex02 mul_backward: NotImplementedError" in out
    assert "a helper still raises NotImplementedError (_chain)" in out
    assert "ex02_mul_backward.py:" in out  # the student's file and line
    assert "_support.py" not in out and "Traceback" not in out
    assert len(out.splitlines()) < 30, out
