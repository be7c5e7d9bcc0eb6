"""Checkpointing: saved memory against time, for a deep MLP checkpointed every k layers.

A 16-layer MLP (Linear 512→512 + ReLU, batch 128, float32) runs forward + backward
plainly, then with ``checkpoint_sequential`` cutting it into segments of *k*
layers (every segment but the last is recomputed in backward).  For each
setting this prints

* the peak of saved memory during backward (``minigrad.memory.ledger``), all of
  it and the activations alone (parameters not counted: they live all run long);
* the median time of a training step's forward + backward;
* whether the gradients are bit for bit those of the plain run;

each as a ratio against the plain run measured in the same session.  The
activations' peak should fall to about ``n/k + k`` layers' worth, lowest near
``k = √n`` (the √n rule), for about one more forward pass of time.  Every
setting runs in its own process, alternating, with the machine's default BLAS
threads and with one (see _common.py).

    python benchmarks/checkpoint.py [--layers 16] [--width 512] [--batch 128] [--ks 1,2,4,8]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import at_least, interleave, machine_line, median, spread_mark, timer  # noqa: E402

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def worker(setting: str, layers: int, width: int, batch: int, reps: int) -> dict:
    import numpy as np

    import minigrad
    from minigrad import nn
    from minigrad.memory import ledger

    minigrad.manual_seed(0)
    modules = []
    for _ in range(layers):
        modules += [nn.Linear(width, width), nn.ReLU()]
    model = nn.Sequential(*modules)
    x = minigrad.Tensor(np.random.default_rng(1).standard_normal((batch, width), np.float32))
    k = 0 if setting == "none" else int(setting[1:])

    def forward():
        if k == 0:
            return model(x).sum()
        return minigrad.checkpoint_sequential(model, layers // k, x).sum()

    def step():
        model.zero_grad()
        forward().backward()

    step()  # warm up
    times = []
    for _ in range(reps):
        t0 = timer()
        step()
        times.append(timer() - t0)
    digest = hashlib.sha256(b"".join(p.grad.tobytes() for p in model.parameters())).hexdigest()
    model.zero_grad()
    everything = ledger(forward())
    model.zero_grad()
    activations = ledger(forward(), ignore=model.parameters())
    return {"time": median(times), "peak": everything.peak, "acts": activations.peak,
            "grads": digest[:16]}


def table(results: dict, settings: list[str], layers: int) -> list[str]:
    from minigrad.memory import format_bytes

    base = {key: median([r[key] for r in results["none"]]) for key in ("time", "peak", "acts")}
    rows = [f"{'k':>5} {'segments':>8} {'activations':>12} {'ratio':>6} {'+weights*':>11} "
            f"{'ratio':>6} {'step ms':>8} {'ratio':>6}  same grads"]
    for s in settings:
        runs = results[s]
        t, peak, acts = (median([r[key] for r in runs]) for key in ("time", "peak", "acts"))
        k = "none" if s == "none" else s[1:]
        segments = "-" if s == "none" else str(layers // int(s[1:]))
        same = "yes" if runs[0]["grads"] == results["none"][0]["grads"] else "NO"
        rows.append(f"{k:>5} {segments:>8} {format_bytes(acts):>12} {acts / base['acts']:>6.2f} "
                    f"{format_bytes(peak):>11} {peak / base['peak']:>6.2f} {t * 1e3:>8.1f} "
                    f"{t / base['time']:>6.2f}  {same}")
    marks = [spread_mark(s, [r["time"] for r in results[s]]) for s in settings]
    note = ("  * the peak of everything saved, weights included: each plain linear saves its "
            "weight, a checkpoint node does not, so this column falls even at k = 1; the "
            "activations column is the one the √n rule is about")
    return rows + [m for m in marks if m] + [note]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--layers", type=at_least(1), default=16)
    parser.add_argument("--width", type=at_least(1), default=512)
    parser.add_argument("--batch", type=at_least(1), default=128)
    parser.add_argument("--ks", default="1,2,4,8",
                        help="layers per checkpointed segment, comma-separated "
                             "(divisors of --layers)")
    parser.add_argument("--repeats", type=at_least(1), default=3, help="processes per setting")
    parser.add_argument("--reps", type=at_least(1), default=5, help="timed steps per process")
    parser.add_argument("--threads", choices=("both", "default", "1"), default="both")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.layers, args.width, args.batch, args.reps)))
        return
    sizes = ["--layers", str(args.layers), "--width", str(args.width), "--batch",
             str(args.batch), "--reps", str(args.reps)]
    ks = [int(k) for k in args.ks.split(",") if k]
    bad = [k for k in ks if k < 1 or args.layers % k]
    if bad:
        parser.error(f"--ks: {bad} do not divide --layers {args.layers}")
    settings = ["none"] + [f"k{k}" for k in ks]
    threads = {"both": ["default", "1"], "default": ["default"], "1": ["1"]}[args.threads]
    print(f"checkpointing a {args.layers}-layer MLP (width {args.width}, batch {args.batch}): "
          f"peak saved memory during backward and step time, ratios to no checkpointing")
    for n in threads:
        env = {v: n for v in THREAD_VARS} if n == "1" else {}
        default = os.environ.get("OPENBLAS_NUM_THREADS", "all cores")
        shown = n if n == "1" else f"default ({default})"
        print()
        print(machine_line(shown))
        results = interleave(os.path.abspath(__file__), settings, sizes, args.repeats, env)
        print("\n".join(table(results, settings, args.layers)))


if __name__ == "__main__":
    main()
