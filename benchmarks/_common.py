"""Helpers shared by the benchmark scripts: run workers in separate processes,
interleaved, and report medians and ratios measured in the same run.

Timings on a shared 2-core machine are noisy: competing implementations run in
separate processes (OpenBLAS threads busy-wait after each call and would slow
whatever runs next in the same process), alternating, and we report medians.

That still leaves the machine's slow and fast phases: a neighbour on the host
can make everything in a process twice as slow for seconds at a time, and the
ratio of two medians then says which process drew the slow phase.  With one
BLAS thread (no busy-waiting threads to disturb the next call) ``paired`` runs
the implementations in one process instead, in short blocks taken in turn, and
reports the median of each block's ratio to the reference block beside it: both
sides of a ratio ran within milliseconds of each other, so a phase slows both
and cancels.  Tested on the tiny chain: the medians of separate processes gave
2.38-2.90x across three runs, the paired ratio 2.53-2.58x, one of those runs in
a phase that doubled every time.
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

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: the environment of a worker with one BLAS thread (``run_worker(..., env=ONE_THREAD)``)
ONE_THREAD = {var: "1" for var in THREAD_VARS}


# glibc returns freed memory at the top of the heap to the OS once more than
# M_TRIM_THRESHOLD bytes are free there; the next large array then page-faults on
# every page it touches (4 KiB each, ~0.25 us a fault).  The threshold moves: glibc
# sets it to twice the largest mmapped block freed so far.  A training step that
# allocates a few arrays of a megabyte or more and frees them all at its end can pay
# that every step (cnn.py: ~1,800 faults a step for hand-written numpy, ~2,100 for
# minigrad).  Run with this environment, every implementation keeps its heap: the
# same allocator, no page faults, and what remains is the arithmetic and each
# implementation's own overhead.  (A process can ask for the same with mallopt.)
TUNED_MALLOC = {"MALLOC_TRIM_THRESHOLD_": str(1 << 30), "MALLOC_MMAP_THRESHOLD_": str(1 << 28)}


def pin_threads(n: int = 1) -> None:
    """Set BLAS thread counts for the workers (they inherit the environment, and the
    variables must be set before numpy is imported there)."""
    for var in THREAD_VARS:
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


def paired(steps: dict, reference: str, blocks: int = 100, inner: int = 10) -> dict:
    """Time ``steps`` (name -> a no-argument callable) in this process, in turn.

    Each round times ``inner`` calls of every step, one block each; a round gives
    each step the ratio of its block to the ``reference`` block of the same round.
    Every other round runs the steps in reverse order, so that no step always
    follows the same one (a block starts with the previous block's data in the
    caches).  Returns, per name, ``(median ratio, first quartile,
    third quartile, best block time per call)``.  Call ``pin_threads(1)`` before
    numpy is imported, or run the worker with ``env=ONE_THREAD`` (see the module doc for
    why one thread).
    """
    names = list(steps)
    for name in names:  # warm-up: first calls, caches, lazily built code
        for _ in range(inner):
            steps[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(blocks):
        for name in (names if round_ % 2 == 0 else names[::-1]):
            step = steps[name]
            t0 = time.perf_counter()
            for _ in range(inner):
                step()
            times[name].append((time.perf_counter() - t0) / inner)
    out = {}
    for name in names:
        ratios = sorted(t / r for t, r in zip(times[name], times[reference]))
        q1, q2, q3 = statistics.quantiles(ratios, n=4)
        out[name] = (q2, q1, q3, min(times[name]))
    return out


def cycling(step_fn, batches: list):
    """A no-argument step for ``paired``: ``step_fn(x, y)`` on the next of ``batches``, round
    and round (a training step sees new data each call, as in the separate processes)."""
    state = [0]

    def step():
        x, y = batches[state[0] % len(batches)]
        state[0] += 1
        return step_fn(x, y)

    return step


def paired_training(makers: dict, batches: list, blocks: int, inner: int = 5) -> dict:
    """``paired`` for training steps: ``makers`` maps a name to a function that builds that
    implementation's ``step(x, y)``; each runs on ``batches`` in turn; ratios to "numpy"."""
    return paired({name: cycling(make(), batches) for name, make in makers.items()}, "numpy",
                  blocks, inner)


def paired_lines(result: dict, reference: str, label: str = "") -> list[str]:
    """``paired``'s result as one line per implementation: best time, median ratio, IQR."""
    lines = []
    for name, (ratio, q1, q3, best) in result.items():
        line = f"  {name:<12}{best * 1e3:9.3f} ms (best block)"
        if name != reference:
            line += f"   {ratio:5.2f}x {reference}{label}  (quartiles {q1:.2f}-{q3:.2f})"
        lines.append(line)
    return lines


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
