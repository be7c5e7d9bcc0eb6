"""What watching a run live costs: a digits MLP epoch with and without ``viz.TrainingView``.

The workload is lesson 9's: an MLP 64-128-10 with ReLU, Adam (lr 1e-2), batch 32,
shuffled, over the 1,149 training digits (36 steps an epoch), trained by
``minigrad.fitting.fit``. A live run passes ``live=`` one ``TrainingView(model, every=10,
data=...)`` kept across its epochs, as in a real run (its steps numbered on from epoch to
epoch), with a display function that receives each frame's HTML: a drawn frame is fully
built (histograms, panels, the graph recoloured), everything a notebook pays except the
browser's own drawing, which happens in another process.

Five runs train one model, one optimiser and one loader (an epoch costs the same
whatever the weights, so the runs differ in the view alone; a view's numbers at the
start of a block compare weights the other runs moved, which costs the same):
``plain`` (no view), ``hook only`` (``fit`` reports every step to an object that does
nothing: the harness's own cost, and the noise floor, which should read 1.00; each view's
line also gives its ratio to it, the view's cost with the harness's taken out), ``live``
(the default view: samples every 10 steps, draws at most every 0.25 s), ``samples only``
(draws once: the cost of recording) and ``every frame`` (``interval=0``: draws at every
sample, 4 frames an epoch; the difference from ``samples only`` is what drawing costs).
They share one worker process and take turns in blocks of ``--block`` consecutive epochs
(the order rotating from round to round), so a slow phase of the shared machine slows a
whole round. By default a block is one epoch (7 ms) and there are 300 rounds: each
round's ratio compares epochs run milliseconds apart, and the median is of 299 of them.
With blocks of 10 epochs and 25 rounds (this benchmark's default until then) the
medians of runs of the same code on a quiet machine ranged over 1.01-1.13; with 300
rounds of one epoch, over 1.066-1.076 (4 runs, 2 BLAS threads and 1).

Each live run keeps a clock of its own, as in a real run: the 0.25 s
throttle is wall time, and the time the other runs take between two of its blocks is
taken off its clock (otherwise every block would start past its throttle and draw a
frame: one every 10 epochs, where a run alone draws one every 0.25 s, some 20-40 epochs
here). We report the median epoch time of each run and the median of the rounds' ratios
to plain. ``--separate`` gives each run a model of its own from the same seed, as this
benchmark did at first: in one process we timed every step, and the steps of a run whose
view did nothing at them were 7% slower than another run's (in another process, equal),
so two models' epochs can differ by more than the view costs. The first round also lays
the graph out (graphviz's ``dot``, once per view): the medians leave it out. Target:
live/plain <= 1.10 at every 10 steps. One worker runs at the machine's default BLAS
threads, one at a single thread.

    python benchmarks/live_view.py [--rounds 300] [--block 1] [--every 10] [--quick]
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
    view closed only at the end of the run (as ``fit(..., epochs=N, live=view)`` does).
    It also adds up the time spent inside the view's ``update`` (``inside``): on a busy
    machine the epochs' ratio swings by more than the view costs, while this tally, taken
    around the view's own calls, does not."""

    def __init__(self, view):
        self.view, self.offset, self.last, self.inside = view, 0, -1, 0.0
        self.paused_at = None

    def pause(self):
        """The other runs' turn starts: this run's clock stops."""
        self.paused_at = time.perf_counter()

    def resume(self):
        """This run's turn: the time it was paused is taken off the throttle's clock (the
        view's time of its last frame moves on by as much), as if no other run had run."""
        if self.paused_at is not None and hasattr(self.view, "_last_draw"):
            self.view._last_draw += time.perf_counter() - self.paused_at
        self.paused_at = None

    def update(self, step, **metrics):
        started = time.perf_counter()
        self.last = self.offset + step
        self.view.update(self.last, **metrics)
        self.inside += time.perf_counter() - started

    def close(self):
        self.offset = self.last + 1


class Idle:
    """A view that does nothing: what ``fit``'s per-step report costs by itself."""

    frames = 0

    def update(self, step, **metrics):
        return False

    def close(self):
        pass


def worker(rounds: int, block: int, every: int, samples: int | None,
           shared: bool = True) -> dict:
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

    def train_state():
        g = np.random.default_rng(0)
        model = nn.Sequential(nn.Linear(64, 128, rng=g), nn.ReLU(), nn.Linear(128, 10, rng=g))
        loader = DataLoader((X_train, y_train), batch_size=32, shuffle=True, seed=0)
        return model, Adam(model.parameters(), lr=1e-2), loader

    shared_state = train_state() if shared else None

    def setup(interval=None):
        model, opt, loader = shared_state or train_state()
        view = None
        if interval == "hook":
            view = Continued(Idle())
        elif interval is not None:
            frames = []
            kwargs = {} if interval == "default" else {"interval": interval}
            view = viz.TrainingView(model, every=every, data=(X_train, y_train),
                                    display=frames.append, **kwargs)
            view = Continued(view)
        return model, opt, loader, view

    runs = {"plain": setup(), "hook only": setup("hook"), "live": setup("default"),
            "samples only": setup(1e9), "every frame": setup(0.0)}
    times = {name: [] for name in runs}  # mean epoch time of each block
    names = list(runs)
    inside = {name: [] for name in names[1:]}  # the view's own time / the rest of the block
    for k in range(rounds):
        for name in names[k % len(names):] + names[:k % len(names)]:
            model, opt, loader, view = runs[name]
            if view is not None:
                view.resume()
            started = time.perf_counter()
            before = view.inside if view is not None else 0.0
            for _ in range(block):
                fit(model, opt, F.cross_entropy, loader, 1, progress=False, live=view)
            elapsed = time.perf_counter() - started
            times[name].append(elapsed / block)
            if view is not None:
                inside[name].append((view.inside - before) / (elapsed - view.inside + before))
                view.pause()
    frames = {name: getattr(runs[name][3].view, "frames", 0) for name in names[1:]}
    return {"times": times, "steps": len(runs["plain"][2]), "frames": frames, "block": block,
            "inside": inside, "shared": shared}


def _ratios(a: list, b: list) -> list:
    """The rounds' ratios a/b, round 1 (the graph's layout) left out."""
    ratios = [x / y for x, y in zip(a, b)]
    return sorted(ratios[1:] or ratios)


def report(label: str, r: dict) -> list[str]:
    t = r["times"]
    models = "one model for all runs" if r.get("shared", True) else "a model each"
    lines = [f"{label}: {r['steps']} steps an epoch, blocks of {r['block']} epochs, {models}; "
             f"median epoch (round 1 left out): "
             + ", ".join(f"{name} {1e3 * median(ts[1:] or ts):.1f} ms" for name, ts in t.items())]
    for name in ("hook only", "live", "samples only", "every frame"):
        ratios = [a / b for a, b in zip(t[name], t["plain"])]
        rest = sorted(ratios[1:] or ratios)
        lines.append(f"  {name}/plain: {median(rest):.3f}x (q {rest[len(rest) // 4]:.3f}-"
                     f"{rest[(3 * len(rest)) // 4]:.3f}; {r['frames'][name]} frames drawn in "
                     f"{len(ratios) * r['block']} epochs; round 1 with the graph's layout "
                     f"{ratios[0]:.2f}x); time inside the view: "
                     f"+{100 * median(r['inside'][name][1:] or r['inside'][name]):.1f}%"
                     + ("" if name == "hook only" else
                        f"; over hook only {median(_ratios(t[name], t['hook only'])):.3f}x"))
    frames_per_epoch = r["frames"]["every frame"] / (len(t["plain"]) * r["block"])
    per_frame = (median(t["every frame"][1:]) - median(t["samples only"][1:])) / frames_per_epoch
    lines.append(f"  a frame costs {1e3 * per_frame:.1f} ms: at the 0.25 s throttle, "
                 f"{100 * per_frame / 0.25:.1f}% of a run's time")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=300, help="blocks of each run")
    ap.add_argument("--block", type=int, default=1, help="consecutive epochs a block")
    ap.add_argument("--every", type=int, default=10, help="steps between frames")
    ap.add_argument("--quick", action="store_true", help="3 rounds of 1 epoch, 320 samples")
    ap.add_argument("--separate", action="store_true",
                    help="a model each (the old design: see the module docstring)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--args", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    samples = 320 if args.quick else None
    rounds, block = (3, 1) if args.quick else (args.rounds, args.block)
    if args.worker:
        print(json.dumps(worker(rounds, block, args.every, samples, not args.separate)))
        return 0
    flags = ["--rounds", str(rounds), "--block", str(block), "--every", str(args.every)] + (
        ["--quick"] if args.quick else []) + (["--separate"] if args.separate else [])
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
