"""Tensor engine overhead: minigrad vs the bare numpy calls doing the same arithmetic.

Two questions, each answered by forward + backward timings:

* tiny ops (4x4): how much Python does minigrad add per graph node?  A chain
  of steps ``h = tanh(h * w + b)`` (elementwise) and ``h = tanh(h @ W + b)``
  (matmul with a broadcast bias) against hand-written numpy that computes the
  same forward values and the same gradients.  Target: <= 2.5x numpy.
* large ops (1000x1000 matmul, elementwise on 4M float32 elements): is the
  overhead gone when the arithmetic dominates?  Target: <= 1.05x numpy.

Each implementation runs in its own process, alternating, and we report
medians (see _common.py).  If PyTorch is installed it is timed too, for
reference (never required).

    python benchmarks/tensor_ops.py [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import interleave, machine_line, median, pin_threads, timer  # noqa: E402

STEPS = 50  # steps per tiny chain: 3 nodes each


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
    n = 1000
    big = {
        "A": rng.standard_normal((n, n)).astype(f),
        "B": rng.standard_normal((n, n)).astype(f),
        "G": rng.standard_normal((n, n)).astype(f),
        "x": rng.standard_normal(4_000_000).astype(f),
        "y": rng.standard_normal(4_000_000).astype(f),
    }
    return small, big


def numpy_cases(np):
    small, big = _data(np)
    x0, ws, bs, bvs = small["x"], small["w"], small["b"], small["bv"]

    def elementwise_chain():
        hs = [x0]
        h = x0
        for w, b in zip(ws, bs):
            h = np.tanh(h * w + b)
            hs.append(h)
        loss = h.sum()
        g = np.ones_like(h)
        gws, gbs = [], []
        for i in range(STEPS - 1, -1, -1):
            out = hs[i + 1]
            g = g * (1 - out * out)
            gbs.append(g)
            gws.append(g * hs[i])
            g = g * ws[i]
        return loss, gws, gbs, g

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

    A, B, G, x, y = big["A"], big["B"], big["G"], big["x"], big["y"]

    def matmul_big():
        C = A @ B
        return C, G @ B.T, A.T @ G

    def elementwise_big():
        t = np.tanh(x * y)
        s = t.sum()
        g = np.broadcast_to(np.ones((), dtype=t.dtype), t.shape)
        g = g * (1 - t * t)
        return s, g * y, g * x

    return {"elementwise_chain": elementwise_chain, "matmul_chain": matmul_chain,
            "matmul_1000": matmul_big, "elementwise_4M": elementwise_big}


def minigrad_cases(np):
    from minigrad import Tensor

    small, big = _data(np)
    x0 = Tensor(small["x"])
    ws = [Tensor(w, requires_grad=True) for w in small["w"]]
    bs = [Tensor(b, requires_grad=True) for b in small["b"]]
    bvs = [Tensor(b, requires_grad=True) for b in small["bv"]]
    params = ws + bs + bvs

    def zero():
        for p in params:
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

    A = Tensor(big["A"], requires_grad=True)
    B = Tensor(big["B"], requires_grad=True)
    G = big["G"]
    x = Tensor(big["x"], requires_grad=True)
    y = Tensor(big["y"], requires_grad=True)

    def matmul_big():
        A.grad = B.grad = None
        C = A @ B
        C.backward(G)
        return C

    def elementwise_big():
        x.grad = y.grad = None
        s = (x * y).tanh().sum()
        s.backward()
        return s

    return {"elementwise_chain": elementwise_chain, "matmul_chain": matmul_chain,
            "matmul_1000": matmul_big, "elementwise_4M": elementwise_big}


def torch_cases(np):
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    small, big = _data(np)
    x0 = torch.from_numpy(small["x"])
    ws = [torch.from_numpy(w).requires_grad_() for w in small["w"]]
    bs = [torch.from_numpy(b).requires_grad_() for b in small["b"]]
    bvs = [torch.from_numpy(b).requires_grad_() for b in small["bv"]]
    params = ws + bs + bvs

    def zero():
        for p in params:
            p.grad = None

    def elementwise_chain():
        zero()
        h = x0
        for w, b in zip(ws, bs):
            h = (h * w + b).tanh()
        loss = h.sum()
        loss.backward()

    def matmul_chain():
        zero()
        h = x0
        for w, b in zip(ws, bvs):
            h = (h @ w + b).tanh()
        loss = h.sum()
        loss.backward()

    A = torch.from_numpy(big["A"]).requires_grad_()
    B = torch.from_numpy(big["B"]).requires_grad_()
    G = torch.from_numpy(big["G"])
    x = torch.from_numpy(big["x"]).requires_grad_()
    y = torch.from_numpy(big["y"]).requires_grad_()

    def matmul_big():
        A.grad = B.grad = None
        (A @ B).backward(G)

    def elementwise_big():
        x.grad = y.grad = None
        (x * y).tanh().sum().backward()

    return {"elementwise_chain": elementwise_chain, "matmul_chain": matmul_chain,
            "matmul_1000": matmul_big, "elementwise_4M": elementwise_big}


def worker(impl: str, reps: int) -> dict:
    import numpy as np

    cases = {"numpy": numpy_cases, "minigrad": minigrad_cases, "torch": torch_cases}[impl](np)
    gc.collect()
    out = {}
    for name, fn in cases.items():
        tiny = "chain" in name
        out[name] = _time(fn, reps if tiny else max(3, reps // 10), inner=20 if tiny else 1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="processes per implementation")
    ap.add_argument("--reps", type=int, default=40, help="timed repetitions inside a process")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads")
    ap.add_argument("--worker")
    args, _ = ap.parse_known_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.reps)))
        return
    pin_threads(args.threads)
    impls = ["numpy", "minigrad"]
    try:
        import torch  # noqa: F401

        impls.append("torch")
    except ImportError:
        pass
    res = interleave(__file__, impls, ["--reps", str(args.reps)], args.repeats)
    print(machine_line(args.threads))
    cases = list(res["numpy"][0])
    med = {i: {c: median([r[c] for r in res[i]]) for c in cases} for i in impls}
    nodes = {"elementwise_chain": 3 * STEPS + 1, "matmul_chain": 3 * STEPS + 1}
    head = f"{'case':<20}{'numpy':>12}{'minigrad':>12}{'ratio':>8}"
    if "torch" in impls:
        head += f"{'torch':>12}{'ratio':>8}"
    print(head)
    for c in cases:
        n, m = med["numpy"][c], med["minigrad"][c]
        line = f"{c:<20}{n * 1e3:>10.3f}ms{m * 1e3:>10.3f}ms{m / n:>7.2f}x"
        if "torch" in impls:
            t = med["torch"][c]
            line += f"{t * 1e3:>10.3f}ms{t / n:>7.2f}x"
        print(line)
    for c, k in nodes.items():
        extra = (med["minigrad"][c] - med["numpy"][c]) / k
        print(f"{c}: {k} nodes, minigrad adds {extra * 1e6:.2f} us per node "
              f"(forward + backward) over numpy")
    print("targets: tiny chains <= 2.5x numpy; 1000x1000 matmul and 4M elementwise <= 1.05x")


if __name__ == "__main__":
    main()
