"""The scalar engine's ``MLP`` across to PyTorch and back.

``minigrad.nn.neurons.MLP`` holds one ``Value`` per weight: neuron ``j`` of layer ``i``
computes ``act(Σₖ wⱼₖ·xₖ + bⱼ)``.  A layer of neurons reading the same inputs is a
matrix product, so layer ``i`` is a ``torch.nn.Linear`` whose weight row ``j`` is
neuron ``j``'s ``w`` and whose bias entry ``j`` is its ``b``:

    MLP(3, [4, 4, 1])  ->  Sequential(Linear(3, 4), ReLU(), Linear(4, 4), ReLU(), Linear(4, 1))

float64 throughout (a ``Value`` is a Python float, a float64), so the copy computes the
same function; the outputs agree to rounding (torch adds the products in another
order), and every weight crosses bit for bit.

Parameter names do not map one to one, as they do for the tensor layers: minigrad's
``layers.1.neurons.2.w.0`` is one element of torch's ``2.weight``, at ``[2, 0]``
(``scalar_mlp_keys`` lists the mapping; a ``Linear`` sits at index ``2·i`` of the
``Sequential``, its ``ReLU`` at ``2·i + 1``).

Back: ``from_torch(seq, engine="scalar")`` turns such a ``Sequential`` (``Linear``
layers, each but the last followed by a ``ReLU``, as the scalar MLP has them) into an
``MLP`` with those weights.  It is only on request because a scalar model is one
``Value`` per weight and per multiply, thousands of Python objects for a modest
network: the tensor engine (the default) is the one to train a torch model's copy in.
"""

from __future__ import annotations

import random
from collections import OrderedDict

from ..nn.neurons import MLP
from .optional import import_torch

__all__ = ["scalar_mlp_to_torch", "scalar_mlp_from_torch", "scalar_mlp_keys"]


def _layers(mlp: MLP) -> list:
    """``[(neurons, relu)]`` per layer; a layer mixing linear and ReLU neurons has no
    single torch layer (an ``MLP`` never makes one; a hand-edited one might)."""
    out = []
    for i, layer in enumerate(mlp.layers):
        flags = {bool(n.nonlin) for n in layer.neurons}
        if len(flags) != 1:
            raise TypeError(f"cannot convert the MLP's layer {i} to torch: some of its neurons "
                            f"apply ReLU and some do not, which no Linear + activation is")
        out.append((list(layer.neurons), flags.pop()))
    return out


def scalar_mlp_keys(mlp: MLP) -> OrderedDict:
    """``{minigrad parameter name: (torch state_dict key, index)}`` for a scalar MLP:
    ``"layers.0.neurons.1.w.2" -> ("0.weight", (1, 2))``, ``"...b" -> ("0.bias", (1,))``."""
    keys = OrderedDict()
    for i, (neurons, _) in enumerate(_layers(mlp)):
        for j, n in enumerate(neurons):
            for k in range(len(n.w)):
                keys[f"layers.{i}.neurons.{j}.w.{k}"] = (f"{2 * i}.weight", (j, k))
            keys[f"layers.{i}.neurons.{j}.b"] = (f"{2 * i}.bias", (j,))
    return keys


def scalar_mlp_to_torch(mlp: MLP):
    """A new float64 ``torch.nn.Sequential`` computing what ``mlp`` computes (a copy of
    every weight, ``requires_grad`` as each ``Value`` has it; see the module doc)."""
    torch = import_torch("minigrad.interop.to_torch")
    parts = []
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        for neurons, relu in _layers(mlp):
            lin = torch.nn.Linear(len(neurons[0].w), len(neurons), dtype=torch.float64)
            lin.weight.copy_(torch.tensor([[float(w.data) for w in n.w] for n in neurons],
                                          dtype=torch.float64))
            lin.bias.copy_(torch.tensor([float(n.b.data) for n in neurons],
                                        dtype=torch.float64))
            lin.weight.requires_grad_(all(bool(w.requires_grad) for n in neurons for w in n.w))
            lin.bias.requires_grad_(all(bool(n.b.requires_grad) for n in neurons))
            parts.append(lin)
            if relu:
                parts.append(torch.nn.ReLU())
    seq = torch.nn.Sequential(*parts)
    seq.train(mlp.training)
    return seq


def scalar_mlp_from_torch(seq) -> MLP:
    """A new scalar-engine ``MLP`` with the weights of ``seq``, a ``Sequential`` of
    ``Linear`` layers each but the last followed by ``ReLU`` (the reverse of
    ``scalar_mlp_to_torch``); anything else is a ``TypeError`` saying what is expected."""
    torch = import_torch("minigrad.interop.from_torch")
    shape = ("the scalar engine's MLP is Linear, ReLU, Linear, ReLU, ..., Linear (a ReLU "
             "after every Linear but the last, each Linear with a bias)")
    if type(seq) is not torch.nn.Sequential:
        raise TypeError(f"from_torch(engine='scalar') takes a torch.nn.Sequential; got a "
                        f"{type(seq).__name__}. {shape}")
    mods = list(seq)
    lins = mods[0::2]
    relus = mods[1::2]
    ok = (mods and len(mods) % 2 == 1
          and all(type(m) is torch.nn.Linear and m.bias is not None for m in lins)
          and all(type(m) is torch.nn.ReLU for m in relus)
          and all(a.out_features == b.in_features for a, b in zip(lins, lins[1:])))
    if not ok:
        got = ", ".join(type(m).__name__ + ("(no bias)" if getattr(m, "bias", 0) is None
                                            else "") for m in mods)
        raise TypeError(f"from_torch(engine='scalar') cannot convert Sequential({got}): {shape}")
    # (its own generator: the throwaway initial weights leave the user's stream alone)
    mlp = MLP(lins[0].in_features, [m.out_features for m in lins], rng=random.Random(0))
    for layer, lin in zip(mlp.layers, lins):
        weight = lin.weight.detach().cpu().double().tolist()
        bias = lin.bias.detach().cpu().double().tolist()
        for j, n in enumerate(layer.neurons):
            for w, v in zip(n.w, weight[j]):
                w.data = float(v)
                w.requires_grad = bool(lin.weight.requires_grad)
            n.b.data = float(bias[j])
            n.b.requires_grad = bool(lin.bias.requires_grad)
    mlp.train(seq.training)
    return mlp
