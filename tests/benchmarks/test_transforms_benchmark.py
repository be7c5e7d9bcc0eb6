"""benchmarks/transforms.py runs end to end at tiny sizes (its figures are not asserted)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest

from tests._helpers import ROOT

SCRIPT = str(ROOT / "benchmarks" / "transforms.py")
TINY = ["--batch", "4", "--small", "2", "--large", "5", "--hidden", "3", "--steps", "5"]


def _run(*args, timeout=300):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_the_transforms_benchmark_prints_passes_and_ratios_at_tiny_sizes():
    proc = _run(*TINY, "--repeats", "1", "--threads", "1", "--no-torch")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line.strip().startswith(("jacfwd-", "jacrev-")) and "×" in line}
    # (shape, forward passes, their directions, backward passes, theirs): one batched pass
    # carrying a direction per input column or output row; -loop: a pass per direction
    assert {k: v[:5] for k, v in rows.items()} == {
        "jacfwd-tall": ["5×2", "1", "2", "0", "0"], "jacrev-tall": ["5×2", "1", "1", "1", "5"],
        "jacfwd-wide": ["2×5", "1", "5", "0", "0"], "jacrev-wide": ["2×5", "1", "1", "1", "2"],
        "jacrev-tall-loop": ["5×2", "1", "1", "5", "5"],
        "jacfwd-wide-loop": ["2×5", "5", "5", "0", "0"]}
    assert all(f"ratio jvp / forward by {how}" in out for how in ("median wall time", "CPU time",
                                                                 "quietest runs"))
    assert "jacfwd and jacrev (batched, and as the loop) give the same Jacobians: True" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("workload"))
    assert header.split() == ["workload", "minigrad", "numpy"]  # --no-torch: no torch column


def test_the_per_example_table_checks_each_implementation_against_the_numpy_reference():
    proc = _run(*TINY, "--pe-steps", "3", "--repeats", "1", "--threads", "1", "--no-torch",
                "--per-example-only")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "passes (minigrad" not in out and "jacrev-tall" not in out  # that table only
    rows = {line.split("  ")[1].strip(): line for line in out.splitlines()
            if line.startswith(("  numpy (", "  minigrad "))}
    assert set(rows) >= {"numpy (einsum, ref)", "minigrad loop of grad", "minigrad vmap(grad)"}
    assert "1.00x" in rows["numpy (einsum, ref)"]
    assert "x numpy here: >= 10x over it needs vmap(grad) <= " in out  # what the loop allows
    assert ("every implementation gives the reference's gradients (to 1e-04 relative, "
            "checked before timing): True") in out


def test_a_per_example_gradient_that_disagrees_with_the_reference_is_not_timed(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import _per_example
    import transforms

    grads = _per_example.numpy_fn(2)()
    assert _per_example.agreement(grads, grads) == 0.0
    with pytest.raises(ValueError, match=r"gradient of W1: shape \(2, 256\)"):
        _per_example.agreement([grads[1]] + grads[1:], grads)
    wrong = [g * 1.01 for g in grads]
    monkeypatch.setattr(_per_example, "minigrad_fns", lambda batch: {"loop": lambda: wrong})
    args = argparse.Namespace(batch=2, threads=1, pe_steps=3)
    with pytest.raises(SystemExit, match="minigrad:pergrad-loop: per-example gradients "
                                         "differ from the numpy reference by 1.0e-02"):
        transforms._per_example_worker("minigrad", "pergrad-loop", args)


def test_the_torch_worker_computes_what_minigrad_does():
    pytest.importorskip("torch")
    results = {}
    for lib in ("minigrad", "torch"):
        for workload in ("jvp", "jacrev-wide"):
            proc = _run(*TINY, "--threads", "1", "--worker", f"{lib}:{workload}")
            assert proc.returncode == 0, proc.stderr
            results[lib, workload] = json.loads(proc.stdout.splitlines()[-1])["value"]
    for workload in ("jvp", "jacrev-wide"):
        a, b = results["minigrad", workload], results["torch", workload]
        assert abs(a - b) <= 1e-4 * abs(b), (workload, a, b)


def test_a_tall_map_must_be_taller_than_wide():
    proc = _run("--small", "6", "--large", "6", timeout=60)
    assert proc.returncode == 2 and "must be below --large" in proc.stderr
