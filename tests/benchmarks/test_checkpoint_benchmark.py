"""benchmarks/checkpoint.py runs end to end at tiny sizes (its figures are not asserted)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests._helpers import ROOT


def test_the_checkpoint_benchmark_prints_its_table_at_tiny_sizes():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "checkpoint.py"), "--layers", "4",
         "--width", "8", "--batch", "4", "--ks", "1,2", "--repeats", "1", "--reps", "1",
         "--threads", "1"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if line.split()[:1] in
            (["none"], ["1"], ["2"])]
    assert [r[0] for r in rows] == ["none", "1", "2"]
    assert all(r[-1] == "yes" for r in rows)  # checkpointed gradients are the plain ones


def test_a_k_that_does_not_divide_the_layers_is_a_usage_error():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "checkpoint.py"), "--layers", "4",
         "--ks", "3"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "do not divide" in proc.stderr
