"""The speed scripts' paired figures run end to end at small sizes (never asserted on
their values: no timed tests)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests._helpers import ROOT

pytestmark = pytest.mark.slow

PAIRED_LINE = re.compile(r"^\s+(\S+)\s+[\d.]+ ms \(best block\)\s+([\d.]+)x numpy .*quartiles "
                         r"([\d.]+)-([\d.]+)\)")


def _run(script, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _paired(out):
    """{implementation: (ratio, first quartile, third quartile)} from the paired lines."""
    assert "paired:" in out
    rows = {}
    for line in out.splitlines():
        m = PAIRED_LINE.match(line)
        if m:
            rows[m[1]] = tuple(float(v) for v in m.groups()[1:])
    return rows


def _sane(rows, names):
    assert set(names) <= set(rows)
    for ratio, q1, q3 in rows.values():
        assert 0 < q1 <= ratio <= q3


def test_tensor_ops_prints_paired_ratios_for_its_tiny_chain():
    out = _run("tensor_ops.py", "--which", "elementwise_chain", "--repeats", "1", "--reps", "1")
    _sane(_paired(out), ["minigrad", "lean"])


def test_mlp_prints_a_paired_ratio_with_one_thread():
    out = _run("mlp.py", "--samples", "1280", "--repeats", "3", "--threads", "1")
    _sane(_paired(out), ["numpy-rules", "minigrad"])


def test_jit_prints_paired_ratios_for_the_tiny_chain():
    out = _run("jit.py", "--which", "tiny", "--repeats", "1", "--reps", "3", "--threads", "1")
    _sane(_paired(out), ["minigrad", "jit"])


def test_cnn_prints_both_heaps_and_a_paired_ratio():
    out = _run("cnn.py", "--steps", "3", "--repeats", "3")
    assert "glibc's default malloc" in out and "heap kept" in out
    assert out.count("page faults/step") >= 4  # numpy and minigrad, in both tables
    _sane(_paired(out), ["minigrad"])
