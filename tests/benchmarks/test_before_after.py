"""benchmarks/before_after.py end to end: the table of both trees (never its timings: no
timed tests) and its refusals."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "before_after.py"
ROWS = (
    "scalar step, minigrad/lean, GC on",
    "scalar step, minigrad/lean, GC off",
    "MLP step, minigrad/numpy, 1 thread, paired",
    "MLP step, minigrad/numpy, 2 threads",
    "tiny elementwise chain, minigrad/numpy",
    "tiny matmul chain, minigrad/numpy",
)
CELL = re.compile(r"^\d+\.\d+x \(.+\)$")  # "2.031x (q 1.95-2.10)", "1.07x (1.2/1.1 ms)"


def _run(*args, timeout=600):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout)


@pytest.mark.slow
def test_both_trees_fill_every_row_and_the_worktree_is_removed():
    proc = _run("--baseline", "HEAD~0", "--quick", "--repeats", "1")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    lines = out.splitlines()
    head = next(line for line in lines if line.startswith("measurement "))
    columns = [c.strip() for c in head.split("|")]
    assert columns[0] == "measurement" and columns[3] == "target"
    assert columns[1].startswith("before (") and columns[2].startswith("after (")
    for row in ROWS:
        line = next((line for line in lines if line.startswith(row + " ")), None)
        assert line is not None, f"no row {row!r} in:\n{out}"
        label, before, after, target = (c.strip() for c in line.split("|"))
        assert label == row
        assert CELL.match(before) and CELL.match(after), line
        assert target.startswith("<= ")
    assert "load" in lines[0] and "cores" in lines[0]  # the machine line
    assert "load average at the end" in out
    tree = re.search(r"in the temporary worktree (\S+)\)", out)
    assert tree and not Path(tree[1]).exists()


def test_a_baseline_that_is_not_a_commit_is_refused_by_name():
    proc = _run("--baseline", "no-such-rev-27", timeout=60)
    assert proc.returncode == 2
    assert "--baseline 'no-such-rev-27' is not a commit" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_baseline_without_the_worker_modes_is_refused_by_name():
    root_commit = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=ROOT,
                                 capture_output=True, text=True).stdout.split()[-1]
    proc = _run("--baseline", root_commit, timeout=60)
    assert proc.returncode == 2
    assert f"--baseline '{root_commit}'" in proc.stderr
    assert "lacks the worker modes" in proc.stderr and "benchmarks/scalar.py" in proc.stderr
