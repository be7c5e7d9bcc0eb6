"""One walker finds the student's line for the exercise runner and for the checks' ``call``."""

import os

from exercises import _runner
from exercises._traceback import student_frame
from exercises.checks import _support


def _raise_from(filename):
    """A traceback whose innermost frame is line 2 of ``filename`` (the file need not exist)."""
    code = compile("def f():\n    return 1 / 0\n", filename, "exec")
    scope = {}
    exec(code, scope)
    try:
        scope["f"]()
    except ZeroDivisionError as exc:
        return exc


def test_a_course_cloned_into_a_folder_named_minigrad_still_finds_the_student(tmp_path):
    path = str(tmp_path / "minigrad" / "exercises" / "ex04_exp_pow.py")
    exc = _raise_from(path)
    assert student_frame(exc.__traceback__) == (os.path.abspath(path), 2)


def test_the_libraries_and_the_checks_are_not_the_student():
    import numpy as np

    try:
        np.linalg.inv(np.zeros((2, 3)))  # raises two Python frames deep inside numpy
    except np.linalg.LinAlgError as exc:
        tb = exc.__traceback__
    assert tb.tb_next is not None  # (numpy's frames are really there)
    assert student_frame(tb) == (os.path.abspath(__file__), tb.tb_lineno)
    checks_file = os.path.join(os.path.dirname(_support.__file__), "ex99_fake.py")
    assert student_frame(_raise_from(checks_file).__traceback__)[0] == os.path.abspath(__file__)


def test_the_runner_and_the_checks_use_the_one_walker(tmp_path):
    exc = _raise_from(str(tmp_path / "mine.py"))
    assert _support._student_frame(exc.__traceback__) == "mine.py:2"
    path, line, _ = _runner._student_line(exc, None)
    assert (os.path.basename(path), line) == ("mine.py", 2)
