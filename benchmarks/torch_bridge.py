"""What stepping through PyTorch's own backward costs, against references timed in the
same run.

1. **Recording a backward**: a small CNN like lesson 10's (8x8 digit-like images,
   Conv2d 1->8 3x3, ReLU, MaxPool2d 2, Linear 128->10, cross-entropy, batch 32).  Per
   repeat, a fresh forward, then either a plain ``loss.backward()`` or the same backward
   with the stepper's hooks on every Node (``BackwardRecorder``: prehook and hook, numpy
   copies of every gradient).  Also printed: the whole ``record_torch`` (the view, the
   hooked backward and the tape).  Target: hooked backward <= 3x plain.
2. **Opening a step-through**: ``viz.step_through(f, x, w)`` then its player page
   (``to_html()``: frames, layout, template) on a ~300-node graph, torch tensors vs the
   same function on minigrad Tensors.  Target: <= 1.5x.

Ratios come from medians of interleaved runs in one process; never asserted.

    python benchmarks/torch_bridge.py [--batch 32] [--repeats 15] [--chain 100] [--opens 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import machine_line  # noqa: E402


def cnn_case(batch: int):
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(8 * 4 * 4, 10))
    x = torch.randn(batch, 1, 8, 8)
    y = torch.randint(0, 10, (batch,))

    def loss():
        model.zero_grad(set_to_none=True)
        return torch.nn.functional.cross_entropy(model(x), y)

    return loss


def time_backward(make_loss, how: str) -> float:
    from viz.render.torch_graph import walk_nodes
    from viz.stepper.torch_recording import BackwardRecorder, record_torch

    loss = make_loss()
    if how == "plain":
        t = time.perf_counter()
        loss.backward()
        return time.perf_counter() - t
    if how == "hooked":
        t = time.perf_counter()
        BackwardRecorder(walk_nodes([loss.grad_fn])).run(loss)
        return time.perf_counter() - t
    t = time.perf_counter()
    record_torch(loss, ())
    return time.perf_counter() - t


def chain_fn(k: int):
    def f(x, w):
        h = x
        for _ in range(k):
            h = (h * w).tanh() + h
        return h.sum()

    return f


def time_open(k: int, engine: str) -> float:
    import numpy as np

    import viz

    rng = np.random.default_rng(0)
    x0, w0 = rng.standard_normal(4), rng.standard_normal(4) * 0.1
    if engine == "torch":
        import torch

        x = torch.tensor(x0, requires_grad=True)
        w = torch.tensor(w0, requires_grad=True)
    else:
        from minigrad import Tensor

        x, w = Tensor(x0, requires_grad=True), Tensor(w0, requires_grad=True)
    t = time.perf_counter()
    s = viz.step_through(chain_fn(k), x, w, layout="builtin")
    s.to_html()
    took = time.perf_counter() - t
    return took, len(s.frames.nodes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--chain", type=int, default=100, help="3 nodes per link: ~300 nodes")
    ap.add_argument("--opens", type=int, default=3)
    args = ap.parse_args()
    import torch

    print(machine_line(torch.get_num_threads()))
    make = cnn_case(args.batch)
    times = {"plain": [], "hooked": [], "record_torch": []}
    for how in times:  # warm up
        time_backward(make, how)
    for _ in range(args.repeats):
        for how in times:
            times[how].append(time_backward(make, how))
    med = {how: statistics.median(ts) for how, ts in times.items()}
    print(f"CNN backward, batch {args.batch}: plain {med['plain'] * 1e3:.2f} ms, hooked "
          f"{med['hooked'] * 1e3:.2f} ms, whole record_torch {med['record_torch'] * 1e3:.2f} ms")
    print(f"recording ratio (hooked / plain): {med['hooked'] / med['plain']:.2f}x "
          f"(target <= 3x); whole record_torch / plain: "
          f"{med['record_torch'] / med['plain']:.2f}x")
    opens = {"torch": [], "minigrad": []}
    sizes = {}
    for engine in opens:  # warm up
        time_open(min(args.chain, 5), engine)
    for _ in range(args.opens):
        for engine in opens:
            took, sizes[engine] = time_open(args.chain, engine)
            opens[engine].append(took)
    om = {e: statistics.median(ts) for e, ts in opens.items()}
    print(f"opening a step-through (step_through + to_html): torch {om['torch'] * 1e3:.0f} ms "
          f"({sizes['torch']} nodes), minigrad {om['minigrad'] * 1e3:.0f} ms "
          f"({sizes['minigrad']} nodes)")
    print(f"opening ratio (torch / minigrad): {om['torch'] / om['minigrad']:.2f}x "
          f"(target <= 1.5x)")


if __name__ == "__main__":
    main()
