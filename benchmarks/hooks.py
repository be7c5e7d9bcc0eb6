"""What the trace hooks cost when nobody listens.

Every op checks one process-wide counter (``COUNTS.watchers``, ``minigrad/core/modes.py``)
before it would look for watchers (recorders, anomaly mode, forward mode ...).  This
prints the cost of that check beside the cost of a whole scalar op, and an op's cost
with a recorder that ignores
every event (the price of listening).

    python benchmarks/hooks.py
"""

from __future__ import annotations

import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import minigrad  # noqa: E402
from minigrad.core.modes import COUNTS  # noqa: E402


class Ignore:
    def created(self, node):
        pass

    def seeded(self, *args):
        pass

    visit = contribute = seeded


def best(stmt, env, number=200_000, repeat=7) -> float:
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=repeat)) / number


def main():
    a, b = minigrad.Value(2.0), minigrad.Value(3.0)
    env = {"a": a, "b": b, "COUNTS": COUNTS}
    op = best("a * b", env)
    check = best("COUNTS.watchers", env) - best("pass", env)
    with minigrad.record(Ignore()):
        listened = best("a * b", env)
    print(f"scalar mul, no recorder      : {op * 1e9:7.1f} ns")
    print(f"the hook check alone         : {check * 1e9:7.1f} ns  ({check / op:.1%} of an op)")
    print(f"scalar mul, ignoring recorder: {listened * 1e9:7.1f} ns  ({listened / op:.2f}x)")


if __name__ == "__main__":
    main()
