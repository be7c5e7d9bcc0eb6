"""Small-CNN training step: minigrad vs a hand-written numpy im2col CNN vs PyTorch CPU.

The network: conv 1->8 3x3 (no padding), ReLU, 2x2 max-pool, flatten,
linear 8·13·13 -> 10, softmax cross-entropy, SGD (lr 0.01); batch 64 of 28x28
random float32 images.  One step = forward + backward + parameter update.

* ``numpy``: what a student writes after reading about im2col: patches via
  ``as_strided`` (laid out (C·kh·kw, N·Ho·Wo)), one matmul, ReLU, 2x2 max-pool
  with four strided slices, the linear layer, and the backward pass by hand.
* ``minigrad``: ``nn.Sequential(Conv2d, ReLU, MaxPool2d, Flatten, Linear)``,
  ``F.cross_entropy``, ``optim.SGD``.
* ``torch``: the same network in PyTorch (optional; the target compares to it).

Each run is a separate process, runs alternate, medians of ``--repeats``;
the step time of a run is the median over its steps.  Target: minigrad <= 2.0x
PyTorch (#15; 2.5x before it).

Two tables.  With glibc's default malloc, the step's arrays of a megabyte and more
(the convolution's output, its ReLU, their gradients) go back to the OS when the step
frees them, and come back as page faults the next step: ~1,800 a step for
hand-written numpy, ~2,100 for minigrad, a few for PyTorch, and most of numpy's and
minigrad's time.  The second table runs every implementation with the heap kept
(``_common.TUNED_MALLOC``): what remains is the arithmetic and each one's overhead.
Last, the paired figure (``_common.paired``): the three in one process, in turn.

    python benchmarks/cnn.py [--quick] [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import (  # noqa: E402
    ONE_THREAD,
    TUNED_MALLOC,
    at_least,
    interleave,
    machine_line,
    median,
    paired_lines,
    paired_training,
    pin_threads,
    run_worker,
    spread_mark,
    timer,
    with_torch,
)

N, C, H, W = 64, 1, 28, 28
O, K = 8, 3
HO, WO = H - K + 1, W - K + 1  # 26 x 26
PH, PW = HO // 2, WO // 2      # 13 x 13
FLAT = O * PH * PW
CLASSES = 10
LR = 0.01


def make_batches(count, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    return [(rng.random((N, C, H, W), dtype=np.float32), rng.integers(0, CLASSES, N))
            for _ in range(count)]


def init_weights(seed=1):
    import numpy as np

    rng = np.random.default_rng(seed)
    b_conv, b_fc = 1 / np.sqrt(C * K * K), 1 / np.sqrt(FLAT)
    return [rng.uniform(-b_conv, b_conv, (O, C, K, K)).astype(np.float32),
            rng.uniform(-b_conv, b_conv, O).astype(np.float32),
            rng.uniform(-b_fc, b_fc, (CLASSES, FLAT)).astype(np.float32),
            rng.uniform(-b_fc, b_fc, CLASSES).astype(np.float32)]


def numpy_step_fn():
    import numpy as np
    from numpy.lib.stride_tricks import as_strided

    Wc, bc, Wf, bf = init_weights()

    def step(x, y):
        n = len(y)
        # forward: im2col + one matmul
        sN, sC, sH, sW = x.strides
        cols = as_strided(x, (C, K, K, n, HO, WO), (sC, sH, sW, sN, sH, sW)).reshape(C * K * K, -1)
        conv = Wc.reshape(O, -1) @ cols                          # (O, n·HO·WO)
        conv += bc[:, None]
        a = np.maximum(conv, 0).reshape(O, n, HO, WO)
        q = [a[:, :, i::2, j::2] for i in (0, 1) for j in (0, 1)]  # 2x2 pool: 4 strided slices
        pooled = np.maximum(np.maximum(q[0], q[1]), np.maximum(q[2], q[3]))
        flat = pooled.transpose(1, 0, 2, 3).reshape(n, FLAT)
        z = flat @ Wf.T
        z += bf
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        loss = float(np.mean(np.log(s[:, 0]) - z[rows, y]))
        # backward
        dz = e / s
        dz[rows, y] -= 1
        dz /= n
        dWf, dbf = dz.T @ flat, dz.sum(axis=0)
        dpool = (dz @ Wf).reshape(n, O, PH, PW).transpose(1, 0, 2, 3)
        da = np.zeros_like(a)
        taken = np.zeros(pooled.shape, dtype=bool)
        for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
            hit = (q[k] == pooled) & ~taken
            taken |= hit
            da[:, :, i::2, j::2] = dpool * hit
        dconv = da.reshape(O, -1)
        dconv *= conv > 0
        dWc, dbc = (dconv @ cols.T).reshape(Wc.shape), dconv.sum(axis=1)
        for p, g in ((Wc, dWc), (bc, dbc), (Wf, dWf), (bf, dbf)):
            p -= LR * g
        return loss

    return step


def minigrad_step_fn():
    import minigrad.nn.functional as F
    from minigrad import Tensor, nn, optim

    model = nn.Sequential(nn.Conv2d(C, O, K), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(FLAT, CLASSES))
    for p, w in zip(model.parameters(), init_weights()):
        p.data[...] = w
    opt = optim.SGD(model.parameters(), lr=LR)

    def step(x, y):
        loss = F.cross_entropy(model(Tensor(x)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def torch_step_fn(threads):
    import torch

    torch.set_num_threads(threads)
    model = torch.nn.Sequential(torch.nn.Conv2d(C, O, K), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Flatten(), torch.nn.Linear(FLAT, CLASSES))
    with torch.no_grad():
        for p, w in zip(model.parameters(), init_weights()):
            p.copy_(torch.from_numpy(w))
    opt = torch.optim.SGD(model.parameters(), lr=LR)

    def step(x, y):
        loss = torch.nn.functional.cross_entropy(model(torch.from_numpy(x)), torch.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def paired_worker(blocks: int) -> dict:
    """numpy, minigrad and PyTorch (if installed) in this one process, in turn
    (``_common.paired``); ratios to numpy."""
    makers = {"numpy": numpy_step_fn, "minigrad": minigrad_step_fn}
    if with_torch([]):
        makers["torch"] = lambda: torch_step_fn(1)
    return paired_training(makers, make_batches(10, seed=3), blocks)


def worker(impl: str, steps: int, threads: int) -> dict:
    if impl == "paired":
        return paired_worker(steps)
    data = make_batches(steps)
    step = {"numpy": numpy_step_fn, "minigrad": minigrad_step_fn}.get(impl)
    step = step() if step else torch_step_fn(threads)
    for x, y in make_batches(5, seed=2):  # warm-up
        step(x, y)
    times, losses = [], []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for x, y in data:
        t0 = timer()
        losses.append(step(x, y))
        times.append(timer() - t0)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return {"step": median(times), "first_loss": losses[0], "loss": losses[-1],
            "faults": faults / len(data)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="20 steps per run instead of 60")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--repeats", type=at_least(3, "a median of three runs at least"), default=3)
    ap.add_argument("--threads", type=int, default=1, help="BLAS (and torch) threads")
    ap.add_argument("--worker")
    args = ap.parse_args()
    steps = args.steps or (20 if args.quick else 60)
    if args.worker:
        print(json.dumps(worker(args.worker, steps, args.threads)))
        return
    pin_threads(args.threads)
    impls = with_torch(
        ["numpy", "minigrad"],
        "torch not installed: numpy and minigrad only (the target compares to torch)",
    )
    for k, (title, env) in enumerate((("glibc's default malloc", None),
                                      ("heap kept, for every implementation", TUNED_MALLOC))):
        if k:
            print()
        res = interleave(__file__, impls, ["--steps", str(steps), "--threads",
                                           str(args.threads)], args.repeats, env=env)
        _table(res, impls, steps, args.repeats, args.threads, title)
    result = run_worker(__file__, "paired", ["--steps", str(max(steps, 60))], ONE_THREAD)
    print("\npaired: in one process, in turn, 5-step blocks, 1 BLAS thread (the figure to trust "
          "on a shared machine; _common.paired)")
    print("\n".join(paired_lines(result, "numpy")))
    if "torch" in result:
        print(f"ratio minigrad/torch = {result['minigrad'][0] / result['torch'][0]:.3f} "
              "(target <= 2.0; the heap's history in one process spares numpy's and "
              "minigrad's page faults here)")


def _table(res, impls, steps, repeats, threads, title):
    print(machine_line(threads))
    print(f"CNN conv {C}->{O} {K}x{K}, ReLU, 2x2 max-pool, linear {FLAT}->{CLASSES}; batch {N} of "
          f"{H}x{W}; forward+backward+SGD; median of {steps} steps x {repeats} runs; {title}")
    t = {impl: median([r["step"] for r in runs]) for impl, runs in res.items()}
    for impl in impls:
        runs = res[impl]
        spread = ", ".join(f"{r['step'] * 1e3:.2f}" for r in runs)
        faults = median([r["faults"] for r in runs])
        print(f"  {impl:<9}{t[impl] * 1e3:7.2f} ms/step  (runs {spread}; {faults:,.0f} page "
              f"faults/step; loss {runs[0]['first_loss']:.4f} -> {runs[0]['loss']:.4f})")
    print(f"ratio minigrad/numpy = {t['minigrad'] / t['numpy']:.3f}")
    if "torch" in t:
        print(f"ratio minigrad/torch = {t['minigrad'] / t['torch']:.3f}  (target <= 2.0)")
    same = abs(res["minigrad"][0]["loss"] - res["numpy"][0]["loss"]) < 1e-3
    print(f"same final loss as numpy (to 1e-3): {same}")
    busy = spread_mark("numpy", [r["step"] for r in res["numpy"]])
    if busy:
        print(busy)


if __name__ == "__main__":
    main()
