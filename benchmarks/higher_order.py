"""Hessian-vector products (double backward): minigrad vs PyTorch CPU.

The workload: the MLP 784-256-128-10 of ``mlp.py`` (ReLU, softmax
cross-entropy, the same float32 weights), batch 128, and a fixed random
direction ``v`` (one array per parameter).  One step is a Hessian-vector
product without forming the Hessian, by double backward::

    g  = grad(loss, params, create_graph=True)   # the gradient, as a graph
    Hv = grad(sum(g_i · v_i), params)            # its directional derivative

* ``minigrad``: the above with ``minigrad.autograd.grad``;
* ``torch``: the same with ``torch.autograd.grad``, if installed (optional);
* ``minigrad-1st`` and ``torch-1st``: one first-order gradient of the same loss
  (forward + backward, no update), the reference when torch is missing and a
  yardstick either way: Hv costs about two more passes than a gradient.

Each run is a separate process; runs alternate; we report medians over
``--repeats`` and the ratio minigrad/torch from the same run, with the machine's
default BLAS threads and with one.  Target: minigrad <= 2x PyTorch.  On a shared
machine the runs of one implementation can differ severalfold (a neighbour takes a
core, and OpenBLAS's spinning threads suffer most), so two more ratios are printed:
each side's fastest run, and the process CPU time per step, which does not count
the time spent waiting for a core (with one thread the figure to trust on a busy
machine; with more it also counts BLAS threads spinning).  The
workers print ``Hv · v`` (the curvature along v) as a check that both compute
the same thing, and minigrad's graph sizes per derivative order: order 0 is the
forward pass (and the ``sum(g·v)`` built on the gradients), order 1 the graph
the first backward pass recorded; the second pass records nothing.

    python benchmarks/higher_order.py [--steps 30] [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import (  # noqa: E402
    at_least,
    interleave,
    machine_line,
    median,
    pin_threads,
    spread_mark,
    timer,
    with_torch,
)
from mlp import BATCH, SIZES, init_weights, make_data  # noqa: E402

WARMUP = 5  # steps run before the clock starts (BLAS and allocator warm-up)
IMPLS = ("minigrad", "minigrad-1st")
# glibc hands free memory at the top of the heap back to the OS, and the next large
# array page-faults it in again (see TUNED_MALLOC in tensor_ops.py).  One Hv makes
# and drops several arrays the size of the first weight matrix (800 kB), so with the
# default allocator minigrad pays ~1,350 page faults a step (PyTorch, whose tensors
# are freed in a different order, ~50-150).  The second table keeps the heap, for
# every implementation: what remains is the engines' own cost.
TUNED_MALLOC = {"MALLOC_TRIM_THRESHOLD_": str(1 << 30), "MALLOC_MMAP_THRESHOLD_": str(1 << 28)}


def directions(seed=3):
    """The direction ``v``: one float32 array per parameter, in ``init_weights`` order."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [rng.standard_normal(w.shape).astype(np.float32) for w in init_weights()]


# --- the implementations: each returns step(x, y) -> Hv · v (or the loss), a float ------------
def minigrad_fns():
    """``(hvp, first)`` step functions on one model, and the model's parameters."""
    import minigrad.nn.functional as F
    from minigrad import Tensor, nn
    from minigrad.autograd import grad

    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10))
    params = list(model.parameters())
    for p, w in zip(params, init_weights()):
        p.data[...] = w
    v = [Tensor(d) for d in directions()]

    def hvp(x, y, keep=None):
        loss = F.cross_entropy(model(Tensor(x)), y)
        g = grad(loss, params, create_graph=True)
        gv = sum((gi * vi).sum() for gi, vi in zip(g, v))
        hv = grad(gv, params)
        if keep is not None:
            keep.append(gv)
        return float(sum((h * d.data).sum() for h, d in zip(hv, v)))

    def first(x, y):
        loss = F.cross_entropy(model(Tensor(x)), y)
        grad(loss, params)
        return loss.item()

    return hvp, first


def torch_fns(threads):
    import torch

    torch.set_num_threads(threads)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    params = list(model.parameters())
    with torch.no_grad():
        for p, w in zip(params, init_weights()):
            p.copy_(torch.from_numpy(w))
    v = [torch.from_numpy(d) for d in directions()]
    loss_fn = torch.nn.functional.cross_entropy

    def hvp(x, y):
        loss = loss_fn(model(torch.from_numpy(x)), torch.from_numpy(y))
        g = torch.autograd.grad(loss, params, create_graph=True)
        gv = sum((gi * vi).sum() for gi, vi in zip(g, v))
        hv = torch.autograd.grad(gv, params)
        return float(sum((h * d).sum() for h, d in zip(hv, v)))

    def first(x, y):
        loss = loss_fn(model(torch.from_numpy(x)), torch.from_numpy(y))
        torch.autograd.grad(loss, params)
        return loss.item()

    return hvp, first


def node_counts() -> dict:
    """minigrad's graph behind ``sum(g·v)``: node counts per derivative order."""
    import minigrad as mg

    hvp, _ = minigrad_fns()
    x, y = make_data(BATCH)
    kept = []
    hvp(x, y, keep=kept)
    counts = Counter(n.order for n in mg.topological_order(kept[0]))
    return {str(k): counts[k] for k in sorted(counts)}


def worker(impl: str, steps: int, threads: int) -> dict:
    if impl.startswith("torch"):
        hvp, first = torch_fns(threads)
    else:
        hvp, first = minigrad_fns()
    step = first if impl.endswith("-1st") else hvp
    X, y = make_data((WARMUP + steps) * BATCH)
    batches = [(X[i:i + BATCH], y[i:i + BATCH]) for i in range(0, len(X), BATCH)]
    for x, t in batches[:WARMUP]:
        step(x, t)
    times, cpu, values = [], [], []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for x, t in batches[WARMUP:]:
        t0, c0 = timer(), time.process_time()
        values.append(step(x, t))
        times.append(timer() - t0)
        cpu.append(time.process_time() - c0)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / len(times)
    return {"step": median(times), "cpu": median(cpu), "value": values[0], "steps": len(times),
            "faults": faults}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=at_least(5, "a median needs a few steps"), default=30)
    ap.add_argument("--repeats", type=at_least(3, "a median of three runs at least"), default=3)
    ap.add_argument("--threads", type=int, default=None,
                    help="BLAS (and torch) threads; by default both the machine's default "
                         "(one per core, what a user gets) and 1")
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.steps, args.threads)))
        return
    impls = with_torch(list(IMPLS), "torch not installed: minigrad's Hv against its own "
                                    "first-order gradient only")
    if "torch" in impls:
        impls.append("torch-1st")
    counts = node_counts()
    print("minigrad's graph for one Hv, nodes per derivative order: "
          + ", ".join(f"order {k}: {n}" for k, n in counts.items())
          + f" (total {sum(counts.values())}; the second backward records none)")
    for title, env in (("default glibc malloc", None),
                       ("heap kept: MALLOC_TRIM_THRESHOLD_ raised, for every implementation",
                        TUNED_MALLOC)):
        for threads in [args.threads] if args.threads else [os.cpu_count() or 1, 1]:
            print()
            _compare(impls, args.steps, threads, args.repeats, title, env)


def _compare(impls, steps, threads, repeats, title, env):
    """Time every implementation with ``threads`` BLAS threads and print the ratios."""
    pin_threads(threads)
    res = interleave(__file__, impls, ["--steps", str(steps), "--threads", str(threads)],
                     repeats, env=env)
    print(machine_line(threads))
    print(f"Hessian-vector product, MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, float32, "
          f"median step of {steps}, median of {repeats} runs ({title})")
    est = {impl: median([r["step"] for r in runs]) for impl, runs in res.items()}
    for impl in impls:
        runs = res[impl]
        spread = ", ".join(f"{1e3 * r['step']:.2f}" for r in runs)
        what = "loss" if impl.endswith("-1st") else "Hv·v"
        print(f"  {impl:<13}{1e3 * est[impl]:7.2f} ms/step (runs {spread}; "
              f"{median([r['faults'] for r in runs]):,.0f} page faults/step; "
              f"{what} {runs[0]['value']:.5g})")
    print(f"ratio minigrad Hv / minigrad gradient = {est['minigrad'] / est['minigrad-1st']:.2f}")
    if "torch" in est:
        print(f"ratio torch Hv / torch gradient       = {est['torch'] / est['torch-1st']:.2f}")
        print(f"ratio minigrad/torch, Hv = {est['minigrad'] / est['torch']:.3f}  (target <= 2; "
              f"gradient alone {est['minigrad-1st'] / est['torch-1st']:.3f}; {threads} BLAS "
              f"thread{'s' * (threads != 1)})")
        quiet = {impl: min(r["step"] for r in res[impl]) for impl in ("minigrad", "torch")}
        print(f"ratio minigrad/torch, Hv, quietest runs = "
              f"{quiet['minigrad'] / quiet['torch']:.3f}  (each side's fastest run: the figure "
              f"least disturbed by neighbours)")
        cpu = {impl: median([r["cpu"] for r in res[impl]]) for impl in ("minigrad", "torch")}
        why = ("the figure to trust on a busy machine" if threads == 1 else
               "with several threads it also counts BLAS threads spinning")
        print(f"ratio minigrad/torch, Hv, CPU time = {cpu['minigrad'] / cpu['torch']:.3f}  "
              f"({1e3 * cpu['minigrad']:.2f} / {1e3 * cpu['torch']:.2f} ms of process CPU time "
              f"per step, blind to waiting for a core: {why})")
        a, b = res["minigrad"][0]["value"], res["torch"][0]["value"]
        print(f"same Hv·v as torch (to 1e-3 relative): {abs(a - b) <= 1e-3 * abs(b)}")
    busy = spread_mark("minigrad", [r["step"] for r in res["minigrad"]])
    if busy:
        print(busy)


if __name__ == "__main__":
    main()
