"""What watching a run live costs: a digits MLP epoch with and without ``viz.TrainingView``.

The workload is lesson 9's: an MLP 64-128-10 with ReLU, Adam (lr 1e-2), batch 32,
shuffled, over the 1,149 training digits (36 steps an epoch), trained by
``minigrad.fitting.fit``. A live run passes ``live=`` one ``TrainingView(model, every=10,
data=...)`` kept across its epochs, as in a real run (its steps numbered on from epoch to
epoch), with a display function that receives each frame's HTML: a drawn frame is fully
built (histograms, panels, the graph recoloured), everything a notebook pays except the
browser's own drawing, which happens in another process.

Three runs, each its own model from the same seed: ``plain`` (no view), ``live`` (the
default view: samples every 10 steps, draws at most every 0.25 s) and ``every frame``
(``interval=0``: draws at every sample, 4 frames an epoch). They share one worker process,
one epoch each in turn, the order rotating, so a slow phase of the shared machine slows
all of a round; we report median epoch times and the median of the rounds' ratios to
plain. The first round also lays the graph out (graphviz's ``dot``, once per view): the
medians leave it out. Target: live/plain <= 1.10 at every 10 steps. One worker runs at the
machine's default BLAS threads, one at a single thread.

    python benchmarks/live_view.py [--pairs 15] [--every 10] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import ONE_THREAD, machine_line, median, run_worker  # noqa: E402


class Continued:
    """One view across several ``fit`` calls of one epoch: steps numbered on, and the
    view closed only at the end of the run (as ``fit(..., epochs=N, live=view)`` does)."""

    def __init__(self, view):
        self.view, self.offset, self.last = view, 0, -1

    def update(self, step, **metrics):
        self.last = self.offset + step
        self.view.update(self.last, **metrics)

    def close(self):
        self.offset = self.last + 1


def worker(pairs: int, every: int, samples: int | None) -> dict:
    import numpy as np

    import minigrad.nn.functional as F
    import viz
    from minigrad import nn
    from minigrad.data import DataLoader, load_digits, train_test_split
    from minigrad.fitting import fit
    from minigrad.optim import Adam

    X, y = load_digits()
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.36, seed=0)
    if samples:
        X_train, y_train = X_train[:samples], y_train[:samples]

    def setup(interval=None):
        g = np.random.default_rng(0)
        model = nn.Sequential(nn.Linear(64, 128, rng=g), nn.ReLU(), nn.Linear(128, 10, rng=g))
        loader = DataLoader((X_train, y_train), batch_size=32, shuffle=True, seed=0)
        view = None
        if interval is not None:
            frames = []
            kwargs = {} if interval == "default" else {"interval": interval}
            view = viz.TrainingView(model, every=every, data=(X_train, y_train),
                                    display=frames.append, **kwargs)
            view = Continued(view)
        return model, Adam(model.parameters(), lr=1e-2), loader, view

    runs = {"plain": setup(), "live": setup("default"), "every frame": setup(0.0)}
    times = {name: [] for name in runs}
    names = list(runs)
    for k in range(pairs):
        for name in names[k % 3:] + names[:k % 3]:
            model, opt, loader, view = runs[name]
            started = time.perf_counter()
            fit(model, opt, F.cross_entropy, loader, 1, progress=False, live=view)
            times[name].append(time.perf_counter() - started)
    frames = {name: runs[name][3].view.frames for name in ("live", "every frame")}
    return {"times": times, "steps": len(runs["plain"][2]), "frames": frames}


def report(label: str, r: dict) -> list[str]:
    t = r["times"]
    lines = [f"{label}: {r['steps']} steps an epoch; median epoch (round 1 left out): "
             + ", ".join(f"{name} {1e3 * median(ts[1:] or ts):.1f} ms" for name, ts in t.items())]
    for name in ("live", "every frame"):
        ratios = [a / b for a, b in zip(t[name], t["plain"])]
        rest = sorted(ratios[1:] or ratios)
        lines.append(f"  {name}/plain: {median(rest):.3f}x (q {rest[len(rest) // 4]:.3f}-"
                     f"{rest[(3 * len(rest)) // 4]:.3f}; {r['frames'][name]} frames drawn in "
                     f"{len(ratios)} epochs; round 1 with the graph's layout "
                     f"{ratios[0]:.2f}x)")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=15, help="epochs of each run")
    ap.add_argument("--every", type=int, default=10, help="steps between frames")
    ap.add_argument("--quick", action="store_true", help="3 pairs over 320 samples")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--args", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    samples = 320 if args.quick else None
    pairs = 3 if args.quick else args.pairs
    if args.worker:
        print(json.dumps(worker(pairs, args.every, samples)))
        return 0
    flags = ["--pairs", str(pairs), "--every", str(args.every)] + (["--quick"] if args.quick
                                                                    else [])
    default_threads = int(os.environ.get("OPENBLAS_NUM_THREADS", os.cpu_count() or 1))
    print(f"digits MLP 64-128-10, Adam, batch 32; TrainingView every {args.every} steps")
    for label, env, threads in (("default BLAS threads", None, default_threads),
                                ("1 BLAS thread", ONE_THREAD, 1)):
        print(machine_line(threads))
        for line in report(label, run_worker(__file__, "live", flags, env=env)):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
