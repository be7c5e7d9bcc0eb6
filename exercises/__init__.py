"""Self-checking exercises for the minigrad lessons.

Students edit their copy ``workspace/exercises/exNN_*.py`` (``make lab`` makes it) and
run ``python -m exercises ex04`` in a terminal (JupyterLab's, or at the repository
root).  From a notebook cell::

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
