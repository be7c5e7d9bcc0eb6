"""Function transforms: forward mode (jvp, jacfwd) against the forward pass, reverse mode
(jacrev) against forward mode on a tall and a wide map, and both against torch.func.

Two workloads:

* **jvp through an MLP.**  The MLP 784-256-128-10 of ``mlp.py`` (ReLU, the same
  float32 weights), batch 128, and a random tangent for its *input*:
  ``jvp(model, (x,), (t,))`` gives ``model(x)`` and ``J·t`` in one forward pass
  carrying the tangent.  Each Linear's tangent is one more matmul of the same
  size (``ṫ Wᵀ``) and each ReLU's a mask, so 2× the forward pass alone is the
  floor.  Target: minigrad's jvp <= 2.2× minigrad's forward, measured three ways (median
  wall time, process CPU time, each side's quietest run: a busy shared machine
  starves whole runs).  The same
  computation written by hand in numpy (``numpy-fwd``, ``numpy-jvp``: the
  matmuls and masks, nothing else) shows what this machine makes of that floor.
* **Jacobians of a tall and a wide map.**  ``tall: ℝⁿ → ℝᵐ`` with n = ``--small``
  inputs and m = ``--large`` outputs (an MLP n → ``--hidden`` → m, tanh), and
  ``wide: ℝᵐ → ℝⁿ`` the other way round, float64, one input vector.  ``jacfwd``
  needs one column (a forward pass's tangent) per input, ``jacrev`` one row (a
  backward pass's cotangent) per output; both carry all their directions in *one*
  pass batched with ``vmap`` (issue 29, item 3), so the work, not the pass count,
  grows with the directions: forward mode should still win on the tall map and
  reverse mode on the wide one.  The pass counts (``minigrad.func.count_passes``:
  engine passes, and the directions they carried) are printed too, and the losing
  modes are timed once more with ``chunk_size=1`` (``-loop``: one pass per direction,
  as before vmap).  Target: ``jacrev`` on the tall map and ``jacfwd`` on the wide
  map <= 2× torch.func.

* **Per-example gradients** (issue 29, item 7).  The same MLP, batch ``--batch``,
  cross-entropy: the gradient of every weight for each example (``_per_example.py``).
  The reference is hand-written batched numpy (einsum outer products); against it a
  Python loop of ``minigrad.func.grad`` over the examples, torch.func's
  ``vmap(grad)``, and minigrad's ``vmap(grad)``.  Each is checked against the
  reference before it is timed.  Targets: minigrad's ``vmap(grad)`` <= 1.5× the
  reference and >= 10× faster than the loop (both hold only if the loop is >= 15× the
  reference; the table prints what the loop's own ratio leaves possible).

With torch installed, ``torch.func.jvp``/``jacfwd``/``jacrev`` run the same
workloads (an optional reference: torch.func batches a Jacobian's columns or rows
with ``vmap`` into one pass of batched ops, as minigrad now does).  Each run is a
separate process; runs alternate; we report medians over ``--repeats`` runs of the
median call over ``--steps``, and ratios from the same run, with the machine's
default BLAS threads and with one.  On a shared 2-core machine trust the one-thread
table: with two OpenBLAS threads and a busy neighbour, a single float32 ``x @ W.T``
of the MLP's first layer was seen taking 8-28 ms instead of 0.45 ms, in plain numpy
as in minigrad, from one process to the next.

    python benchmarks/transforms.py [--steps 50] [--pe-steps 10] [--repeats 3] [--threads 1]
                                    [--no-torch] [--per-example-only]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _per_example  # noqa: E402
from _common import (  # noqa: E402
    TUNED_MALLOC,
    at_least,
    interleave,
    machine_line,
    median,
    pin_threads,
    spread_mark,
    timer,
    with_torch,
)
from mlp import SIZES, init_weights, make_data  # noqa: E402

WARMUP = 3  # calls before the clock starts (BLAS and allocator warm-up)
JVP_WORKERS = ("fwd", "jvp")  # times the MLP's forward pass, and its jvp
JAC_WORKERS = tuple(f"{mode}-{shape}" for shape in ("tall", "wide")
                    for mode in ("jacfwd", "jacrev"))
#: how far (relative) a per-example gradient may be from the reference's (float32 sums)
AGREE = 1e-4
#: per-example gradients: the numpy reference first, then the rest against it
#: the losing modes once more as the loop of one pass per direction (chunk_size=1)
LOOP_WORKERS = ("jacrev-tall-loop", "jacfwd-wide-loop")
PER_EXAMPLE = ("numpy:pergrad", "minigrad:pergrad-loop", "torch:pergrad-vmap",
               "minigrad:pergrad-vmap")


# --- the workloads ---------------------------------------------------------------------------
def tangent_for(batch: int):
    """The tangent of the MLP's input: float32, shaped like a batch of images."""
    import numpy as np

    return np.random.default_rng(5).standard_normal((batch, SIZES[0])).astype(np.float32)


def map_weights(n_in: int, hidden: int, n_out: int, seed: int = 7):
    """The weights of a small tanh MLP ``n_in → hidden → n_out`` (float64) and a point."""
    import numpy as np

    rng = np.random.default_rng(seed)
    w1 = rng.standard_normal((hidden, n_in)) / np.sqrt(n_in)
    w2 = rng.standard_normal((n_out, hidden)) / np.sqrt(hidden)
    return w1, rng.standard_normal(hidden), w2, rng.uniform(-1, 1, n_in)


def map_shape(shape: str, small: int, large: int) -> tuple[int, int]:
    """``(inputs, outputs)``: the tall map has few inputs and many outputs."""
    return (small, large) if shape == "tall" else (large, small)


def minigrad_fns(batch: int, small: int, large: int, hidden: int) -> dict:
    """``{worker: call()}`` for minigrad; each call returns a float to check against torch."""
    import numpy as np

    from minigrad import Tensor, nn
    from minigrad.func import jacfwd, jacrev, jvp

    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10))
    for p, w in zip(model.parameters(), init_weights()):
        p.data[...] = w
    x = Tensor(make_data(batch)[0])
    t = tangent_for(batch)
    fns = {"fwd": lambda: float(model(x).data.sum()),
           "jvp": lambda: float(jvp(model, (x,), (t,))[1].data.sum())}
    for shape in ("tall", "wide"):
        w1, b1, w2, point = (Tensor(a) for a in map_weights(*_sizes(shape, small, large,
                                                                    hidden)))

        def f(v, w1=w1, b1=b1, w2=w2):
            return (w2 @ (w1 @ v + b1).tanh()).tanh()

        for mode, transform in (("jacfwd", jacfwd), ("jacrev", jacrev)):
            fns[f"{mode}-{shape}"] = (lambda tr=transform, f=f, p=point:
                                      float(np.abs(tr(f)(p).data).sum()))
            fns[f"{mode}-{shape}-loop"] = (lambda tr=transform, f=f, p=point:
                                           float(np.abs(tr(f, chunk_size=1)(p).data).sum()))
    return fns


def _sizes(shape, small, large, hidden):
    n_in, n_out = map_shape(shape, small, large)
    return n_in, hidden, n_out


def numpy_fns(batch: int) -> dict:
    """The MLP's forward pass and its jvp written out in numpy: the floor of both."""
    import numpy as np

    w = init_weights()
    x, t = make_data(batch)[0], tangent_for(batch)

    def forward():
        h = np.maximum(x @ w[0].T + w[1], 0)
        h = np.maximum(h @ w[2].T + w[3], 0)
        return float((h @ w[4].T + w[5]).sum())

    def tangent():
        z = x @ w[0].T + w[1]
        dz = (t @ w[0].T) * (z > 0)
        z2 = np.maximum(z, 0) @ w[2].T + w[3]
        dz2 = (dz @ w[2].T) * (z2 > 0)
        (np.maximum(z2, 0) @ w[4].T + w[5]).sum()
        return float((dz2 @ w[4].T).sum())

    return {"fwd": forward, "jvp": tangent}


def torch_fns(batch: int, small: int, large: int, hidden: int, threads: int) -> dict:
    import torch
    from torch.func import jacfwd, jacrev, jvp

    torch.set_num_threads(threads)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    with torch.no_grad():
        for p, w in zip(model.parameters(), init_weights()):
            p.copy_(torch.from_numpy(w))
        model.requires_grad_(False)
    x = torch.from_numpy(make_data(batch)[0])
    t = torch.from_numpy(tangent_for(batch))
    fns = {"fwd": lambda: float(model(x).sum()),
           "jvp": lambda: float(jvp(model, (x,), (t,))[1].sum())}
    for shape in ("tall", "wide"):
        w1, b1, w2, point = (torch.from_numpy(a) for a in
                             map_weights(*_sizes(shape, small, large, hidden)))

        def f(v, w1=w1, b1=b1, w2=w2):
            return torch.tanh(w2 @ torch.tanh(w1 @ v + b1))

        for mode, transform in (("jacfwd", jacfwd), ("jacrev", jacrev)):
            fns[f"{mode}-{shape}"] = (lambda tr=transform, f=f, p=point:
                                      float(tr(f)(p).abs().sum()))
    return fns


def pass_counts(small: int, large: int, hidden: int) -> dict:
    """``{worker: Passes}`` for the four Jacobians (in this process, untimed)."""
    fns = minigrad_fns(1, small, large, hidden)
    from minigrad.func import count_passes

    counts = {}
    for name in JAC_WORKERS + LOOP_WORKERS:
        with count_passes() as passes:
            fns[name]()
        counts[name] = passes
    return counts


def worker(impl: str, args) -> dict:
    """``impl`` is ``<library>:<workload>``; time ``--steps`` calls of it."""
    library, workload = impl.split(":")
    if workload.startswith("pergrad"):
        return _per_example_worker(library, workload, args)
    sizes = (args.batch, args.small, args.large, args.hidden)
    if library == "torch":
        fns = torch_fns(*sizes, args.threads or os.cpu_count() or 1)
    elif library == "numpy":
        fns = numpy_fns(args.batch)
    else:
        fns = minigrad_fns(*sizes)
    call = fns[workload]
    for _ in range(WARMUP):
        value = call()
    times, cpu = [], []
    for _ in range(args.steps):
        t0, c0 = timer(), time.process_time()
        call()
        times.append(timer() - t0)
        cpu.append(time.process_time() - c0)
    return {"time": median(times), "cpu": median(cpu), "value": value}


def _per_example_worker(library: str, workload: str, args) -> dict:
    """Time ``--pe-steps`` calls of one per-example gradient implementation, after
    checking its gradients against the numpy reference (``value``: the largest
    relative difference)."""
    if library == "torch":
        import torch

        torch.set_num_threads(args.threads or os.cpu_count() or 1)
        call = _per_example.torch_fns(args.batch)["vmap"]
    elif library == "numpy":
        call = _per_example.numpy_fn(args.batch)
    else:
        call = _per_example.minigrad_fns(args.batch)[workload.split("-")[1]]
    value = _per_example.agreement(call(), _per_example.numpy_fn(args.batch)())
    if value > AGREE:  # a wrong answer gets no time
        raise SystemExit(f"{library}:{workload}: per-example gradients differ from the numpy "
                         f"reference by {value:.1e} (relative), more than {AGREE:.0e}")
    for _ in range(WARMUP - 1):
        call()
    times, cpu = [], []
    for _ in range(args.pe_steps):
        t0, c0 = timer(), time.process_time()
        call()
        times.append(timer() - t0)
        cpu.append(time.process_time() - c0)
    return {"time": median(times), "cpu": median(cpu), "value": value}


# --- the report ------------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=at_least(5, "a median needs a few calls"), default=50)
    ap.add_argument("--pe-steps", type=at_least(3, "a median needs a few calls"), default=10,
                    help="calls timed per run of the per-example gradients (the loop is slow)")
    ap.add_argument("--repeats", type=at_least(1), default=3)
    ap.add_argument("--threads", type=int, default=None,
                    help="BLAS (and torch) threads; by default both the machine's default "
                         "(one per core) and 1")
    ap.add_argument("--batch", type=at_least(1), default=128, help="the MLP's batch")
    ap.add_argument("--small", type=at_least(1), default=8,
                    help="the tall map's inputs (the wide map's outputs)")
    ap.add_argument("--large", type=at_least(2), default=256,
                    help="the tall map's outputs (the wide map's inputs)")
    ap.add_argument("--hidden", type=at_least(1), default=64, help="the maps' hidden width")
    ap.add_argument("--per-example-only", action="store_true",
                    help="run only the per-example gradients' table")
    ap.add_argument("--no-torch", action="store_true", help="skip the torch.func reference")
    ap.add_argument("--worker")
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args)))
        return
    if args.small >= args.large:
        ap.error(f"--small ({args.small}) must be below --large ({args.large}): the tall map "
                 f"has fewer inputs than outputs")
    libraries = ["minigrad"] if args.no_torch else with_torch(
        ["minigrad"], "torch not installed: minigrad's ratios only")
    impls = [f"{lib}:{w}" for lib in libraries for w in JVP_WORKERS + JAC_WORKERS]
    impls += [f"minigrad:{w}" for w in LOOP_WORKERS]
    impls += [f"numpy:{w}" for w in JVP_WORKERS]
    if not args.per_example_only:
        print(_pass_table(pass_counts(args.small, args.large, args.hidden), args))
    per_example = [i for i in PER_EXAMPLE if i.split(":")[0] in libraries + ["numpy"]
                   and (i != "minigrad:pergrad-vmap" or _per_example.minigrad_vmap_available())]
    for threads in [args.threads] if args.threads else [os.cpu_count() or 1, 1]:
        print()
        if not args.per_example_only:
            _compare(impls, libraries, args, threads)
            print()
        _compare_per_example(per_example, args, threads)


def _pass_table(counts: dict, args) -> str:
    lines = [f"{'Jacobian':<18}{'shape':>8}{'forward':>9}{'(directions)':>14}"
             f"{'backward':>10}{'(directions)':>14}{'ops':>7}"]
    for name, p in counts.items():
        n_in, n_out = map_shape(name.split("-")[1], args.small, args.large)
        lines.append(f"{name:<18}{f'{n_out}×{n_in}':>8}{p.forward:>9}"
                     f"{p.forward_directions:>14}{p.backward:>10}{p.backward_directions:>14}"
                     f"{p.ops:>7}")
    return ("passes (minigrad.func.count_passes: engine passes, and the directions they "
            "carried; -loop: chunk_size=1):\n  " + "\n  ".join(lines))


def _compare(impls, libraries, args, threads):
    pin_threads(threads)
    forwarded = ["--steps", str(args.steps), "--threads", str(threads), "--batch",
                 str(args.batch), "--small", str(args.small), "--large", str(args.large),
                 "--hidden", str(args.hidden)]
    res = interleave(__file__, impls, forwarded, args.repeats)
    est = {impl: median([r["time"] for r in runs]) for impl, runs in res.items()}
    print(machine_line(threads))
    print(f"median call of {args.steps}, median of {args.repeats} runs; MLP "
          f"{'-'.join(map(str, SIZES))} batch {args.batch} float32; maps "
          f"{args.small}→{args.hidden}→{args.large} and back, float64")
    print(f"  {'workload':<16}" + "".join(f"{lib:>14}" for lib in libraries + ["numpy"]))
    for w in JVP_WORKERS + JAC_WORKERS + LOOP_WORKERS:
        row = "".join(f"{1e3 * est[f'{lib}:{w}']:>11.3f} ms" if f"{lib}:{w}" in est
                      else f"{'':>14}" for lib in libraries + ["numpy"])
        print(f"  {w:<16}{row}")
    mg = {w: est[f"minigrad:{w}"] for w in JVP_WORKERS + JAC_WORKERS + LOOP_WORKERS}
    cpu = {impl: median([r["cpu"] for r in runs]) for impl, runs in res.items()}
    quiet = {impl: min(r["time"] for r in runs) for impl, runs in res.items()}
    for what, t in (("median wall time", est), ("CPU time", cpu), ("quietest runs", quiet)):
        print(f"ratio jvp / forward by {what:<16}: minigrad "
              f"{t['minigrad:jvp'] / t['minigrad:fwd']:.2f} (target <= 2.2), numpy floor "
              f"{t['numpy:jvp'] / t['numpy:fwd']:.2f}; minigrad jvp / numpy jvp "
              f"{t['minigrad:jvp'] / t['numpy:jvp']:.2f}")
    print("  (CPU time does not count waiting for a core: the figure to trust on a busy "
          "machine with one thread; quietest: each side's fastest run)")
    print(f"ratio tall: jacrev / jacfwd = {mg['jacrev-tall'] / mg['jacfwd-tall']:.1f}  "
          f"(forward mode should win, by about m/n = {args.large / args.small:.0f})")
    print(f"ratio wide: jacfwd / jacrev = {mg['jacfwd-wide'] / mg['jacrev-wide']:.1f}  "
          f"(reverse mode should win)")
    if "torch" in libraries:
        ratios = ", ".join(f"{w} {mg[w] / est[f'torch:{w}']:.2f}"
                           for w in JVP_WORKERS + JAC_WORKERS)
        print(f"ratio minigrad/torch.func: {ratios}")
        print("  (targets: jacrev-tall and jacfwd-wide <= 2; as the loop, chunk_size=1: "
              + ", ".join(f"{w} {mg[w] / est['torch:' + w[:-5]]:.1f}" for w in LOOP_WORKERS)
              + ")")
        same = all(_agree(res[f"minigrad:{w}"][0]["value"], res[f"torch:{w}"][0]["value"])
                   for w in JVP_WORKERS + JAC_WORKERS)
        print(f"same results as torch (to 1e-4 relative): {same}")
    same = all(_agree(res[f"minigrad:jacfwd-{s}"][0]["value"],
                      res[f"minigrad:jacrev-{s}"][0]["value"]) for s in ("tall", "wide"))
    same = same and all(_agree(res[f"minigrad:{w}"][0]["value"],
                               res[f"minigrad:{w[:-5]}"][0]["value"]) for w in LOOP_WORKERS)
    print(f"jacfwd and jacrev (batched, and as the loop) give the same Jacobians: {same}")
    for impl in ("minigrad:jvp", "minigrad:fwd"):
        busy = spread_mark(impl, [r["time"] for r in res[impl]])
        if busy:
            print(busy)


def _compare_per_example(impls, args, threads):
    """The per-example gradients' table: times, ratios to the numpy reference, agreement."""
    pin_threads(threads)
    forwarded = ["--pe-steps", str(args.pe_steps), "--threads", str(threads), "--batch",
                 str(args.batch)]
    # (each call allocates ~130 MB of gradients: every worker keeps its heap, so that no
    # implementation pays page faults for it: _common.TUNED_MALLOC)
    res = interleave(__file__, impls, forwarded, args.repeats, env=TUNED_MALLOC)
    est = {impl: median([r["time"] for r in runs]) for impl, runs in res.items()}
    cpu = {impl: median([r["cpu"] for r in runs]) for impl, runs in res.items()}
    ref, loop = est["numpy:pergrad"], est["minigrad:pergrad-loop"]
    print(machine_line(threads))
    print(f"per-example gradients: MLP {'-'.join(map(str, SIZES))} ReLU cross-entropy, batch "
          f"{args.batch} float32; median call of {args.pe_steps}, median of {args.repeats} runs; "
          f"heap kept (TUNED_MALLOC)")
    print(f"  {'per-example':<24}{'time':>12}{'/ numpy':>9}{'CPU / numpy':>13}"
          f"{'max rel diff':>14}")
    names = {"numpy:pergrad": "numpy (einsum, ref)",
             "minigrad:pergrad-loop": "minigrad loop of grad",
             "torch:pergrad-vmap": "torch.func vmap(grad)",
             "minigrad:pergrad-vmap": "minigrad vmap(grad)"}
    for impl in PER_EXAMPLE:
        if impl not in est:
            continue
        print(f"  {names[impl]:<24}{1e3 * est[impl]:>9.2f} ms{est[impl] / ref:>8.2f}x"
              f"{cpu[impl] / cpu['numpy:pergrad']:>12.2f}x"
              f"{max(r['value'] for r in res[impl]):>14.1e}")
    same = all(r["value"] <= AGREE for runs in res.values() for r in runs)
    print(f"every implementation gives the reference's gradients (to {AGREE:.0e} relative, "
          f"checked before timing): {same}")
    if "minigrad:pergrad-vmap" in est:
        vm = est["minigrad:pergrad-vmap"]
        print(f"ratio minigrad vmap(grad) / numpy = {vm / ref:.2f} (target <= 1.5); loop / "
              f"vmap(grad) = {loop / vm:.1f} (target >= 10)")
        print(f"  (the loop is {loop / ref:.1f}x numpy here: >= 10x over it needs vmap(grad) "
              f"<= {loop / ref / 10:.2f}x numpy)")
    if "torch:pergrad-vmap" in est:
        print(f"ratio loop / torch.func vmap(grad) = {loop / est['torch:pergrad-vmap']:.1f}")
    busy = spread_mark("numpy:pergrad", [r["time"] for r in res["numpy:pergrad"]])
    if busy:
        print(busy)


def _agree(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-4 * max(abs(a), abs(b), 1e-12)


if __name__ == "__main__":
    main()
