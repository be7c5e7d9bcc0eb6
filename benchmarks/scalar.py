"""Scalar engine vs micrograd on micrograd's own demo step.

The step (from micrograd's demo notebook): an MLP 2-16-16-1 on 100 two-moons
points, max-margin loss plus L2 regularisation, zero_grad, backward, SGD.
Each engine runs in its own process, alternating, with Python's GC on (it is
part of the real cost: micrograd's closures make reference cycles, which the
cyclic GC must chase).  Prints the median step time of each and the ratio.

    python benchmarks/scalar.py [--steps 20] [--repeats 3]
A third, "lean" engine (benchmarks/_lean_scalar.py: four slots, no metadata) is
timed in the same run as the floor.  Target: minigrad <= 2.0x lean.  The ratio to
micrograd is printed too, but it moves between machines (0.24x on one, 0.40x on
another: micrograd's time is mostly cyclic GC, whose cost depends on the memory
system).

The ratio to the floor moves too, for the same reason: the same code measured
1.72-1.9x on the machine where the target was set and 2.58x on another (the
commit before #15's rework; today's code 2.30-2.58x there; each run with its floor
timed in the same run).  A step builds
~130,000 tracked objects, so Python runs one full collection per step, and a
full collection visits every node and touches what each slot points to: per
node the lean engine has its data and its parents' tuple to touch, minigrad
also its id (an int object) and its saved values' tuple, in a node twice as
big (12 slots: two cache lines).  Measured with ``gc.collect()`` over one step's
graph: 48-55 ms for the floor, 86-102 ms for minigrad; the floor with 7 more
slots 77-84, with an id 67-70, with a saved tuple 73, with a weak-reference slot
66-71.  So the script also times both engines with the collector off: that
ratio is the engines' own work, which the code controls.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import (  # noqa: E402
    at_least,
    interleave,
    machine_line,
    median,
    pin_threads,
    timer,
)


def moons(n=100, noise=0.1, seed=1):
    import numpy as np

    rng = np.random.default_rng(seed)
    n_out = n // 2
    n_in = n - n_out
    t_out = np.linspace(0, np.pi, n_out)
    t_in = np.linspace(0, np.pi, n_in)
    X = np.vstack([
        np.column_stack([np.cos(t_out), np.sin(t_out)]),
        np.column_stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5]),
    ])
    X += rng.normal(scale=noise, size=X.shape)
    y = np.hstack([np.zeros(n_out), np.ones(n_in)]) * 2 - 1
    return X.tolist(), y.tolist()


def build(impl):
    """Return (Value class, MLP class) for the implementation."""
    if impl == "micrograd":
        from micrograd.engine import Value
        from micrograd.nn import MLP

        return Value, MLP
    if impl == "lean":
        from _lean_scalar import MLP, Value

        return Value, MLP
    from minigrad import Value
    from minigrad.nn.neurons import MLP

    return Value, MLP


def worker(impl: str, steps: int, collector: bool = True) -> dict:
    import gc
    import random

    if not collector:
        gc.disable()
    random.seed(1337)
    Value, MLP = build(impl)
    X, y = moons()
    model = MLP(2, [16, 16, 1])
    params = model.parameters()
    times = []
    nodes = 0
    for k in range(steps):
        t0 = timer()
        inputs = [[Value(a) for a in row] for row in X]
        scores = [model(x) for x in inputs]
        losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg_loss = 1e-4 * sum(p * p for p in params)
        total = data_loss + reg_loss
        model.zero_grad()
        total.backward()
        lr = 1.0 - 0.9 * k / 100
        for p in params:
            p.data -= lr * p.grad
        times.append(timer() - t0)
        if k == 0 and impl == "minigrad":
            from minigrad import topological_order

            nodes = len(topological_order(total))
    return {"step": median(times[1:]), "loss": total.data, "nodes": nodes}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=at_least(2, "the first step is a warm-up"), default=12)
    ap.add_argument("--repeats", type=at_least(1), default=3)
    ap.add_argument("--no-gc", action="store_true", help="(worker) cyclic GC off")
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.steps, not args.no_gc)))
        return
    pin_threads(1)
    impls = ["minigrad", "lean"]
    try:
        import micrograd  # noqa: F401

        impls.append("micrograd")
    except ImportError:
        print("micrograd not installed (pip install micrograd==0.1.0): minigrad only")
    res = interleave(__file__, impls, ["--steps", str(args.steps)], args.repeats)
    print(machine_line(1))
    mg = median([r["step"] for r in res["minigrad"]])
    nodes = res["minigrad"][0]["nodes"]
    print(f"minigrad : {mg * 1e3:8.1f} ms/step  ({nodes} nodes, {mg / nodes * 1e6:.2f} us/node)")
    lean = median([r["step"] for r in res["lean"]])
    print(f"lean     : {lean * 1e3:8.1f} ms/step  (4-slot engine, no metadata: the floor)")
    print(f"ratio minigrad/lean      = {mg / lean:.3f}  (target <= 2.0)")
    if "micrograd" in res:
        mc = median([r["step"] for r in res["micrograd"]])
        print(f"micrograd: {mc * 1e3:8.1f} ms/step  ({mc / nodes * 1e6:.2f} us/node)")
        print(f"ratio minigrad/micrograd = {mg / mc:.3f}  (moves between machines: see the doc)")
        print(f"ratio lean/micrograd     = {lean / mc:.3f}  (the floor for any engine whose graph")
        print("                                   lives until backward, with GC on)")
        same = abs(res["minigrad"][0]["loss"] - res["micrograd"][0]["loss"]) < 1e-9
        print(f"same final loss as micrograd: {same}")
    off = interleave(__file__, ["minigrad", "lean"], ["--steps", str(args.steps), "--no-gc"],
                     args.repeats)
    mg_off, lean_off = (median([r["step"] for r in off[i]]) for i in ("minigrad", "lean"))
    print(f"with the cyclic GC off: minigrad {mg_off * 1e3:.1f} ms/step, lean "
          f"{lean_off * 1e3:.1f} ms/step, ratio {mg_off / lean_off:.3f} (the engines' own "
          "work; GC was")
    print(f"  {100 * (1 - mg_off / mg):.0f}% of minigrad's step and "
          f"{100 * (1 - lean_off / lean):.0f}% of lean's: see the module doc)")


if __name__ == "__main__":
    main()
