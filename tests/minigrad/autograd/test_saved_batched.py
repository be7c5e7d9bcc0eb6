"""saved_tensors_hooks inside vmap: a batched saved value is packed whole (every example,
batch axes in front) and unpacked back into the batch it was, with the same levels."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, graph_memory
from minigrad.autograd import SavedTensorHookError
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.autograd.saved import Packed
from minigrad.batching import BatchedArray
from minigrad.func import grad, hessian, vmap
from minigrad.memory import ledger

B, D, H = 5, 3, 2


class Seen:
    """Hooks that remember what pack was given; ``pack`` and ``unpack`` may transform."""

    def __init__(self, pack=lambda a: a.copy(), unpack=lambda a: a):
        self.packed, self.unpacked = [], []
        self._pack, self._unpack = pack, unpack

    def pack(self, a):
        self.packed.append(a)
        return self._pack(a)

    def unpack(self, a):
        self.unpacked.append(a)
        return self._unpack(a)

    def hooks(self):
        return saved_tensors_hooks(self.pack, self.unpack)


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return Tensor(rng.standard_normal((D, H))), Tensor(rng.standard_normal((B, D)))


def _loss(w, x):
    """One example's loss: ``x`` has shape (D,)."""
    return ((x @ w).tanh() * x.sum()).exp().sum()


def test_vmap_of_grad_packs_every_batched_value_whole_and_gives_the_unhooked_gradients():
    w, xs = _data()
    want = vmap(grad(_loss), in_dims=(None, 0))(w, xs)
    seen = Seen()
    with seen.hooks():
        got = vmap(grad(_loss), in_dims=(None, 0))(w, xs)
    assert np.array_equal(got.data, want.data)
    assert all(type(a) is np.ndarray for a in seen.packed)  # never a BatchedArray
    shapes = [a.shape for a in seen.packed]
    assert (B, D) in shapes and (B, H) in shapes  # x, and tanh's output: the whole batch
    assert (D, H) in shapes  # w, shared by every example: packed as it is
    assert len(seen.unpacked) == len(seen.packed)


def test_grad_of_vmap_under_hooks_equals_the_unhooked_gradient():
    w, xs = _data(1)

    def total(w):
        return vmap(_loss, in_dims=(None, 0))(w, xs).sum()

    want = grad(total)(w)
    seen = Seen(pack=lambda a: a.astype(np.float32), unpack=lambda a: a.astype(np.float64))
    with seen.hooks():
        got = grad(total)(w)
    np.testing.assert_allclose(got.data, want.data, rtol=1e-5)
    assert (B, H) in [a.shape for a in seen.packed]


def test_a_batched_value_is_unpacked_into_a_batch_of_the_same_level():
    w, xs = _data(2)
    w.requires_grad = True  # (a graph is recorded only for what needs a gradient)
    levels = []

    def loss(w, x):
        y = (x @ w).tanh()
        levels.append(y.data.level)
        return y.sum()

    with saved_tensors_hooks(lambda a: a.copy(), lambda a: a):
        out = vmap(loss, in_dims=(None, 0))(w, xs)
    tanh = next(n for n in minigrad.topological_order(out) if n.op and n.op.name == "tanh")
    assert isinstance(tanh.saved, Packed) and type(tanh.saved[0]) is np.ndarray
    (back,) = tanh.saved.unpack(tanh)
    assert isinstance(back, BatchedArray) and back.level == levels[0]
    assert back.shape == (H,) and back.batch_size == B
    np.testing.assert_array_equal(back.every_example(), tanh.data.every_example())


def test_an_unpack_that_gives_back_one_example_is_refused_with_the_batch_named():
    w, xs = _data(3)

    def first_example(a):
        return a[0]

    with saved_tensors_hooks(lambda a: a, first_example):
        with pytest.raises(SavedTensorHookError) as err:
            vmap(grad(_loss), in_dims=(None, 0))(w, xs)
    text = str(err.value)
    assert "first_example" in text and "op '" in text
    assert "inside vmap" in text and f"({B}, " in text


def test_an_unpack_of_the_wrong_dtype_inside_vmap_is_refused():
    w, xs = _data(4)
    with saved_tensors_hooks(lambda a: a.astype(np.float32), lambda a: a):
        with pytest.raises(SavedTensorHookError, match="float32.*float64"):
            vmap(grad(_loss), in_dims=(None, 0))(w, xs)


def test_nested_vmap_packs_both_batch_axes_outermost_first():
    rng = np.random.default_rng(5)
    w = Tensor(rng.standard_normal((D, H)))
    xss = Tensor(rng.standard_normal((4, B, D)))  # 4 groups of B examples
    per = vmap(vmap(grad(_loss), in_dims=(None, 0)), in_dims=(None, 0))
    want = per(w, xss)
    seen = Seen()
    with seen.hooks():
        got = per(w, xss)
    assert np.array_equal(got.data, want.data)
    assert (4, B, H) in [a.shape for a in seen.packed]


def test_nested_vmap_unpacks_into_the_same_levels():
    rng = np.random.default_rng(6)
    xss = Tensor(rng.standard_normal((4, B, D)), requires_grad=True)
    with saved_tensors_hooks(lambda a: a.copy(), lambda a: a):
        out = vmap(vmap(lambda x: x.tanh().sum()))(xss)
    tanh = next(n for n in minigrad.topological_order(out) if n.op and n.op.name == "tanh")
    (back,) = tanh.saved.unpack(tanh)
    inner, outer = back, back.value
    assert (inner.level, outer.level) == (tanh.data.level, tanh.data.value.level)
    assert back.shape == (D,) and back.every_example().shape == (4, B, D)


def test_grad_of_grad_inside_vmap_under_hooks_equals_the_unhooked_one():
    """Reverse over reverse (a ``create_graph`` pass) per example: the second backward
    differentiates through the unpacked batches."""
    rng = np.random.default_rng(7)
    xs = Tensor(rng.standard_normal((B, D)))

    def f(x):
        return (x.tanh() * x).exp().sum()

    def g(x):
        return grad(f)(x).sum()

    want = vmap(grad(g))(xs)
    seen = Seen()
    with seen.hooks():
        got = vmap(grad(g))(xs)
    np.testing.assert_allclose(got.data, want.data, rtol=1e-12)
    assert (B, D) in [a.shape for a in seen.packed]


@pytest.mark.parametrize("pack, copied", [(lambda a: a, False), (lambda a: a.copy(), True)],
                         ids=["same array", "a copy"])
def test_create_graph_after_vmap_uses_the_nodes_when_unpack_gives_back_the_same_array(
        pack, copied):
    rng = np.random.default_rng(8)
    w = Tensor(rng.standard_normal((D, H)), requires_grad=True)
    xs = Tensor(rng.standard_normal((B, D)))
    loss = vmap(_loss, in_dims=(None, 0))(w, xs).sum()
    (g,) = minigrad.autograd.grad(loss, [w], create_graph=True)
    (want,) = minigrad.autograd.grad((g * g).sum(), [w])
    with saved_tensors_hooks(pack, lambda a: a):
        loss = vmap(_loss, in_dims=(None, 0))(w, xs).sum()
    (g,) = minigrad.autograd.grad(loss, [w], create_graph=True)
    ops = {n.op.name for n in minigrad.topological_order(g) if n.op is not None}
    assert ("unpack" in ops) == copied  # the same array back: the node itself, no stand-in
    (got,) = minigrad.autograd.grad((g * g).sum(), [w])
    np.testing.assert_allclose(got.data, want.data, rtol=1e-12)


def test_offloading_a_vmapped_graph_leaves_no_saved_bytes_and_the_ledger_sees_none():
    w, xs = _data(9)
    w.requires_grad = True
    store = {}

    def offload(a):
        store[len(store)] = a
        return len(store) - 1

    with saved_tensors_hooks(offload, store.pop):
        loss = vmap(_loss, in_dims=(None, 0))(w, xs).sum()
    assert graph_memory(loss).saved_bytes == 0 and store
    book = ledger(loss)
    assert max(s.alive for s in book.steps) == 0
    assert store == {} and w.grad is not None


def test_a_float16_pack_of_a_vmapped_graph_halves_its_saved_bytes():
    """tanh and exp each save their output: a batch of them, packed whole as float16."""
    xs = Tensor(np.linspace(-1, 1, B * D, dtype=np.float32).reshape(B, D), requires_grad=True)

    def f(x):
        return x.tanh().exp().sum()

    plain = graph_memory(vmap(f)(xs).sum())
    with saved_tensors_hooks(lambda a: a.astype(np.float16), lambda a: a.astype(np.float32)):
        loss = vmap(f)(xs).sum()
    assert graph_memory(loss).saved_bytes * 2 == plain.saved_bytes > 0
    peak = max(s.alive for s in ledger(vmap(f)(xs).sum()).steps)
    assert max(s.alive for s in ledger(loss).steps) * 2 == peak
    want = (1 - np.tanh(xs.data) ** 2) * np.exp(np.tanh(xs.data))
    np.testing.assert_allclose(xs.grad, 2 * want, rtol=2e-3)  # (two backward passes)


@pytest.mark.parametrize("order", ["vmap(hessian)", "hessian(vmap)"])
def test_hessian_and_vmap_under_copying_hooks_equal_the_unhooked_ones(order):
    rng = np.random.default_rng(11)
    xs = Tensor(rng.standard_normal((B, D)))

    def f(x):
        return (x.tanh() * x).exp().sum()

    run = {"vmap(hessian)": lambda: vmap(hessian(f))(xs),
           "hessian(vmap)": lambda: hessian(lambda x: vmap(f)(x).sum())(xs)}[order]
    want = run()
    seen = Seen()
    with seen.hooks():
        got = run()
    np.testing.assert_array_equal(got.data, want.data)
    assert (B, D) in [a.shape for a in seen.packed]
