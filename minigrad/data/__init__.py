"""Offline datasets and mini-batching for minigrad (numpy and stdlib only).

Nothing here touches the network, so examples and tests run anywhere: the 8x8
digits ship with the package, the 2-D toy sets are generated from a seed, and
MNIST is read from IDX files already on disk.
"""

from .datasets import (
    load_digits,
    load_idx,
    load_mnist,
    make_blobs,
    make_circles,
    make_moons,
    make_spirals,
    train_test_split,
)
from .loader import DataLoader

__all__ = [
    "DataLoader",
    "load_digits",
    "load_idx",
    "load_mnist",
    "make_blobs",
    "make_circles",
    "make_moons",
    "make_spirals",
    "train_test_split",
]
