"""Memory over a long training run: is each step's graph released?

Trains for 1,000 steps (the MLP 784-256-128-10 of benchmarks/mlp.py, batch 128,
SGD; or ``--model cnn``: the small CNN of benchmarks/cnn.py) and samples the
process's resident set size (RSS) and the number of live Tensor objects.  If
graphs leaked (a node kept alive by a cycle, a cache, a recorder), RSS and the
tensor count would grow with every step; with graphs freed by reference
counting at the end of each step both stay flat after warm-up.

Prints RSS at steps 100 and 1000, the peak RSS, and the verdict (growth
between steps 100 and 1000 below 2 MB and no growth in live tensors).

    python benchmarks/memory.py [--steps 1000] [--model mlp|cnn]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import weakref

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import at_least, machine_line, pin_threads  # noqa: E402

pin_threads(1)


def rss_bytes() -> int:
    """Current resident set size (Linux /proc; falls back to the peak elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return peak_rss_bytes()


def peak_rss_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def live_tensors() -> int:
    from minigrad import Tensor

    return sum(1 for o in gc.get_objects() if isinstance(o, Tensor))


def build(model_kind):
    import numpy as np

    import minigrad.nn.functional as F
    from minigrad import Tensor, nn, optim

    rng = np.random.default_rng(0)
    if model_kind == "cnn":
        model = nn.Sequential(nn.Conv2d(1, 8, 3, seed=0), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Flatten(), nn.Linear(8 * 13 * 13, 10, seed=1))
        batches = [(rng.random((64, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 64))
                   for _ in range(20)]
    else:
        model = nn.Sequential(nn.Linear(784, 256, seed=0), nn.ReLU(), nn.Linear(256, 128, seed=1),
                              nn.ReLU(), nn.Linear(128, 10, seed=2))
        batches = [(rng.random((128, 784), dtype=np.float32), rng.integers(0, 10, 128))
                   for _ in range(20)]
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    probe = {}

    def step(k):
        x, y = batches[k % len(batches)]
        loss = F.cross_entropy(model(Tensor(x)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        probe["last"] = weakref.ref(loss)  # must be dead once the next step has run
        return loss.item()

    return step, probe


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=at_least(200, "growth is measured from step 100"), default=1000)
    ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    args = ap.parse_args()
    step, probe = build(args.model)
    marks = sorted({min(10, args.steps), min(100, args.steps), args.steps // 2, args.steps})
    samples = {}
    previous = None
    leaked_graph = False
    for k in range(1, args.steps + 1):
        step(k)
        if previous is not None and previous() is not None:
            leaked_graph = True  # the previous step's loss (and so its graph) is still alive
        previous = probe["last"]
        if k in marks:
            samples[k] = (rss_bytes(), live_tensors())
    print(machine_line(1))
    print(f"{args.model}: {args.steps} training steps (forward, backward, SGD momentum)")
    for k, (rss, tensors) in samples.items():
        print(f"  step {k:>5}: RSS {rss / 2**20:7.1f} MiB, live tensors {tensors}")
    peak = peak_rss_bytes()
    print(f"  peak RSS {peak / 2**20:.1f} MiB")
    first = samples[min(100, args.steps)]
    last = samples[args.steps]
    growth = (last[0] - first[0]) / 2**20
    flat = growth < 2.0 and last[1] <= first[1] and not leaked_graph
    print(f"growth from step {min(100, args.steps)} to {args.steps}: {growth:+.2f} MiB, "
          f"{last[1] - first[1]:+d} tensors; previous step's graph freed every step: "
          f"{not leaked_graph}")
    print("memory is flat: " + ("yes" if flat else "NO"))
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
