"""benchmarks/_common.paired: ratios from blocks timed in turn in one process.

Its figures are never asserted against the engine (no timed tests); these check the
estimator itself on workloads whose ratio is known by construction: a step against
itself, and a step that does the same work twice.
"""

from __future__ import annotations

import sys

import pytest

from tests._helpers import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import paired, paired_lines  # noqa: E402


def _work(n):
    def step():
        total = 0
        for i in range(n):
            total += i * i
        return total

    return step


def test_a_step_against_itself_has_ratio_one():
    step = _work(2000)
    result = paired({"a": step, "b": step}, "a", blocks=20, inner=3)
    ratio, q1, q3, best = result["b"]
    assert result["a"][:3] == (1.0, 1.0, 1.0)
    assert q1 <= ratio <= q3
    assert 0.5 < ratio < 2.0 and best > 0


def test_twice_the_work_is_about_twice_the_time():
    result = paired({"once": _work(4000), "twice": _work(8000)}, "once", blocks=30, inner=3)
    ratio, q1, q3, _ = result["twice"]
    # (loose bounds: the machine is shared; what matters is that the ratio is the ratio
    # of the work, not of two unrelated medians, and that its quartiles bracket it)
    assert 1.4 < ratio < 2.8
    assert q1 <= ratio <= q3


def test_every_step_runs_the_same_number_of_times():
    calls = {"a": 0, "b": 0}

    def counter(name):
        def step():
            calls[name] += 1

        return step

    paired({"a": counter("a"), "b": counter("b")}, "a", blocks=7, inner=4)
    assert calls == {"a": 4 + 7 * 4, "b": 4 + 7 * 4}  # the warm-up block, then 7 blocks


def test_lines_name_the_reference_and_the_quartiles():
    lines = paired_lines({"numpy": (1.0, 1.0, 1.0, 0.001), "minigrad": (2.5, 2.4, 2.6, 0.0025)},
                         "numpy")
    assert len(lines) == 2 and "x numpy" not in lines[0]
    assert "2.50x numpy" in lines[1] and "2.40-2.60" in lines[1]


def test_an_unknown_reference_is_a_key_error():
    with pytest.raises(KeyError):
        paired({"a": _work(10)}, "numpy", blocks=2, inner=1)
