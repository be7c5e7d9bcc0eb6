"""Plausible wrong answers, kept to prove that every check bites.

For each task, a few answers a student could well write, in one module per
exercise named like its checks (``mistakes/ex05_topological_order.py`` for
``checks/ex05_topological_order.py``).  The meta-tests
(``tests/exercises/test_meta.py``) run every check against each of them and
require a *failure* (not a crash of the checking code), whose message
contains the expected words, usually the hint that names the mistake.
Instructors: this is also a catalogue of the mistakes the hints recognise.

Importing this package imports every exercise's module (in catalogue order),
which fills ``MISTAKES``.
"""

from __future__ import annotations

import importlib

from ..._catalog import EXERCISES
from ._registry import MISTAKES, Mistake, mistake

__all__ = ["Mistake", "MISTAKES", "mistake"]

for _exercise in EXERCISES:
    importlib.import_module(f"{__name__}.{_exercise.module}")
