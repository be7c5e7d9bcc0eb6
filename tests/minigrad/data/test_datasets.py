"""minigrad.data's datasets: bundled digits, toy generators, splitting, IDX files, MNIST."""

from __future__ import annotations

import gzip
import struct
import sys

import numpy as np
import pytest

from minigrad.data import (
    load_digits,
    load_idx,
    load_mnist,
    make_blobs,
    make_circles,
    make_moons,
    make_spirals,
    train_test_split,
)

# ------------------------------------------------------------------------ digits


def test_digits_shapes_dtypes_and_range():
    X, y = load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float32
    assert y.shape == (1797,) and y.dtype == np.int64
    assert X.min() == 0.0 and X.max() == 1.0
    counts = np.bincount(y, minlength=10)
    assert len(counts) == 10
    assert counts.sum() == 1797
    assert counts.min() >= 170 and counts.max() <= 190  # each class ~180


def test_digits_unnormalized_are_integer_counts():
    X, _ = load_digits(normalize=False)
    assert X.dtype == np.float32
    assert X.min() == 0.0 and X.max() == 16.0
    assert np.array_equal(X, np.round(X))
    Xn, _ = load_digits()
    np.testing.assert_allclose(Xn * 16, X)


def test_digits_nchw():
    X, y = load_digits(flatten=False)
    assert X.shape == (1797, 1, 8, 8) and X.dtype == np.float32
    flat, _ = load_digits()
    assert np.array_equal(X.reshape(1797, 64), flat)
    assert y.shape == (1797,)


def test_digits_returns_fresh_copies():
    X, y = load_digits()
    X[:] = -1
    y[:] = -1
    X2, y2 = load_digits()
    assert X2.min() == 0.0 and y2.min() == 0


def test_digits_file_is_small_and_uint8():
    from importlib.resources import files

    res = files("minigrad.data") / "digits.npz"
    assert len(res.read_bytes()) < 100_000
    with res.open("rb") as fh, np.load(fh) as npz:
        assert npz["images"].dtype == np.uint8 and npz["images"].shape == (1797, 8, 8)
        assert npz["labels"].dtype == np.uint8 and npz["labels"].shape == (1797,)
    assert (files("minigrad.data") / "DIGITS-LICENSE.txt").is_file()


def test_package_imports_only_numpy_and_stdlib():
    # Checked on the source rather than sys.modules, so the result does not depend
    # on what the parent ``minigrad`` package happens to import.
    import ast
    from pathlib import Path

    import minigrad.data

    allowed = set(sys.stdlib_module_names) | {"numpy"}
    for path in Path(minigrad.data.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = [node.module.split(".")[0]]
            else:
                continue
            assert set(roots) <= allowed, f"{path.name} imports {roots}"


# ----------------------------------------------------------------- generators

GENERATORS = [
    (make_moons, {"n": 100}, 2),
    (make_circles, {"n": 100}, 2),
    (make_spirals, {"n": 300, "classes": 3}, 3),
    (make_blobs, {"n": 300, "centers": 3}, 3),
]


@pytest.mark.parametrize("gen, kwargs, k", GENERATORS)
def test_generator_shapes_dtypes_and_balance(gen, kwargs, k):
    X, y = gen(**kwargs)
    n = kwargs["n"]
    assert X.shape == (n, 2) and X.dtype == np.float32
    assert y.shape == (n,) and y.dtype == np.int64
    counts = np.bincount(y)
    assert len(counts) == k
    assert counts.max() - counts.min() <= 1
    assert np.isfinite(X).all()


@pytest.mark.parametrize("gen, kwargs, k", GENERATORS)
def test_generator_deterministic_per_seed(gen, kwargs, k):
    X1, y1 = gen(**kwargs, seed=7)
    X2, y2 = gen(**kwargs, seed=7)
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)
    X3, _ = gen(**kwargs, seed=8)
    assert not np.array_equal(X1, X3)


@pytest.mark.parametrize("gen, kwargs, k", GENERATORS)
def test_generator_leaves_global_rng_alone(gen, kwargs, k):
    np.random.seed(123)
    expected = np.random.rand()
    np.random.seed(123)
    gen(**kwargs)
    assert np.random.rand() == expected


def test_generators_odd_sizes_and_shuffled_classes():
    _, y = make_moons(n=7)
    assert sorted(np.bincount(y)) == [3, 4]
    _, y = make_spirals(n=10, classes=4)
    assert sorted(np.bincount(y)) == [2, 2, 3, 3]
    # points are shuffled, so the first few already mix classes
    _, y = make_spirals()
    assert len(set(y[:20].tolist())) > 1


def test_blobs_explicit_centers_and_zero_std():
    centers = [[0.0, 0.0], [10.0, -3.0]]
    X, y = make_blobs(n=10, centers=centers, std=0.0)
    np.testing.assert_allclose(X, np.asarray(centers, dtype=np.float32)[y])


def test_moons_zero_noise_on_arcs():
    X, y = make_moons(n=50, noise=0.0)
    up = X[y == 0]
    np.testing.assert_allclose(np.hypot(up[:, 0], up[:, 1]), 1.0, atol=1e-6)
    low = X[y == 1]
    np.testing.assert_allclose(np.hypot(low[:, 0] - 1.0, low[:, 1] - 0.5), 1.0, atol=1e-6)


def test_circles_zero_noise_on_two_radii():
    X, y = make_circles(n=41, noise=0.0, factor=0.3)
    radii = np.hypot(X[:, 0], X[:, 1])
    np.testing.assert_allclose(radii[y == 0], 1.0, atol=1e-6)
    np.testing.assert_allclose(radii[y == 1], 0.3, atol=1e-6)
    assert sorted(np.bincount(y)) == [20, 21]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: make_moons(n=0), "n must be"),
        (lambda: make_moons(n=-5), "n must be"),
        (lambda: make_moons(n=2.5), "n must be an integer"),
        (lambda: make_moons(noise=-0.1), "noise"),
        (lambda: make_circles(n=1), "n must be"),
        (lambda: make_circles(noise=-1), "noise"),
        (lambda: make_circles(factor=1.0), "factor"),
        (lambda: make_circles(factor=0), "factor"),
        (lambda: make_spirals(classes=1), "classes must be >= 2"),
        (lambda: make_spirals(n=2, classes=3), "n must be >= 3"),
        (lambda: make_spirals(n=0), "n must be"),
        (lambda: make_spirals(noise=float("nan")), "noise"),
        (lambda: make_blobs(n=0), "n must be"),
        (lambda: make_blobs(centers=0), "centers must be >= 1"),
        (lambda: make_blobs(centers=[1.0, 2.0]), "centers must be"),
        (lambda: make_blobs(std=-1), "std"),
    ],
)
def test_generator_bad_args(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------ splitting


def test_split_sizes_order_and_disjointness():
    X = np.arange(100).reshape(50, 2)
    y = np.arange(50)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, seed=1)
    assert len(X_tr) == len(y_tr) == 40 and len(X_te) == len(y_te) == 10
    # rows stay aligned across arrays
    assert np.array_equal(X_tr[:, 0] // 2, y_tr) and np.array_equal(X_te[:, 0] // 2, y_te)
    assert set(y_tr.tolist()).isdisjoint(y_te.tolist())
    assert sorted(y_tr.tolist() + y_te.tolist()) == list(range(50))


def test_split_fraction_rounds_up_and_int_count():
    y = np.arange(11)
    tr, te = train_test_split(y, test_size=0.25)
    assert len(te) == 3 and len(tr) == 8
    tr, te = train_test_split(y, test_size=4)
    assert len(te) == 4 and len(tr) == 7


def test_split_seed_and_no_shuffle():
    y = np.arange(30)
    a = train_test_split(y, seed=3)
    b = train_test_split(y, seed=3)
    c = train_test_split(y, seed=4)
    assert all(np.array_equal(p, q) for p, q in zip(a, b, strict=True))
    assert not np.array_equal(a[1], c[1])
    tr, te = train_test_split(y, test_size=0.1, shuffle=False)
    assert np.array_equal(tr, np.arange(27)) and np.array_equal(te, np.arange(27, 30))


def test_split_errors():
    with pytest.raises(ValueError, match=r"lengths \[5, 4\]"):
        train_test_split(np.zeros(5), np.zeros(4))
    with pytest.raises(ValueError):
        train_test_split()
    for bad in (0.0, 1.0, 1.5, 0, 10, -1):
        with pytest.raises(ValueError):
            train_test_split(np.zeros(10), test_size=bad)


# ----------------------------------------------------------------- IDX / MNIST


def _idx_bytes(arr: np.ndarray, code: int = 0x08) -> bytes:
    header = struct.pack(">HBB", 0, code, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    dt = {0x08: ">u1", 0x0B: ">i2", 0x0D: ">f4"}[code]
    return header + arr.astype(dt).tobytes()


def _write(path, data: bytes, gz: bool):
    if gz:
        with gzip.open(path, "wb") as fh:
            fh.write(data)
    else:
        path.write_bytes(data)
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_idx_roundtrip_labels_and_images(tmp_path, gz):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(5, 4, 3), dtype=np.uint8)
    labels = rng.integers(0, 10, size=5, dtype=np.uint8)
    suffix = ".gz" if gz else ""
    img_path = _write(tmp_path / f"img{suffix}", _idx_bytes(images), gz)
    lab_path = _write(tmp_path / f"lab{suffix}", _idx_bytes(labels), gz)
    head = img_path.read_bytes()[:4]
    assert head.startswith(b"\x1f\x8b") if gz else head == b"\x00\x00\x08\x03"
    got_img = load_idx(img_path)
    got_lab = load_idx(str(lab_path))
    assert got_img.dtype == np.uint8 and np.array_equal(got_img, images)
    assert got_lab.dtype == np.uint8 and np.array_equal(got_lab, labels)


def test_idx_other_types_native_endian(tmp_path):
    a = np.array([[1, -2, 300], [4, 5, -600]], dtype=np.int16)
    got = load_idx(_write(tmp_path / "s", _idx_bytes(a, 0x0B), False))
    assert np.array_equal(got, a) and got.dtype.isnative
    f = np.linspace(-1, 1, 6, dtype=np.float32)
    got = load_idx(_write(tmp_path / "f", _idx_bytes(f, 0x0D), False))
    assert np.array_equal(got, f) and got.dtype == np.float32


def test_idx_gzip_detected_by_content(tmp_path):
    labels = np.arange(10, dtype=np.uint8)
    # gzipped data without a .gz name, and plain data with one
    assert np.array_equal(load_idx(_write(tmp_path / "a", _idx_bytes(labels), True)), labels)
    assert np.array_equal(load_idx(_write(tmp_path / "b.gz", _idx_bytes(labels), False)), labels)


@pytest.mark.parametrize("gz", [False, True])
def test_idx_bad_magic(tmp_path, gz):
    bad = b"\x12\x34\x08\x01" + struct.pack(">I", 2) + b"\x00\x01"
    with pytest.raises(ValueError, match="bad IDX magic number 0x12340801"):
        load_idx(_write(tmp_path / "bad", bad, gz))
    unknown_type = b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"\x00"
    with pytest.raises(ValueError, match="magic"):
        load_idx(_write(tmp_path / "bad2", unknown_type, gz))


def test_idx_truncated(tmp_path):
    data = _idx_bytes(np.zeros((3, 2, 2), dtype=np.uint8))[:-1]
    with pytest.raises(ValueError, match="truncated"):
        load_idx(_write(tmp_path / "t", data, False))
    with pytest.raises(ValueError, match="too short"):
        load_idx(_write(tmp_path / "t2", b"\x00\x00", False))


def _fake_mnist(root, prefix, n, gz):
    rng = np.random.default_rng(n)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n, dtype=np.uint8)
    sfx = ".gz" if gz else ""
    _write(root / f"{prefix}-images-idx3-ubyte{sfx}", _idx_bytes(images), gz)
    _write(root / f"{prefix}-labels-idx1-ubyte{sfx}", _idx_bytes(labels), gz)
    return images, labels


@pytest.mark.parametrize("gz", [False, True])
def test_load_mnist_train_and_test(tmp_path, gz):
    tr_img, tr_lab = _fake_mnist(tmp_path, "train", 6, gz)
    te_img, te_lab = _fake_mnist(tmp_path, "t10k", 3, gz)
    X, y = load_mnist(tmp_path)
    assert X.shape == (6, 28, 28) and X.dtype == np.uint8 and y.dtype == np.int64
    assert np.array_equal(X, tr_img) and np.array_equal(y, tr_lab)
    X, y = load_mnist(str(tmp_path), kind="test", fashion=True)
    assert np.array_equal(X, te_img) and np.array_equal(y, te_lab)


def test_load_mnist_missing_file_message(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        load_mnist(tmp_path, kind="test")
    msg = str(info.value)
    assert str(tmp_path / "t10k-images-idx3-ubyte") in msg
    assert "MNIST" in msg and "official" in msg
    assert "://" not in msg

    # images present, labels missing: the message names the labels file
    _fake_mnist(tmp_path, "train", 2, False)
    (tmp_path / "train-labels-idx1-ubyte").unlink()
    with pytest.raises(FileNotFoundError, match="train-labels-idx1-ubyte"):
        load_mnist(tmp_path)

    with pytest.raises(FileNotFoundError) as info:
        load_mnist(tmp_path / "nowhere", fashion=True)
    assert "Fashion-MNIST" in str(info.value) and "://" not in str(info.value)


def test_load_mnist_bad_kind_and_mismatch(tmp_path):
    with pytest.raises(ValueError, match="kind"):
        load_mnist(tmp_path, kind="val")
    _write(tmp_path / "train-images-idx3-ubyte", _idx_bytes(np.zeros((3, 28, 28), np.uint8)), False)
    _write(tmp_path / "train-labels-idx1-ubyte", _idx_bytes(np.zeros(2, np.uint8)), False)
    with pytest.raises(ValueError, match="3 images but 2 labels"):
        load_mnist(tmp_path)
