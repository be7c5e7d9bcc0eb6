"""Small seeded models on moons for the live view's tests: the scalar engine's MLP of
Values (micrograd's demo) and a Tensor MLP, each with one training step."""

from __future__ import annotations

import random

import numpy as np

import minigrad.nn.functional as F
from minigrad import Tensor, nn
from minigrad.data import make_moons
from minigrad.nn.neurons import MLP


def moons(n=40):
    return make_moons(n=n, noise=0.1, seed=0)


def scalar_mlp(seed=0):
    return MLP(2, [8, 8, 1], rng=random.Random(seed))


def scalar_step(model, X, y, lr=0.05):
    """One full-batch step of micrograd's max-margin loss; returns (loss, acc)."""
    yy = y * 2 - 1
    scores = [model([float(a), float(b)]) for a, b in X]
    losses = [(1 + -float(t) * s).relu() for t, s in zip(yy, scores)]
    loss = sum(losses) * (1.0 / len(losses))
    acc = float(np.mean([(s.data > 0) == (t > 0) for s, t in zip(scores, yy)]))
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss.data, acc


class TensorMLP(nn.Module):
    def __init__(self, hidden=16, seed=0, bias=0.0):
        super().__init__()
        g = np.random.default_rng(seed)
        self.fc1 = nn.Linear(2, hidden, rng=g)
        self.fc2 = nn.Linear(hidden, hidden, rng=g)
        self.fc3 = nn.Linear(hidden, 2, rng=g)
        self.fc2.bias.data[...] = bias  # a large negative bias kills fc2's ReLUs

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def tensor_step(model, X, y, lr=0.1):
    out = model(Tensor(X))
    loss = F.cross_entropy(out, y)
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return float(loss.item()), float((out.data.argmax(1) == y).mean())
