"""Feedback the exercise runner gives when an exception escapes a check (rather than
a wrong answer a check recognises): a few readable lines, never a page of traceback.
And, for wrong answers a check does recognise, how the answer is shown: with its type
or dtype where that is the mistake, and in a few lines even when it is a 4-D array.

Wrong answers that a check itself must reject, with the hint it gives, live in
``exercises/checks/mistakes/`` and are run by ``tests/exercises/test_meta.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np

from exercises import _runner
from exercises.solutions import ex13_graph_memory as _s13
from exercises.solutions import ex14_gradcheck as _s14
from exercises.solutions import ex16_conv2d as _s16
from exercises.solutions.ex09_tape import Tape as _SolutionTape
from tests._helpers import ROOT


def _chain(g, a, b):
    raise NotImplementedError


def _mul_backward_with_unfinished_helper(g, a, b):
    return _chain(g, a, b)


def test_a_helper_still_raising_not_implemented_is_a_short_error():
    outcome = _runner.run("ex02", mul_backward=_mul_backward_with_unfinished_helper)[0]
    assert outcome.status == _runner.ERROR
    assert outcome.message.startswith("NotImplementedError")
    assert "hint: a helper still raises NotImplementedError (_chain)" in outcome.message
    assert "test_feedback.py:" in outcome.message  # the student's line
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


# --- wrong answers a check recognises: what the message shows ------------------------------
# (checks/mistakes/ keeps the catalogue of wrong answers every check must reject; these
# pin down how an answer is shown where a plain print would mislead or drown the student)


def test_ex13_a_byte_count_of_the_wrong_type_names_both_types():
    outcome = _runner.run_task("ex13", "saved_bytes", lambda root: float(_s13.saved_bytes(root)))
    assert outcome.status == _runner.FAILED, outcome
    assert "returned 376.0 (float); expected 376 (int)" in outcome.message
    assert "hint: the count is right, but" in outcome.message

    outcome = _runner.run_task("ex13", "saved_bytes",
                               lambda root: np.float64(_s13.saved_bytes(root)))
    assert "returned 376.0 (numpy.float64); expected 376 (int)" in outcome.message

    outcome = _runner.run_task("ex13", "saved_bytes",
                               lambda root: np.array(_s13.saved_bytes(root)))
    assert "returned 376 (0-d numpy array, dtype int64); expected 376 (int)" in outcome.message

    outcome = _runner.run_task("ex13", "saved_bytes", lambda root: _s13.saved_bytes(root) + 8)
    assert "returned 384 (int); expected 376 (int)" in outcome.message

    # A numpy integer is a whole number of bytes: sum() over np.int64 values (or np.sum)
    # gives one, and nothing is wrong with it, so it is accepted.
    outcome = _runner.run_task("ex13", "saved_bytes",
                               lambda root: np.int64(_s13.saved_bytes(root)))
    assert outcome.status == _runner.PASSED, outcome


def test_ex14_values_that_print_the_same_show_their_dtypes():
    def float32_result(f, x, eps=1e-6):
        return _s14.numerical_gradient(f, x, eps).astype(np.float32)

    outcome = _runner.run_task("ex14", "numerical_gradient", float32_result)
    assert outcome.status == _runner.FAILED, outcome
    first = outcome.message.splitlines()[0]
    assert "(float32)" in first and "(float64)" in first, first
    got, expected = first.split(": got ")[1].split(", expected ")
    assert got.split(" (")[0] != expected.split(" (")[0], first  # not two identical numbers
    assert "dtype float32" in outcome.message and "dtype float64" in outcome.message
    assert "hint: the values are right to float32 precision" in outcome.message

    outcome = _runner.run_task("ex14", "numerical_gradient",
                               lambda f, x, eps=1e-6: _s14.numerical_gradient(f, x, eps)
                               .astype(np.int64))
    assert "got 1 (int64), expected 1.27296 (float64)" in outcome.message
    assert "hint: the result has an integer dtype (int64)" in outcome.message

    outcome = _runner.run_task("ex14", "gradcheck", lambda fn, *values, eps=1e-6, tol=1e-5:
                               np.float64(_s14.gradcheck(fn, *values, eps=eps, tol=tol)))
    assert "should return True or False, got 1.0 (numpy.float64)" in outcome.message
    outcome = _runner.run_task("ex14", "gradcheck", lambda fn, *values, eps=1e-6, tol=1e-5:
                               np.array(_s14.gradcheck(fn, *values, eps=eps, tol=tol)))
    assert "got True (0-d numpy array, dtype bool)" in outcome.message
    assert "hint: bool(" in outcome.message


def test_ex16_a_wrong_4d_array_is_summarised_not_dumped():
    def no_bias(x, w, b=None, stride=1, padding=0):
        return _s16.conv2d(x, w, None, stride, padding)

    outcome = _runner.run_task("ex16", "conv2d", no_bias)
    assert outcome.status == _runner.FAILED, outcome
    lines = outcome.message.splitlines()
    assert len(lines) <= 6 and max(map(len, lines)) <= 200, outcome.message
    assert lines[0].endswith("the output is wrong at index (0, 0, 0, 0): got -10.8701, "
                             "expected -9.97832 (120 of 120 elements differ)"), lines[0]
    assert lines[1] == ("  shape (2, 4, 3, 5), dtype float64; largest difference 2.91904, "
                        "at index (1, 3, 1, 3)"), lines[1]
    assert lines[2].startswith("  got[0, 0, 0, :]      [-10.8701, ")
    assert lines[3].startswith("  expected[0, 0, 0, :] [-9.9783, ")
    assert lines[-1].startswith("hint: im2col, then")

    outcome = _runner.run_task("ex16", "im2col", lambda x, kh, kw, stride=1, padding=0:
                               _s16.im2col(x, kh, kw, stride, padding)[..., ::-1])
    lines = outcome.message.splitlines()
    assert len(lines) <= 6 and max(map(len, lines)) <= 200, outcome.message
    assert "shape (2, 3, 5, 18), dtype float64" in outcome.message
