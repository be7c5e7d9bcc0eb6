"""Helpers shared by the benchmark scripts: run workers in separate processes,
interleaved, and report medians and ratios measured in the same run.

Timings on a shared 2-core machine are noisy: competing implementations run in
separate processes (OpenBLAS threads busy-wait after each call and would slow
whatever runs next in the same process), alternating, and we report medians.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time


def pin_threads(n: int = 1) -> None:
    """Set BLAS thread counts for the workers (they inherit the environment, and the
    variables must be set before numpy is imported there)."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def with_torch(impls: list[str], missing: str | None = None) -> list[str]:
    """``impls`` plus "torch" when PyTorch is installed (it is optional everywhere)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        if missing:
            print(missing)
        return list(impls)
    return [*impls, "torch"]


def run_worker(script: str, impl: str, args: list[str], env: dict | None = None) -> dict:
    """Run ``python script --worker impl args...`` and parse the JSON it prints last."""
    proc = subprocess.run(
        [sys.executable, script, "--worker", impl, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"worker {impl} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def machine_line(threads: int) -> str:
    load = load_average()
    cores = os.cpu_count() or 1
    busy = ""
    if load > 0.5 * cores + 0.5:
        busy = f"  [machine was BUSY: load {load:.2f} on {cores} cores; treat figures as noisy]"
    return (
        f"python {platform.python_version()}, {os.cpu_count()} cores, BLAS threads={threads}, "
        f"load {load:.2f}{busy}"
    )


def spread_mark(name: str, times: list[float], limit: float = 1.15) -> str:
    """A BUSY mark when the same workload's runs differ by more than ``limit`` (max/min).

    The load average misses a neighbour on the same host (a shared VM's stolen
    time); the spread of identical runs does not.  Empty when the runs agree.
    """
    spread = max(times) / min(times)
    if spread <= limit:
        return ""
    return (f"[machine was BUSY: the {name} runs differ by {100 * (spread - 1):.0f}% "
            f"(max/min); treat the ratios as noisy]")


def interleave(script: str, impls: list[str], args: list[str], repeats: int, env=None) -> dict:
    """Run each implementation ``repeats`` times, alternating; collect results per impl."""
    results: dict[str, list[dict]] = {i: [] for i in impls}
    for _ in range(repeats):
        for impl in impls:
            results[impl].append(run_worker(script, impl, args, env))
    return results


def median(xs):
    return statistics.median(xs)


def timer():
    return time.perf_counter()


def at_least(lowest: int, why: str = ""):
    """An argparse type: an int >= ``lowest`` (a clear usage error instead of a crash
    deep in the statistics when a run is too short to measure)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(
                f"must be at least {lowest}{f' ({why})' if why else ''}, got {value}")
        return value

    return parse
