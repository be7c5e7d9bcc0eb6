"""Real models with their modules recorded (``nn.record_scopes``), for the tests of module
frames: in the normal drawing, in the overview, in either layout's order."""

from __future__ import annotations

import random

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import Value, nn
from minigrad.nn.neurons import MLP


def digits_mlp():
    """Lesson 9's MLP (an nn.Sequential, smaller) over a batch of 8 digits: (loss, scopes)."""
    x, y = mg.data.load_digits()
    g = np.random.default_rng(0)
    model = nn.Sequential(nn.Linear(64, 16, rng=g), nn.ReLU(), nn.Linear(16, 10, rng=g))
    with nn.record_scopes() as scopes:
        loss = F.cross_entropy(model(mg.Tensor(x[:8], name="images")), y[:8])
    loss.backward()
    return loss, scopes


def cnn():
    """Lesson 10's small CNN on 4 random 8×8 images: (loss, scopes)."""
    g = np.random.default_rng(0)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1, rng=g), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 8, 3, padding=1, rng=g), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 2 * 2, 10, rng=g))
    images = mg.Tensor(np.random.default_rng(1).standard_normal((4, 1, 8, 8)).astype(np.float32),
                       name="images")
    with nn.record_scopes() as scopes:
        loss = F.cross_entropy(model(images), np.array([0, 1, 2, 3]))
    loss.backward()
    return loss, scopes


def demo(examples=6, sizes=(16, 16, 1)):
    """micrograd's demo: the scalar nn.MLP over a batch, its SVM loss and L2 on the
    parameters: (loss, scopes)."""
    rng = np.random.default_rng(0)
    model = MLP(2, list(sizes), rng=random.Random(0))
    xs = [[Value(float(v)) for v in row] for row in rng.normal(size=(examples, 2))]
    ys = np.where(rng.normal(size=examples) > 0, 1.0, -1.0)
    with nn.record_scopes() as scopes:
        losses = [(1 + -float(y) * model(x)).relu() for x, y in zip(xs, ys)]
    loss = sum(losses) * (1.0 / examples) + 1e-4 * sum(p * p for p in model.parameters())
    loss.backward()
    return loss, scopes
