"""The checks: ``checks/<module>.py`` holds one ``check_<task>(implementation)`` per task.

A check raises ``ExerciseFailure`` with a helpful message when the answer is
wrong and returns quietly when it is right.  ``mistakes/<module>.py`` lists
plausible wrong answers that the meta-tests prove the checks reject.
"""

from ._support import ExerciseFailure

__all__ = ["ExerciseFailure"]
