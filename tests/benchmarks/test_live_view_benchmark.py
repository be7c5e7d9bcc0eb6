"""benchmarks/live_view.py runs end to end at a small size (its figures are not asserted)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests._helpers import ROOT


def test_the_live_view_benchmark_prints_both_ratios_at_both_thread_counts():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "live_view.py"), "--quick"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "BLAS threads=1" in out
    for label in ("default BLAS threads", "1 BLAS thread"):
        assert re.search(rf"^{label}: \d+ steps an epoch, blocks of \d+ epochs, one model "
                         rf"for all runs", out, re.M), out
    ratios = re.findall(r"^  (hook only|live|samples only|every frame)/plain: \d+\.\d+x",
                        out, re.M)
    assert ratios == ["hook only", "live", "samples only", "every frame"] * 2
    assert len(re.findall(r"^  a frame costs -?\d+\.\d ms", out, re.M)) == 2
