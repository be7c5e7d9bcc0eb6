"""Tensor engine overhead: minigrad vs the bare numpy calls doing the same arithmetic.

Two questions, each answered by forward + backward timings:

* tiny ops (4x4): how much Python does minigrad add per graph node?  A chain
  of steps ``h = tanh(h * w + b)`` (elementwise) and ``h = tanh(h @ W + b)``
  (matmul with a broadcast bias) against hand-written numpy that computes the
  same forward values and the same gradients.  Target: <= 2.5x numpy.
* large ops: is the overhead gone when the arithmetic dominates?  Each op
  alone, forward + backward, against the bare numpy calls: a 1000x1000
  matmul, and on 4M float32 elements ``x * y``, ``tanh``, ``sum`` and a
  broadcast ``X * b`` (1000x4000 by 4000, so backward sums over rows).
  Target: <= 1.05x numpy.  One more row chains three of them,
  ``tanh(x * y).sum()``: there the graph keeps ``x * y`` until it dies (a node
  is its value, for the renderers), which numpy frees at once, and that one
  array is what glibc's heap trimming turns into page faults (TUNED_MALLOC).

Each implementation runs in its own process, alternating, and we report
medians (see _common.py).  If PyTorch is installed it is timed too, for
reference (never required).  The tiny chains also run on
``_lean_tensor.py``, the leanest Python engine we could write (four slots, no
checks, no metadata): the floor for any engine that builds a node per op.
The large cases count page faults per step, which is where the chained
case loses its time with glibc's default heap trimming (see TUNED_MALLOC).

    python benchmarks/tensor_ops.py [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import gc
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
    paired,
    paired_lines,
    pin_threads,
    run_worker,
    timer,
    with_torch,
)

STEPS = 50  # steps per tiny chain: 3 nodes each
TINY = ("elementwise_chain", "matmul_chain")
LARGE = ("matmul_1000", "mul_4M", "tanh_4M", "sum_4M", "mul_rows_4M", "chain_4M")


def _time(fn, reps, inner=1):
    fn()  # warm up
    times = []
    for _ in range(reps):
        t0 = timer()
        for _ in range(inner):
            fn()
        times.append((timer() - t0) / inner)
    return median(times)


# --- the workloads, one function per (implementation, case) ----------------------------
def _data(np, seed=0):
    rng = np.random.default_rng(seed)
    f = np.float32
    small = {
        "x": rng.standard_normal((4, 4)).astype(f) * 0.5,
        "w": [rng.standard_normal((4, 4)).astype(f) * 0.5 for _ in range(STEPS)],
        "b": [rng.standard_normal((4, 4)).astype(f) * 0.1 for _ in range(STEPS)],
        "bv": [rng.standard_normal(4).astype(f) * 0.1 for _ in range(STEPS)],
    }
    n, m = 1000, 4_000_000
    big = {
        "A": rng.standard_normal((n, n)).astype(f),
        "B": rng.standard_normal((n, n)).astype(f),
        "G": rng.standard_normal((n, n)).astype(f),
        "x": rng.standard_normal(m).astype(f),
        "y": rng.standard_normal(m).astype(f),
        "g": rng.standard_normal(m).astype(f),  # an upstream gradient for one op
        "b": rng.standard_normal(m // n).astype(f),  # a row vector for X (n, m/n)
    }
    return small, big


def numpy_tanh_chain(np, x0, ws, bs):
    """The tiny elementwise chain ``h = tanh(h·w + b)``, forward and backward, by hand in
    numpy: the loss, the gradients of the ws and bs, and that of x0 (benchmarks/jit.py
    times the same chain)."""
    hs = [x0]
    h = x0
    for w, b in zip(ws, bs):
        h = np.tanh(h * w + b)
        hs.append(h)
    loss = h.sum()
    g = np.ones_like(h)
    gws, gbs = [], []
    for i in range(len(ws) - 1, -1, -1):
        out = hs[i + 1]
        g = g * (1 - out * out)
        gbs.append(g)
        gws.append(g * hs[i])
        g = g * ws[i]
    return loss, gws, gbs, g


def numpy_cases(np):
    small, big = _data(np)
    x0, ws, bs, bvs = small["x"], small["w"], small["b"], small["bv"]

    def elementwise_chain():
        return numpy_tanh_chain(np, x0, ws, bs)

    def matmul_chain():
        hs = [x0]
        h = x0
        for w, b in zip(ws, bvs):
            h = np.tanh(h @ w + b)
            hs.append(h)
        loss = h.sum()
        g = np.ones_like(h)
        gws, gbs = [], []
        for i in range(STEPS - 1, -1, -1):
            out = hs[i + 1]
            g = g * (1 - out * out)
            gbs.append(g.sum(axis=0))
            gws.append(hs[i].T @ g)
            g = g @ ws[i].T
        return loss, gws, gbs, g

    A, B, G, x, y, g = (big[k] for k in "ABGxyg")
    X, b = x.reshape(1000, -1), big["b"]
    gX = g.reshape(X.shape)
    grads = {}  # like .grad: the previous step's gradients live until replaced

    # Each returns what it computed forward; the gradients stay in ``grads``.
    def matmul_big():
        grads.clear()
        C = A @ B
        grads["A"], grads["B"] = G @ B.T, A.T @ G
        return C

    def mul_big():
        grads.clear()
        z = x * y
        grads["x"], grads["y"] = g * y, g * x
        return z

    def tanh_big():
        grads.clear()
        t = np.tanh(x)
        grads["x"] = g * (1 - t * t)
        return t

    def sum_big():
        grads.clear()
        s = x.sum()
        grads["x"] = np.full_like(x, 1)  # a leaf's .grad is a real array, as in PyTorch
        return s

    def mul_rows_big():
        grads.clear()
        z = X * b
        grads["X"], grads["b"] = gX * b, (gX * X).sum(axis=0)
        return z

    def chain_big():
        grads.clear()
        t = np.tanh(x * y)
        s = t.sum()
        d = np.broadcast_to(np.ones((), dtype=t.dtype), t.shape)
        d = d * (1 - t * t)
        grads["x"], grads["y"] = d * y, d * x
        return s

    return {"elementwise_chain": elementwise_chain, "matmul_chain": matmul_chain,
            **_large(matmul_big, mul_big, tanh_big, sum_big, mul_rows_big, chain_big)}


def _large(matmul, mul, tanh, total, mul_rows, chain):
    """The large cases by name (LARGE), in the order the tables print them."""
    return dict(zip(LARGE, (matmul, mul, tanh, total, mul_rows, chain)))


def _tiny_chains(x0, ws, bs, bvs):
    """The two tiny chains, for any engine whose tensors have ``.grad``, ``* + @``,
    ``tanh``, ``sum`` and ``backward`` (minigrad, the lean floor, PyTorch)."""
    resettable = [x0] + ws + bs + bvs

    def zero():
        for p in resettable:
            p.grad = None

    def elementwise_chain():
        zero()
        h = x0
        for w, b in zip(ws, bs):
            h = (h * w + b).tanh()
        loss = h.sum()
        loss.backward()
        return loss

    def matmul_chain():
        zero()
        h = x0
        for w, b in zip(ws, bvs):
            h = (h @ w + b).tanh()
        loss = h.sum()
        loss.backward()
        return loss

    return {"elementwise_chain": elementwise_chain, "matmul_chain": matmul_chain}


def minigrad_cases(np):
    from minigrad import Tensor

    small, big = _data(np)
    x0 = Tensor(small["x"])
    ws = [Tensor(w, requires_grad=True) for w in small["w"]]
    bs = [Tensor(b, requires_grad=True) for b in small["b"]]
    bvs = [Tensor(b, requires_grad=True) for b in small["bv"]]
    cases = _tiny_chains(x0, ws, bs, bvs)

    A = Tensor(big["A"], requires_grad=True)
    B = Tensor(big["B"], requires_grad=True)
    G, g = big["G"], big["g"]
    x = Tensor(big["x"], requires_grad=True)
    y = Tensor(big["y"], requires_grad=True)
    X = Tensor(big["x"].reshape(1000, -1), requires_grad=True)
    b = Tensor(big["b"], requires_grad=True)
    return {**cases, **_engine_large(A, B, G, x, y, g, X, b)}


def _engine_large(A, B, G, x, y, g, X, b):
    """The large cases for an autograd engine (minigrad or PyTorch) on its leaves."""
    gX = g.reshape(X.shape)
    return _large(
        _step((A, B), lambda: A @ B, G), _step((x, y), lambda: x * y, g),
        _step((x,), lambda: x.tanh(), g), _step((x,), lambda: x.sum()),
        _step((X, b), lambda: X * b, gX), _step((x, y), lambda: (x * y).tanh().sum()))


def _step(leaves, forward, upstream=None):
    """One timed call for an autograd engine (minigrad or PyTorch): clear the leaves'
    gradients, run ``forward``, backpropagate ``upstream`` (1 for a scalar).  The graph
    is freed on return, as numpy's temporaries are."""
    def step():
        for t in leaves:
            t.grad = None
        out = forward()
        out.backward(upstream)
        return out.data

    return step


def lean_cases(np):
    """The tiny chains on the floor engine (it has no large cases: same numpy calls)."""
    from _lean_tensor import Tensor

    small, _ = _data(np)
    x0 = Tensor(small["x"])
    ws = [Tensor(w) for w in small["w"]]
    bs = [Tensor(b) for b in small["b"]]
    bvs = [Tensor(b) for b in small["bv"]]
    return _tiny_chains(x0, ws, bs, bvs)


def torch_cases(np):
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    small, big = _data(np)
    x0 = torch.from_numpy(small["x"])
    ws = [torch.from_numpy(w).requires_grad_() for w in small["w"]]
    bs = [torch.from_numpy(b).requires_grad_() for b in small["b"]]
    bvs = [torch.from_numpy(b).requires_grad_() for b in small["bv"]]
    cases = _tiny_chains(x0, ws, bs, bvs)

    A = torch.from_numpy(big["A"]).requires_grad_()
    B = torch.from_numpy(big["B"]).requires_grad_()
    G, g = torch.from_numpy(big["G"]), torch.from_numpy(big["g"])
    x = torch.from_numpy(big["x"]).requires_grad_()
    y = torch.from_numpy(big["y"]).requires_grad_()
    X = torch.from_numpy(big["x"].reshape(1000, -1).copy()).requires_grad_()
    b = torch.from_numpy(big["b"]).requires_grad_()
    return {**cases, **_engine_large(A, B, G, x, y, g, X, b)}


def worker(impl: str, reps: int, which: str) -> dict:
    import numpy as np

    if impl == "paired":
        return paired_tiny(np, reps, which)
    cases = {"numpy": numpy_cases, "minigrad": minigrad_cases, "torch": torch_cases,
             "lean": lean_cases}[impl](np)
    gc.collect()
    out = {}
    for name, fn in cases.items():
        tiny = name in TINY
        if which not in ("all", name, "tiny" if tiny else "large"):
            continue
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        out[name] = _time(fn, reps if tiny else max(5, reps // 5), inner=20 if tiny else 1)
        if not tiny:  # page faults per timed call (the warm-up call included, as one more)
            calls = max(5, reps // 5) + 1
            out[name + ":faults"] = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                                     - faults) / calls
    return out


def paired_tiny(np, blocks: int, which: str) -> dict:
    """The tiny chains of numpy, minigrad and the lean floor in this one process, in turn
    (``_common.paired``): per case, each one's median ratio to numpy."""
    impls = {"numpy": numpy_cases(np), "minigrad": minigrad_cases(np), "lean": lean_cases(np)}
    return {case: paired({i: cases[case] for i, cases in impls.items()}, "numpy", blocks)
            for case in TINY if which in ("all", "tiny", case)}


# glibc's trim threshold (see _common.TUNED_MALLOC) is twice the largest mmapped block
# freed so far: here _data's float64 draws, so about 61 MiB.  In chain_4M the graph
# holds x * y (16 MB) beyond what numpy holds, which lifts the free memory at the top
# of the heap past that line: minigrad (and PyTorch) pay ~2000 page faults per step
# that the numpy loop, just under it, does not.  Draw the data in float32 and the
# threshold falls to ~32 MiB: numpy pays them too.  The second table runs every
# implementation with the heap kept.
# The other regime, fixed: 4M float32 arrays (16 MB) still come from the heap, but
# more than 32 MiB free at its top goes back to the OS, as after a process whose
# largest freed block was one such array.
LOW_TRIM_MALLOC = {"MALLOC_TRIM_THRESHOLD_": str(1 << 25), "MALLOC_MMAP_THRESHOLD_": str(1 << 24)}


def _table(res, impls, cases, nodes=None):
    cases = [c for c in cases if not c.endswith(":faults")]
    med = {i: {c: median([r[c] for r in res[i]]) for c in cases} for i in impls}
    others = [i for i in ("lean", "torch") if i in impls]
    head = f"{'case':<20}{'numpy':>12}{'minigrad':>12}{'ratio':>8}"
    for i in others:
        head += f"{i:>12}{'ratio':>8}"
    print(head)
    for c in cases:
        n, m = med["numpy"][c], med["minigrad"][c]
        line = f"{c:<20}{n * 1e3:>10.3f}ms{m * 1e3:>10.3f}ms{m / n:>7.2f}x"
        for i in others:
            t = med[i][c]
            line += f"{t * 1e3:>10.3f}ms{t / n:>7.2f}x"
        print(line)
    faults = [c for c in cases if c + ":faults" in res["numpy"][0]]
    for c in faults:
        counts = ", ".join(f"{i} {median([r[c + ':faults'] for r in res[i]]):.0f}"
                           for i in impls)
        print(f"  {c}: page faults per call: {counts}")
    for c, k in (nodes or {}).items():
        extra = (med["minigrad"][c] - med["numpy"][c]) / k
        print(f"  {c}: {k} nodes; minigrad adds {extra * 1e6:.2f} us per node (forward + "
              f"backward) to numpy's {med['numpy'][c] / k * 1e6:.2f} us")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=at_least(1), default=3, help="processes per implementation")
    ap.add_argument("--reps", type=at_least(1), default=40,
                    help="timed repetitions inside a process")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads")
    ap.add_argument("--which", default="all", choices=["all", "tiny", "large", *TINY, *LARGE])
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.reps, args.which)))
        return
    pin_threads(args.threads)
    impls = with_torch(["numpy", "minigrad"])
    print(machine_line(args.threads))
    nodes = {"elementwise_chain": 3 * STEPS + 1, "matmul_chain": 3 * STEPS + 1}
    if args.which in ("all", "tiny", *TINY):
        print(f"\ntiny ops: chains of {STEPS} steps on 4x4 float32 (forward + backward)")
        tiny_impls = impls[:2] + ["lean"] + impls[2:]
        which = "tiny" if args.which == "all" else args.which
        res = interleave(__file__, tiny_impls, ["--reps", str(args.reps), "--which", which],
                         args.repeats)
        _table(res, tiny_impls, list(res["numpy"][0]),
               {c: k for c, k in nodes.items() if c in res["numpy"][0]})
        print("  target: <= 2.5x numpy; lean = benchmarks/_lean_tensor.py, the floor for a "
              "Python engine")
        blocks = max(args.reps, 100)
        print(f"\npaired: the same chains in one process, in turn, {blocks} blocks, 1 BLAS "
              "thread (the figure to trust on a shared machine; _common.paired)")
        for case, result in run_worker(__file__, "paired", [
                "--reps", str(blocks), "--which", which], ONE_THREAD).items():
            print(f"{case}")
            print("\n".join(paired_lines(result, "numpy")))
    large = LARGE if args.which in ("all", "large") else [c for c in LARGE if c == args.which]
    if large:
        for title, env, cases in (
                ("default glibc malloc", None, large),
                ("heap kept: MALLOC_TRIM_THRESHOLD_ raised, for every implementation",
                 TUNED_MALLOC, large),
                ("heap trimmed above 32 MiB, for every implementation", LOW_TRIM_MALLOC,
                 [c for c in large if c == "chain_4M"])):
            if not cases:
                continue
            print(f"\nlarge ops, float32, forward + backward ({title})")
            # One process per case: what a case leaves in the heap would change how the
            # next one pays for its memory (see TUNED_MALLOC).
            res = {i: [{} for _ in range(args.repeats)] for i in impls}
            for case in cases:
                part = interleave(__file__, impls, ["--reps", str(args.reps), "--which", case],
                                  args.repeats, env=env)
                for i in impls:
                    for merged, run in zip(res[i], part[i]):
                        merged.update(run)
            _table(res, impls, list(res["numpy"][0]))
        print("  target: <= 1.05x numpy for each op alone; chain_4M = tanh(x * y).sum(), "
              "where the graph keeps x * y alive until it dies")


if __name__ == "__main__":
    main()
