"""``minigrad.jit`` speed: traced, fused and compiled vs eager minigrad vs hand-written numpy.

Three workloads, forward + backward, each implementation in its own process,
alternating, medians (``_common.py``); ratios are to numpy in the same run:

* ``chain_4M``: 8 elementwise ops on 4M float32 elements (x, y, z):
  ``exp(tanh(x*y + z)*0.5 - x)*z + y``, summed.  numpy is what a student writes:
  one temporary per op, the backward by hand.  ``jit`` fuses the 8 ops into one
  kernel, run block by block (numpy calls on cache-sized blocks: one pass over
  memory), one share of the blocks per core; ``jit-1thread`` on one core;
  ``jit-numexpr`` with the numexpr backend (``pip install minigrad-kit[jit]``).
  Targets: jit >= 2x faster than eager minigrad, and faster than numpy.
* ``mlp``: the 784-256-128-10 training step of ``benchmarks/mlp.py`` (batch 128,
  SGD), the model's forward and loss under ``jit`` (``nn.Linear(..., activation=
  "relu")``: the fused ``linear_relu`` op); ``jit-step``: the whole step as one
  ``jit.train_step`` (forward, backward, SGD; no graph node, no engine walk).
  Target: jit <= 1.0x numpy, which a compiled step cannot reach honestly here: both
  make the same matrix products (most of the step), and minigrad's rules written out
  in numpy cost what the reference costs (``mlp.py``'s paired ``numpy-rules`` row:
  1.00x, quartiles 0.99-1.02).  What is left is Python around the same calls:
  ``jit-step`` 1.04x (paired).
* ``tiny``: the 4x4 chain of ``benchmarks/tensor_ops.py`` (50 steps of
  ``h = tanh(h*w + b)``, 150 nodes eagerly).  Target: jit <= 1.2x numpy.

Tracing overhead is reported as the first call's time (trace + passes +
compile + run) against the median cached call.

    python benchmarks/jit.py [--repeats 3] [--threads 2] [--which chain_4M|mlp|tiny]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import (  # noqa: E402
    ONE_THREAD,
    at_least,
    interleave,
    machine_line,
    median,
    paired,
    paired_lines,
    pin_threads,
    run_worker,
    timer,
)

CASES = ("chain_4M", "mlp", "tiny")
IMPLS = {"chain_4M": ("numpy", "minigrad", "jit", "jit-1thread", "jit-numexpr"),
         "mlp": ("numpy", "minigrad", "jit", "jit-step"), "tiny": ("numpy", "minigrad", "jit")}
N = 4_000_000
STEPS = 50
#: the cases also timed by ``_common.paired``, and their least number of blocks (chain_4M's
#: large arrays are timed in processes of their own: one case's heap changes the next's)
PAIRED = {"mlp": 60, "tiny": 100}


# --- chain_4M ----------------------------------------------------------------------------
def _chain_data():
    import numpy as np

    rng = np.random.default_rng(0)
    return [(rng.standard_normal(N) * 0.5).astype(np.float32) for _ in range(3)]


def chain(x, y, z):
    """The 8 ops, written once for minigrad (eager and jit)."""
    return ((((x * y + z).tanh() * 0.5 - x).exp() * z) + y).sum()


def numpy_chain(x, y, z):
    import numpy as np

    def step():
        a = x * y
        b = a + z
        c = np.tanh(b)
        d = c * np.float32(0.5)
        e = d - x
        f = np.exp(e)
        h = f * z
        k = h + y
        loss = k.sum()
        gz = f  # d(sum)/dk = 1: gh = 1, gy = 1
        gf = z
        ge = gf * f
        gx = -ge
        gb = ge * np.float32(0.5) * (1 - c * c)
        gz = gz + gb
        gx = gx + gb * y
        gy = 1 + gb * x
        return loss, gx, gy, gz

    return step


def minigrad_chain(x, y, z, fn):
    from minigrad import Tensor

    ts = [Tensor(a, requires_grad=True) for a in (x, y, z)]

    def step():
        for t in ts:
            t.grad = None
        loss = fn(*ts)
        loss.backward()
        return loss

    return step


# --- tiny --------------------------------------------------------------------------------
def _tiny_data():
    import numpy as np

    rng = np.random.default_rng(0)
    f = np.float32
    x = rng.standard_normal((4, 4)).astype(f) * 0.5
    ws = [rng.standard_normal((4, 4)).astype(f) * 0.5 for _ in range(STEPS)]
    bs = [rng.standard_normal((4, 4)).astype(f) * 0.1 for _ in range(STEPS)]
    return x, ws, bs


def numpy_tiny(x0, ws, bs):
    import numpy as np
    from tensor_ops import numpy_tanh_chain

    def step():
        return numpy_tanh_chain(np, x0, ws, bs)[:3]

    return step


def minigrad_tiny(x0, ws, bs, use_jit):
    from minigrad import Tensor, jit

    x = Tensor(x0)
    wt = [Tensor(w, requires_grad=True) for w in ws]
    bt = [Tensor(b, requires_grad=True) for b in bs]

    def forward():
        h = x
        for w, b in zip(wt, bt):
            h = (h * w + b).tanh()
        return h.sum()

    fn = jit.jit(forward) if use_jit else forward

    def step():
        for p in wt + bt:
            p.grad = None
        loss = fn()
        loss.backward()
        return loss

    return step


# --- mlp -----------------------------------------------------------------------------------
def _fused_mlp():
    """The benchmark's MLP with its layers' ReLUs fused, the same weights as the others,
    an SGD optimiser, and the loss as a function of (x, y)."""
    from mlp import LR, init_weights

    import minigrad.nn.functional as F
    from minigrad import nn, optim

    model = nn.Sequential(nn.Linear(784, 256, activation="relu"),
                          nn.Linear(256, 128, activation="relu"), nn.Linear(128, 10))
    for p, w in zip(model.parameters(), init_weights()):
        p.data[...] = w
    opt = optim.SGD(model.parameters(), lr=LR)
    return opt, (lambda x, y: F.cross_entropy(model(x), y))


def jit_mlp_step_fn():
    from minigrad import Tensor, jit

    opt, loss_of = _fused_mlp()
    loss_fn = jit.jit(loss_of)

    def step(x, y):
        loss = loss_fn(Tensor(x), Tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def jit_train_step_fn():
    """The same step as one ``jit.train_step``: forward, backward and SGD, no graph."""
    from minigrad import Tensor, jit

    opt, loss_of = _fused_mlp()
    train = jit.train_step(loss_of, opt)

    def step(x, y):
        return train(Tensor(x), Tensor(y)).item()

    return step


def mlp_worker(impl, reps):
    from mlp import BATCH, WARMUP, batches, make_data, minigrad_step_fn, numpy_step_fn

    step = {"numpy": numpy_step_fn, "minigrad": minigrad_step_fn,
            "jit": jit_mlp_step_fn, "jit-step": jit_train_step_fn}[impl]()
    Xw, yw = make_data(WARMUP * BATCH, seed=2)
    first = None
    for x, t in batches(Xw, yw):
        t0 = timer()
        step(x, t)
        first = first if first is not None else timer() - t0
    X, y = make_data(reps * BATCH)
    times = []
    for x, t in batches(X, y):
        t0 = timer()
        step(x, t)
        times.append(timer() - t0)
    return {"mlp": median(times), "mlp:first": first}


def paired_worker(case: str, blocks: int) -> dict:
    """numpy, eager minigrad and jit in this one process, in turn (``_common.paired``)."""
    if case == "mlp":
        from mlp import minigrad_step_fn, numpy_step_fn, paired_steps

        return paired_steps({"numpy": numpy_step_fn, "minigrad": minigrad_step_fn,
                             "jit": jit_mlp_step_fn, "jit-step": jit_train_step_fn}, blocks)
    data = _tiny_data()
    return paired({"numpy": numpy_tiny(*data), "minigrad": minigrad_tiny(*data, False),
                   "jit": minigrad_tiny(*data, True)}, "numpy", blocks)


def worker(impl: str, case: str, reps: int) -> dict:
    if impl == "paired":
        return paired_worker(case, reps)
    if case == "mlp":
        return mlp_worker(impl, reps)
    from minigrad import jit

    if case == "chain_4M":
        data = _chain_data()
        if impl == "numpy":
            step = numpy_chain(*data)
        elif impl == "minigrad":
            step = minigrad_chain(*data, chain)
        else:
            if impl == "jit-1thread":
                from minigrad.jit import writers

                writers.THREADS[0] = 1
            step = minigrad_chain(*data, jit.jit(chain, backend="numexpr"
                                                 if impl == "jit-numexpr" else None))
        inner = 1
    else:
        data = _tiny_data()
        step = numpy_tiny(*data) if impl == "numpy" else minigrad_tiny(*data, impl == "jit")
        inner = 20
    gc.collect()
    t0 = timer()
    step()  # the first call: for jit, trace + passes + compile + run
    first = timer() - t0
    times = []
    for _ in range(reps):
        t0 = timer()
        for _ in range(inner):
            step()
        times.append((timer() - t0) / inner)
    return {case: median(times), f"{case}:first": first}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=at_least(1), default=3, help="processes per implementation")
    ap.add_argument("--reps", type=at_least(3), default=20, help="timed calls per process")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="BLAS threads (default: one per core, what a user gets)")
    ap.add_argument("--which", default="all", choices=["all", *CASES])
    ap.add_argument("--case")
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.case, args.reps)))
        return
    pin_threads(args.threads)
    print(machine_line(args.threads))
    from minigrad.jit import numexpr_module

    ne = numexpr_module()
    print(f"numexpr: {ne.__version__ + f' ({ne.nthreads} threads)' if ne else 'not installed'}")
    targets = {"chain_4M": "jit >= 2x faster than minigrad, and faster than numpy",
               "mlp": "jit <= 1.0x numpy", "tiny": "jit <= 1.2x numpy"}
    for case in CASES if args.which == "all" else (args.which,):
        impls = IMPLS[case]
        if numexpr_module() is None:
            impls = tuple(i for i in impls if i != "jit-numexpr")
        reps = args.reps if case != "tiny" else max(args.reps, 40)
        res = interleave(__file__, list(impls), ["--case", case, "--reps", str(reps)],
                         args.repeats)
        med = {i: median([r[case] for r in res[i]]) for i in impls}
        first = {i: median([r[f"{case}:first"] for r in res[i]]) for i in impls}
        print(f"\n{case}: forward + backward, median of {args.repeats} processes")
        for i in impls:
            print(f"  {i:<10}{med[i] * 1e3:10.3f} ms  {med[i] / med['numpy']:6.2f}x numpy  "
                  f"{med['minigrad'] / med[i]:6.2f}x faster than minigrad  "
                  f"(first call {first[i] * 1e3:.1f} ms)")
        print(f"  target: {targets[case]}; jit's first call (tracing, passes, compiling) "
              f"= {first['jit'] / med['jit']:.1f} cached calls")
        if case in PAIRED:
            blocks = max(args.reps, PAIRED[case])
            print(f"  paired: in one process, in turn, {blocks} blocks, 1 BLAS thread (the "
                  "figure to trust on a shared machine; _common.paired)")
            result = run_worker(__file__, "paired", ["--case", case, "--reps", str(blocks)],
                                ONE_THREAD)
            print("\n".join(paired_lines(result, "numpy")))


if __name__ == "__main__":
    main()
