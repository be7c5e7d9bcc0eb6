"""benchmarks/torch_bridge.py runs end to end at tiny sizes (its figures are not asserted)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests._helpers import ROOT

pytest.importorskip("torch", reason="torch is optional: the torch bridge benchmark needs it")


def test_the_torch_bridge_benchmark_prints_both_ratios_at_tiny_sizes():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "torch_bridge.py"), "--batch", "2",
         "--repeats", "1", "--chain", "3", "--opens", "1"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "recording ratio (hooked / plain):" in proc.stdout
    assert "opening ratio (torch / minigrad):" in proc.stdout
