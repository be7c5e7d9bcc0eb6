"""benchmarks/draw_size.py end to end at small sizes: a row per graph and size, with the
overview drawn (never its timings: no timed tests)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests._helpers import ROOT

pytestmark = pytest.mark.slow


def test_the_table_has_a_row_per_graph_and_size_and_the_overview_shrinks_the_chain():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "draw_size.py"), "--sizes",
                           "90", "300", "--repeats", "1"], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("graph | nodes"))
    rows = [[c.strip() for c in line.split("|")] for line in lines[head + 1:]]
    assert [(r[0], r[1]) for r in rows][:2] == [("chain", "90"), ("chain", "300")]
    assert [r[0] for r in rows] == ["chain", "chain", "mlp", "mlp", "demo", "framed"]
    for r in rows[-2:]:
        assert int(r[1].replace(",", "")) > 60_000 and int(r[2]) < 30  # an overview
    assert rows[1][2] == "4"  # 300 tanh: x, the first, the folded rest, the last
    for r in rows:
        assert len(r) == 10 and all(cell for cell in r)
