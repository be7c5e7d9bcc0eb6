"""Checks for exercise 27: the diagnosis of six real training runs, each recorded by a
``viz.TrainingView`` (seeded, a fraction of a second each): two healthy runs, a learning
rate too high, a layer killed by its bias, a run whose ReLUs a too-large learning rate
killed (the symptom is what is diagnosed), and a deep tanh stack whose gradients vanish."""

from __future__ import annotations

import copy
import functools

import numpy as np

from ._support import call, fail, fmt

ANSWERS = ("dead relu", "vanishing gradients", "lr too high", "fine")


def _net(depth=3, hidden=16, act="relu", scale=1.0, seed=0):
    import minigrad.nn.functional as F
    from minigrad import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            g = np.random.default_rng(seed)
            sizes = [2] + [hidden] * (depth - 1) + [2]
            self.layers = nn.ModuleList(nn.Linear(a, b, rng=g) for a, b in zip(sizes, sizes[1:]))
            for layer in self.layers:
                layer.weight.data[...] *= scale

        def forward(self, x):
            for i, layer in enumerate(self.layers):
                x = layer(x)
                if i < len(self.layers) - 1:
                    x = F.relu(x) if act == "relu" else x.tanh()
            return x

    return Net()


def _record(model, data, lr, momentum=0.0, epochs=10) -> dict:
    import minigrad.nn.functional as F
    import viz
    from minigrad.data import DataLoader
    from minigrad.fitting import fit
    from minigrad.optim import SGD

    X, y = data
    view = viz.TrainingView(model, every=10, data=(X, y), display=None, graph=False)
    loader = DataLoader((X, y), batch_size=20, shuffle=True, seed=0)
    fit(model, SGD(model.parameters(), lr=lr, momentum=momentum), F.cross_entropy, loader,
        epochs, progress=False, live=view)
    return view.summary()


@functools.lru_cache(maxsize=1)
def _runs() -> tuple:
    """``(description, summary, expected)`` per run (recorded once per session)."""
    from minigrad.data import make_circles, make_moons

    moons = make_moons(n=200, noise=0.1, seed=1)
    circles = make_circles(n=200, noise=0.05, seed=2)
    dead = _net()
    dead.layers[1].bias.data[...] = -5.0
    return (
        ("moons, SGD lr 0.05 momentum 0.9", _record(_net(), moons, 0.05, 0.9), "fine"),
        ("circles, SGD lr 0.1 momentum 0.9", _record(_net(seed=3), circles, 0.1, 0.9), "fine"),
        ("moons, plain SGD lr 2.0", _record(_net(), moons, 2.0), "lr too high"),
        ("moons, layers.1's bias started at -5", _record(dead, moons, 0.05, 0.9), "dead relu"),
        ("circles, plain SGD lr 3.0 (the first big steps pushed every ReLU negative)",
         _record(_net(seed=3), circles, 3.0), "dead relu"),
        ("moons, 8 tanh layers with weights scaled by 0.3",
         _record(_net(depth=8, act="tanh", scale=0.3), moons, 0.05, 0.9),
         "vanishing gradients"),
    )


def _numbers(summary) -> str:
    layers = summary["layers"]
    ratios = ", ".join(f"{n} {np.nanmedian(summary['ratio'][n]):.1e}" for n in layers)
    dead = ", ".join(f"{n} {summary['dead'][n][-1]:.2f}" for n in layers)
    grads = ", ".join(f"{n} {np.median(summary['grad_abs_mean'][n]):.1e}" for n in layers)
    return (f"median ratio per layer: {ratios}; dead at the last sample: {dead}; "
            f"median |grad|: {grads}")


def _hint(expected: str, got: str, summary: dict) -> str | None:
    layers = summary["layers"]
    if expected == "fine" and got == "dead relu":
        return ("a ReLU layer always has some gradients that are exactly zero (units off for "
                "the whole batch): a layer is dead when ALL of them are, dead == 1.0, at each "
                "of the last three samples")
    if expected == "fine" and got == "lr too high":
        return ("the guide is 1e-3, but healthy runs sit within a factor of ten of it: the "
                "rule is a median ratio above 3e-2")
    if expected == "lr too high" and got == "fine":
        return ("the first sample's ratio is nan (no update seen yet), and np.median of a "
                "list holding a nan is nan, and every comparison with nan is False: use "
                "np.nanmedian per layer")
    if expected == "dead relu" and all(summary["dead"][n][0] < 1.0 for n in layers):
        return ("this run's layers were alive at the first sample and died later: look at "
                "the last three samples (dead[name][-3:]), not the first")
    if expected == "dead relu" and got == "vanishing gradients":
        return ("a dead layer's gradients are exactly zero, which is also less than 1/100 of "
                "the last layer's: check for dead layers first (rule 1)")
    if expected == "dead relu":
        return ("a dead layer: summary['dead'][name] is 1.0, every gradient exactly zero")
    if expected == "vanishing gradients" and got == "dead relu":
        return ("the first layer's gradients are tiny (about 1e-7) but not zero: dead means "
                "dead == 1.0, exactly zero; tiny-but-not-zero is vanishing (rule 2)")
    if expected == "vanishing gradients":
        return (f"summary['layers'] lists the input first: compare layers[0] ({layers[0]!r}) "
                f"with layers[-1] ({layers[-1]!r}), the median mean |grad| of each")
    return None


def check_diagnose(diagnose):
    for description, summary, expected in _runs():
        context = f"diagnose(summary) of a run on {description}"
        got = call(diagnose, "diagnose", {"summary": copy.deepcopy(summary)}, context=context)
        if not isinstance(got, str) or got not in ANSWERS:
            fail(f"{context} returned {fmt(got)}; expected one of {', '.join(map(repr, ANSWERS))}",
                 "return the diagnosis as one of these four strings, exactly")
        if got != expected:
            fail(f"{context} returned {got!r}, expected {expected!r} ({_numbers(summary)})",
                 _hint(expected, got, summary))
