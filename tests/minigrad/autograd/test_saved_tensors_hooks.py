"""saved_tensors_hooks: pack at forward, unpack lazily at backward, on every saved value."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value, graph_memory
from minigrad.autograd import SavedTensorHookError, grad, record
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.autograd.saved import Packed
from minigrad.engines.switches import SWITCHES
from minigrad.memory import _saved_arrays  # (the same module family's private helper)


class Counting:
    """Identity hooks that count their calls and remember what they packed."""

    def __init__(self, pack=None, unpack=None):
        self.packed, self.unpacked = [], []
        self._pack = pack or (lambda x: x)
        self._unpack = unpack or (lambda x: x)

    def pack(self, x):
        self.packed.append(x)
        return self._pack(x)

    def unpack(self, x):
        self.unpacked.append(x)
        return self._unpack(x)

    def hooks(self):
        return saved_tensors_hooks(self.pack, self.unpack)


def _leaves(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    x = Tensor(rng.standard_normal((3, 4)).astype(dtype), requires_grad=True, name="x")
    w = Tensor(rng.standard_normal((4, 2)).astype(dtype), requires_grad=True, name="w")
    return x, w


def _loss(x, w):
    return ((x @ w).tanh() * x.sum(axis=1, keepdims=True)).exp().mean()


def _saved_count(root) -> int:
    return sum(len(_saved_arrays(n.saved)) for n in minigrad.topological_order(root)
               if n.op is not None)


def test_every_saved_array_is_packed_at_forward_and_unpacked_only_at_backward():
    x, w = _leaves()
    expected = _saved_count(_loss(x, w))
    c = Counting()
    with c.hooks():
        loss = _loss(x, w)
    assert len(c.packed) == expected > 0
    assert c.unpacked == []  # lazily: nothing until backward reaches the nodes
    loss.backward()
    assert len(c.unpacked) == expected  # once per use


@pytest.mark.parametrize("engine, scheduler", [(None, "sorted"), ("fast", "sorted"),
                                               ("reference", "sorted"), (None, "ready-queue")])
def test_identity_hooks_give_the_same_bits_as_no_hooks(engine, scheduler):
    x, w = _leaves()
    _loss(x, w).backward()
    want = x.grad.copy(), w.grad.copy()
    x.grad = w.grad = None
    c = Counting(pack=lambda a: a.copy())  # a copy: the rules get other arrays
    with c.hooks():
        loss = _loss(x, w)
    minigrad.autograd.backward(loss, engine=engine, scheduler=scheduler)
    assert np.array_equal(x.grad, want[0]) and np.array_equal(w.grad, want[1])
    assert len(c.unpacked) == len(c.packed)


def test_value_engine_packs_floats():
    a, b = Value(0.7, requires_grad=True), Value(-1.3, requires_grad=True)
    ((a * b).tanh() + a.exp()).backward()
    want = a.grad, b.grad
    a.grad = b.grad = None
    c = Counting(pack=lambda f: ("box", f), unpack=lambda box: box[1])
    with c.hooks():
        out = (a * b).tanh() + a.exp()
    assert c.packed and all(type(f) is float for f in c.packed)
    out.backward()
    assert (a.grad, b.grad) == want


def test_float16_pack_halves_the_saved_bytes():
    x = Tensor(np.linspace(-1, 1, 64, dtype=np.float32), requires_grad=True)
    plain = graph_memory(x.tanh().exp().sum())  # tanh and exp each save their output
    with saved_tensors_hooks(lambda a: a.astype(np.float16), lambda a: a.astype(np.float32)):
        loss = x.tanh().exp().sum()
    packed = graph_memory(loss)
    assert packed.saved_bytes * 2 == plain.saved_bytes > 0
    loss.backward()
    want = (1 - np.tanh(x.data) ** 2) * np.exp(np.tanh(x.data))
    assert np.allclose(x.grad, want, rtol=2e-3) and x.grad.dtype == np.float32


def test_offload_to_a_store_leaves_nothing_held_by_the_graph():
    store = {}

    def offload(a):
        store[len(store)] = a
        return len(store) - 1

    x, w = _leaves()
    _loss(x, w).backward()
    want = x.grad.copy()
    x.grad = w.grad = None
    with saved_tensors_hooks(offload, store.pop):
        loss = _loss(x, w)
    assert graph_memory(loss).saved_bytes == 0 and len(store) == _saved_count(_loss(x, w))
    loss.backward()
    assert store == {} and np.array_equal(x.grad, want)


def test_innermost_hooks_win_and_leaving_restores_the_outer_ones():
    outer, inner = Counting(), Counting()
    x, _ = _leaves()
    with outer.hooks():
        a = x.tanh()
        with inner.hooks():
            b = x.exp()
        c = x.sigmoid()
    d = x.tanh()
    assert [len(outer.packed), len(inner.packed)] == [2, 1]
    assert isinstance(a.saved, Packed) and isinstance(b.saved, Packed)
    assert isinstance(c.saved, Packed) and not isinstance(d.saved, Packed)


def test_custom_function_save_for_backward_goes_through_the_hooks():
    class Cube(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.data ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    x, _ = _leaves()
    c = Counting(pack=lambda a: a * 1)
    with c.hooks():
        y = Cube.apply(x).sum()
    assert len(c.packed) == 1 and c.packed[0] is x.data
    y.backward()
    assert len(c.unpacked) == 1 and np.allclose(x.grad, 3 * x.data ** 2)


def test_only_arrays_and_floats_reach_pack_the_rest_is_kept_as_it_is():
    c = Counting()
    x, _ = _leaves()
    with c.hooks():
        y = x.reshape(12)  # saves the input's shape: a tuple
        z = minigrad.where(x.data > 0, x, 0.0)  # saves its condition: a bool array
    assert y.saved == ((3, 4),) and not isinstance(y.saved, Packed)
    assert [a.dtype for a in c.packed] == [np.bool_]
    assert isinstance(z.saved, Packed)


def test_retain_graph_unpacks_again_on_the_second_pass():
    c = Counting()
    x, w = _leaves()
    with c.hooks():
        loss = _loss(x, w)
    loss.backward(retain_graph=True)
    loss.backward()
    assert len(c.unpacked) == 2 * len(c.packed)


@pytest.mark.parametrize("pack", [lambda a: a, lambda a: a.copy()],
                         ids=["same array", "a copy"])
def test_create_graph_through_packed_values_gives_the_same_second_derivative(pack):
    x = Tensor(np.array([0.3, -0.8, 1.2]), requires_grad=True)
    (g,) = grad(x.tanh().exp().sum() * (x * x).sum(), [x], create_graph=True)
    (want,) = grad(g.sum(), [x])
    c = Counting(pack=pack)
    with c.hooks():
        loss = x.tanh().exp().sum() * (x * x).sum()
    (g,) = grad(loss, [x], create_graph=True)
    assert len(c.unpacked) == len(c.packed)  # once each (the next pass uses them again)
    (got,) = grad(g.sum(), [x])
    assert np.array_equal(got.data, want.data)


def test_a_copied_unpack_under_create_graph_stands_in_as_an_unpack_node():
    x = Tensor(np.array([0.5, -0.25]), requires_grad=True)
    with saved_tensors_hooks(lambda a: a.copy(), lambda a: a):
        y = x.tanh().sum()
    (g,) = grad(y, [x], create_graph=True)
    ops = {n.op.name for n in minigrad.topological_order(g) if n.op is not None}
    assert "unpack" in ops


def test_an_unpack_of_the_wrong_dtype_names_the_op_the_node_and_the_hook():
    def to_half(a):
        return a.astype(np.float16)

    def forgot_to_cast_back(a):
        return a

    x, _ = _leaves()
    with saved_tensors_hooks(to_half, forgot_to_cast_back):
        y = x.tanh()
    y.name = "act"
    with pytest.raises(SavedTensorHookError) as err:
        y.sum().backward()
    text = str(err.value)
    for part in ("'tanh'", f"#{y.id}", "'act'", "to_half", "forgot_to_cast_back", "float16",
                 "float32"):
        assert part in text


def test_an_unpack_of_the_wrong_shape_or_kind_is_refused():
    x, _ = _leaves()
    with saved_tensors_hooks(lambda a: a, lambda a: a.ravel()):
        y = x.exp().sum()
    with pytest.raises(SavedTensorHookError, match=r"shape \(12,\).*shape \(3, 4\)"):
        y.backward()
    v = Value(0.5, requires_grad=True)
    with saved_tensors_hooks(lambda f: f, lambda f: "oops"):
        z = v.tanh()
    with pytest.raises(SavedTensorHookError, match="returned str.*a float"):
        z.backward()


def test_packed_records_are_counted_while_they_live():
    x, w = _leaves()
    before = SWITCHES.packed_records
    with saved_tensors_hooks(lambda a: a, lambda a: a):
        loss = _loss(x, w)
    assert SWITCHES.packed_records > before
    loss.backward()  # releases every node's saved values
    assert SWITCHES.packed_records == before
    with saved_tensors_hooks(lambda a: a, lambda a: a):
        loss = _loss(x, w)
    del loss  # a graph dropped without backward
    assert SWITCHES.packed_records == before


def test_a_pack_that_computes_with_minigrad_does_not_pack_its_own_results():
    calls = []

    def pack(a):
        calls.append(a)
        t = Tensor(a, requires_grad=True)
        return (t * 2).data / 2  # an op inside pack: not packed again

    x, _ = _leaves()
    with saved_tensors_hooks(pack, lambda a: a):
        y = x.tanh()
    assert len(calls) == 1 and isinstance(y.saved, Packed)


def test_hooks_belong_to_the_thread_that_set_them():
    x, _ = _leaves()
    seen = {}

    def other():
        seen["saved"] = x.tanh().saved

    with saved_tensors_hooks(lambda a: a, lambda a: a):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert not isinstance(seen["saved"], Packed)


def test_hooks_must_be_callable():
    with pytest.raises(TypeError, match="unpack_hook must be callable"):
        saved_tensors_hooks(lambda a: a, None)


def test_a_recorded_backward_notes_each_release_without_changing_the_events():
    x, w = _leaves()
    loss = _loss(x, w)
    ops = [n for n in minigrad.topological_order(loss) if n.op is not None]
    with record() as tape:
        loss.backward()
    freed = [e for _, e in tape.notes if e.kind == "freed"]
    assert sorted(e.node.id for e in freed) == sorted(n.id for n in ops)
    assert {e.kind for e in tape.events} <= {"created", "seeded", "visit", "contribute"}


@pytest.mark.parametrize("pack", [lambda a: a, lambda a: a.copy()],
                         ids=["same array", "a copy"])
def test_hessian_forward_over_reverse_through_packed_values_equals_the_unhooked_one(pack):
    """``hessian`` runs forward mode through a ``create_graph`` pass: an unpacked copy
    stands in as an ``unpack`` node, which must carry its source's tangent (PyTorch's
    unpack restores the forward gradient too) or the Hessian silently loses a term."""
    x = Tensor(np.array([0.3, -0.8, 1.2]))

    def f(x):
        return (x.tanh() * x).exp().sum()

    want = minigrad.func.hessian(f)(x)
    with saved_tensors_hooks(pack, lambda a: a):
        got = minigrad.func.hessian(f)(x)
    np.testing.assert_array_equal(got.data, want.data)


def test_an_unpacked_copy_of_a_dual_tensor_keeps_its_tangent():
    from minigrad.autograd import forward_ad

    x = Tensor(np.array([0.3, -0.5]), requires_grad=True)
    with forward_ad.dual_level():
        xd = forward_ad.make_dual(x, np.ones(2))
        with saved_tensors_hooks(lambda a: a.copy(), lambda a: a):
            y = xd.exp().sum()
        (g,) = grad(y, [xd], create_graph=True)
        tangent = forward_ad.unpack_dual(g).tangent
    np.testing.assert_allclose(tangent, np.exp(x.data))  # d/dt of exp(x + t) at t = 0


def test_an_unpacked_copy_of_an_input_needing_no_grad_keeps_its_tangent_too():
    from minigrad.autograd import forward_ad

    x = Tensor(np.array([0.3, -0.5]), requires_grad=True)
    c = Tensor(np.array([2.0, 3.0]))  # no grad, but a tangent
    with forward_ad.dual_level():
        cd = forward_ad.make_dual(c, np.array([1.0, -1.0]))
        with saved_tensors_hooks(lambda a: a.copy(), lambda a: a):
            y = (x * cd).sum()
        (g,) = grad(y, [x], create_graph=True)  # g = c, so its tangent is c's
        tangent = forward_ad.unpack_dual(g).tangent
    np.testing.assert_array_equal(tangent, [1.0, -1.0])
