"""Small offline datasets for the teaching kit.

Everything here works without a network: the 8x8 digits ship inside the package,
the 2-D toy problems are generated, and MNIST is read from files the learner has
already downloaded. Only numpy and the standard library are used, so the kit
installs and runs in a bare environment (and in CI, which has no dataset hubs).

Conventions shared by every function:

* features are ``float32`` (what the autograd engine computes in) and labels are
  ``int64`` (what indexing-based losses such as cross-entropy expect);
* randomness comes from ``np.random.default_rng(seed)``, a private generator, so
  results are reproducible and never disturb numpy's global random state.
"""

from __future__ import annotations

import functools
import gzip
import math
import numbers
import os
import zlib
from importlib.resources import files
from pathlib import Path

import numpy as np

__all__ = [
    "load_digits",
    "make_moons",
    "make_circles",
    "make_spirals",
    "make_blobs",
    "train_test_split",
    "load_idx",
    "load_mnist",
]


# --------------------------------------------------------------------------- digits


@functools.lru_cache(maxsize=1)
def _digits_raw() -> tuple[np.ndarray, np.ndarray]:
    # importlib.resources rather than a path next to __file__: it also works when
    # the package is imported from a wheel or a zip, where no such path exists.
    with (files("minigrad.data") / "digits.npz").open("rb") as fh:
        with np.load(fh) as npz:
            images, labels = npz["images"], npz["labels"]
    images.flags.writeable = False  # cached: callers only ever get copies
    labels.flags.writeable = False
    return images, labels


def load_digits(normalize: bool = True, flatten: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Return the 1,797 8x8 handwritten digits as ``(X, y)``.

    ``X`` is float32 with shape ``(1797, 64)``, or ``(1797, 1, 8, 8)`` when
    ``flatten=False`` (N, channels, height, width: the layout conv layers expect).
    Pixel values are counts in 0..16; ``normalize=True`` divides by 16 so they lie
    in [0, 1], which keeps early activations and gradients in a sane range.
    ``y`` is int64 with values 0..9. See ``DIGITS-LICENSE.txt`` for provenance.
    """
    images, labels = _digits_raw()
    X = images.astype(np.float32)
    if normalize:
        X /= np.float32(16.0)
    X = X.reshape(len(X), 64) if flatten else X.reshape(len(X), 1, 8, 8)
    return X, labels.astype(np.int64)


# --------------------------------------------------------------- toy generators


def _check_int(name: str, value, minimum: int) -> int:
    # bool is an int subclass; make_moons(True) is almost certainly a mistake.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _check_nonneg(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    return float(value)


def _split_counts(n: int, k: int) -> list[int]:
    """Split n samples over k classes as evenly as possible (sizes differ by <= 1)."""
    return [n // k + (i < n % k) for i in range(k)]


def _finish(rng: np.random.Generator, X: np.ndarray, y: np.ndarray):
    # Generated points come out grouped by class; shuffle so that a plain
    # (unshuffled) mini-batch still sees every class.
    order = rng.permutation(len(y))
    return X[order].astype(np.float32), y[order].astype(np.int64)


def make_moons(n: int = 100, noise: float = 0.1, seed: int | None = 0):
    """Two interleaving half circles: the classic "not linearly separable" problem.

    Returns ``X`` float32 ``(n, 2)`` and ``y`` int64 ``(n,)`` with classes 0 and 1
    (sizes differ by at most one). ``noise`` is the standard deviation of the
    Gaussian jitter added to every coordinate.
    """
    n = _check_int("n", n, 2)
    noise = _check_nonneg("noise", noise)
    rng = np.random.default_rng(seed)
    n0, n1 = _split_counts(n, 2)
    t0 = np.linspace(0.0, np.pi, n0)
    t1 = np.linspace(0.0, np.pi, n1)
    upper = np.stack([np.cos(t0), np.sin(t0)], axis=1)
    lower = np.stack([1.0 - np.cos(t1), 0.5 - np.sin(t1)], axis=1)
    X = np.concatenate([upper, lower]) + rng.normal(0.0, noise, size=(n, 2))
    y = np.repeat([0, 1], [n0, n1])
    return _finish(rng, X, y)


def make_circles(n: int = 100, noise: float = 0.05, factor: float = 0.5, seed: int | None = 0):
    """A small circle inside a big one: no straight line separates them, one ReLU layer can.

    Returns ``X`` float32 ``(n, 2)`` and ``y`` int64 ``(n,)``: class 0 on the unit
    circle, class 1 on the circle of radius ``factor`` (in (0, 1)), sizes differing
    by at most one. ``noise`` is the standard deviation of the Gaussian jitter added
    to every coordinate. Points are spread evenly in angle, so with ``noise=0`` each
    class lies exactly on its circle.
    """
    n = _check_int("n", n, 2)
    noise = _check_nonneg("noise", noise)
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not 0 < factor < 1:
        raise ValueError(f"factor (inner radius / outer radius) must be in (0, 1), got {factor!r}")
    rng = np.random.default_rng(seed)
    parts = []
    for radius, m in zip((1.0, float(factor)), _split_counts(n, 2)):
        t = np.linspace(0.0, 2.0 * np.pi, m, endpoint=False)
        parts.append(radius * np.stack([np.cos(t), np.sin(t)], axis=1))
    X = np.concatenate(parts) + rng.normal(0.0, noise, size=(n, 2))
    y = np.repeat([0, 1], [len(parts[0]), len(parts[1])])
    return _finish(rng, X, y)


def make_spirals(n: int = 300, classes: int = 3, noise: float = 0.2, seed: int | None = 0):
    """``classes`` interleaved spiral arms; hard for linear models, easy for an MLP.

    Returns ``X`` float32 ``(n, 2)`` inside roughly the unit disc and ``y`` int64
    ``(n,)`` with ``n`` split evenly over the classes. Each arm winds outward from
    the centre; ``noise`` is the standard deviation (in radians) of the Gaussian
    jitter added to each point's angle, so larger values blur the arms together.
    """
    classes = _check_int("classes", classes, 2)
    n = _check_int("n", n, classes)
    noise = _check_nonneg("noise", noise)
    rng = np.random.default_rng(seed)
    parts, labels = [], []
    for k, m in enumerate(_split_counts(n, classes)):
        r = np.linspace(0.0, 1.0, m)
        theta = 2.0 * np.pi * k / classes + 4.0 * r + rng.normal(0.0, noise, size=m)
        parts.append(np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1))
        labels.append(np.full(m, k))
    return _finish(rng, np.concatenate(parts), np.concatenate(labels))


def make_blobs(n: int = 300, centers=3, std: float = 1.0, seed: int | None = 0):
    """Isotropic Gaussian clusters, one class per cluster.

    ``centers`` is either a count ``k`` or an array of shape ``(k, 2)``. A count
    places the centres evenly on a circle (radius 5, growing for many clusters) at
    a random rotation, so the clusters are well separated with the default
    ``std=1`` and the overlap is controlled by ``std`` alone. Returns ``X`` float32
    ``(n, 2)`` and ``y`` int64 ``(n,)`` with ``n`` split evenly over the clusters.
    """
    rng = np.random.default_rng(seed)
    if isinstance(centers, numbers.Integral) and not isinstance(centers, bool):
        k = _check_int("centers", centers, 1)
        radius = 5.0 * max(1.0, k / 6.0)
        angles = rng.uniform(0.0, 2.0 * np.pi) + 2.0 * np.pi * np.arange(k) / k
        mu = radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    else:
        mu = np.asarray(centers, dtype=np.float64)
        if mu.ndim != 2 or mu.shape[1] != 2 or len(mu) < 1:
            raise ValueError(f"centers must be an int or an array of shape (k, 2), got {centers!r}")
        k = len(mu)
    n = _check_int("n", n, k)
    std = _check_nonneg("std", std)
    counts = _split_counts(n, k)
    y = np.repeat(np.arange(k), counts)
    X = mu[y] + rng.normal(0.0, std, size=(n, 2))
    return _finish(rng, X, y)


# ------------------------------------------------------------------------ splitting


def train_test_split(*arrays, test_size: float = 0.2, seed: int | None = 0, shuffle: bool = True):
    """Split equal-length arrays into train and test parts.

    Returns ``[a_train, a_test, b_train, b_test, ...]`` (the same order as
    scikit-learn, so ``X_tr, X_te, y_tr, y_te = train_test_split(X, y)`` works).
    ``test_size`` is a fraction in (0, 1) (rounded up to whole samples) or an
    integer count. All arrays are split with the same permutation, so rows stay
    aligned. With ``shuffle=False`` the last rows form the test set.
    """
    if not arrays:
        raise ValueError("train_test_split needs at least one array")
    arrays = [np.asarray(a) for a in arrays]
    lengths = [len(a) for a in arrays]
    if len(set(lengths)) != 1:
        raise ValueError(f"all arrays must have the same length, got lengths {lengths}")
    n = lengths[0]

    if isinstance(test_size, bool) or not isinstance(test_size, numbers.Real):
        raise ValueError(f"test_size must be a fraction or a count, got {test_size!r}")
    if isinstance(test_size, numbers.Integral):
        n_test = int(test_size)
    elif 0.0 < test_size < 1.0:
        n_test = math.ceil(test_size * n)
    else:
        raise ValueError(f"a fractional test_size must be in (0, 1), got {test_size}")
    if not 0 < n_test < n:
        raise ValueError(
            f"test_size={test_size!r} gives {n_test} test samples out of {n}; "
            "both the train and test parts must be non-empty"
        )

    if shuffle:
        perm = np.random.default_rng(seed).permutation(n)
        train_idx, test_idx = perm[n_test:], perm[:n_test]
    else:
        train_idx, test_idx = np.arange(n - n_test), np.arange(n - n_test, n)
    out = []
    for a in arrays:
        out += [a[train_idx], a[test_idx]]
    return out


# ------------------------------------------------------------------ IDX / MNIST

# IDX header: two zero bytes, a type code, the number of dimensions, then one
# big-endian uint32 per dimension. MNIST uses only 0x08 (unsigned bytes), but
# the other codes of the format are cheap to support.
_IDX_DTYPES = {
    0x08: np.dtype("u1"),
    0x09: np.dtype("i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def load_idx(path) -> np.ndarray:
    """Read an IDX file (the MNIST / Fashion-MNIST format) into a numpy array.

    Handles plain and gzip-compressed files; compression is detected from the
    content, not the name, so a file that was decompressed but kept its ``.gz``
    suffix (a common browser habit) still loads. Labels files (magic 0x00000801)
    give shape ``(N,)`` and image files (0x00000803) ``(N, rows, cols)``; the
    array has the file's element type in native byte order.
    """
    path = Path(path)
    with open(path, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    try:
        with opener(path, "rb") as fh:
            data = fh.read()
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        # A cut-off download usually ends here; name the file, not just the symptom.
        raise ValueError(
            f"{path}: corrupt or truncated gzip file ({exc}); download it again"
        ) from exc

    if len(data) < 4:
        raise ValueError(f"{path}: too short to be an IDX file ({len(data)} bytes)")
    magic = int.from_bytes(data[:4], "big")
    zero, code, ndim = data[0:2], data[2], data[3]
    if zero != b"\x00\x00" or code not in _IDX_DTYPES or ndim == 0:
        raise ValueError(
            f"{path}: bad IDX magic number 0x{magic:08X}; expected 0x00000801 (labels), "
            "0x00000803 (images) or another IDX type code. Is this really an IDX file?"
        )
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path}: truncated IDX header")
    shape = tuple(int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    dtype = _IDX_DTYPES[code]
    expected = header + math.prod(shape) * dtype.itemsize
    if len(data) != expected:
        raise ValueError(
            f"{path}: header says shape {shape} ({expected} bytes) but the file has "
            f"{len(data)} bytes; it may be truncated or corrupt"
        )
    arr = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return arr.astype(dtype.newbyteorder("="))  # copy: writable and native-endian


_MNIST_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}

_WHERE_TO_GET = {
    False: (
        "Download it from the official MNIST database distribution page (maintained "
        "by Yann LeCun, Corinna Cortes and Christopher Burges)"
    ),
    True: (
        "Download it from the official Fashion-MNIST distribution by Zalando Research "
        "(the data/fashion folder of the zalandoresearch/fashion-mnist repository on GitHub)"
    ),
}


def _find(root: Path, name: str, fashion: bool) -> Path:
    for candidate in (root / name, root / (name + ".gz")):
        if candidate.is_file():
            return candidate
    dataset = "Fashion-MNIST" if fashion else "MNIST"
    raise FileNotFoundError(
        f"{dataset} file not found: looked for {root / name} and {root / (name + '.gz')}. "
        f"{_WHERE_TO_GET[fashion]} and put the file (gzipped or not) in {root}."
    )


def load_mnist(root, kind: str = "train", fashion: bool = False):
    """Load MNIST or Fashion-MNIST from the standard IDX files in ``root``.

    Nothing is downloaded: the kit has to work offline, so fetching the files is
    left to the learner (the error message says what is missing and where to get
    it). Both datasets use the same file names, ``train-*`` for ``kind="train"``
    (60,000 samples) and ``t10k-*`` for ``kind="test"`` (10,000), each either plain
    or ``.gz``; ``fashion`` only changes the wording of that message.

    Returns ``(images, labels)``: images uint8 ``(N, 28, 28)`` with values 0..255
    (kept compact; use ``images.reshape(len(images), -1).astype(np.float32) / 255``
    for an MLP) and labels int64 ``(N,)``.
    """
    if kind not in _MNIST_FILES:
        raise ValueError(f"kind must be 'train' or 'test', got {kind!r}")
    root = Path(os.path.expanduser(os.fspath(root)))
    image_name, label_name = _MNIST_FILES[kind]
    images = load_idx(_find(root, image_name, fashion))
    labels = load_idx(_find(root, label_name, fashion))
    if images.ndim != 3 or labels.ndim != 1:
        raise ValueError(
            f"expected images of shape (N, rows, cols) and labels of shape (N,), "
            f"got {images.shape} and {labels.shape}"
        )
    if len(images) != len(labels):
        raise ValueError(f"{len(images)} images but {len(labels)} labels in {root}")
    return images, labels.astype(np.int64)
