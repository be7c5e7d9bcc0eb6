"""Self-checking exercises for the minigrad lessons.

Students edit ``exercises/exNN_*.py`` and run ``pytest exercises/`` (or
``pytest exercises/ -k ex04``).  From a notebook cell::

    from exercises import check
    check("ex04")                              # your file exercises/ex04_exp_pow.py
    check("ex04", pow_backward=pow_backward)   # a function written in the notebook
    check("ex04", solutions=True)              # the reference solution

See ``exercises/README.md`` for the list and the lessons they belong to.
"""

from ._catalog import EXERCISES, Exercise, find
from ._runner import Outcome, check, report, run
from .checks import ExerciseFailure

__all__ = ["EXERCISES", "Exercise", "ExerciseFailure", "Outcome", "check", "find", "report", "run"]
