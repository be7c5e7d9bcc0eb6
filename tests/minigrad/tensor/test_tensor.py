"""The Tensor API: construction, dtypes, ops' values and gradients, errors, graph lifetime."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, gradcheck, no_grad
from minigrad.autograd import registered_ops
from tests._helpers import leaf

T = minigrad.tensor


# --- construction and dtypes ---------------------------------------------------------------
class TestConstruction:
    def test_python_floats_default_to_float32(self):
        assert T([1.0, 2.0]).dtype == np.float32
        assert T(1.5).dtype == np.float32
        assert T([[1, 2]]).dtype == np.int64
        assert T([True, False]).dtype == bool

    def test_numpy_dtype_is_kept(self):
        assert Tensor(np.zeros(3)).dtype == np.float64
        assert Tensor(np.zeros(3, np.float32)).dtype == np.float32
        assert Tensor(np.float64(2.0)).dtype == np.float64
        assert T([1, 2], dtype="float64").dtype == np.float64

    def test_properties(self):
        x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, name="x")
        assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and len(x) == 2
        assert x.T.shape == (3, 2)
        assert x.name == "x" and x.label == "x" and x.is_leaf
        assert x.numpy() is x.data
        assert T([[7.0]]).item() == 7.0
        assert x.grad is None

    def test_item_and_len_errors(self):
        with pytest.raises(ValueError, match=r"shape \(2,\)"):
            T([1.0, 2.0]).item()
        with pytest.raises(TypeError, match="0-d"):
            len(T(1.0))

    def test_integer_tensors_cannot_require_grad(self):
        with pytest.raises(TypeError, match="only floating-point.*int64"):
            T([1, 2], requires_grad=True)
        with pytest.raises(TypeError, match="bool"):
            T([True]).requires_grad_()

    def test_requires_grad_detach(self):
        x = T([1.0, 2.0]).requires_grad_()
        assert x.requires_grad
        y = x * 2
        d = y.detach()
        assert not d.requires_grad and d.op is None and d.data is y.data
        with pytest.raises(RuntimeError, match="leaf"):
            y.requires_grad_(False)

    def test_bad_data(self):
        with pytest.raises(TypeError, match="Value"):
            Tensor(minigrad.Value(1.0))
        with pytest.raises(TypeError):
            Tensor("abc")

    def test_repr_is_stable(self):
        x = T([[1.0, 2.0]], requires_grad=True)
        assert repr(x) == "tensor([[1.0000, 2.0000]], requires_grad=True)"
        y = x * 2
        assert repr(y) == "tensor([[2.0000, 4.0000]], op=mul)"
        assert repr(Tensor(np.array([1.5]))) == "tensor([1.5000], dtype=float64)"
        assert repr(T([1, 2], name="i")) == "tensor([1, 2], name='i')"


class TestCopying:
    def test_deepcopy_and_pickle_give_new_ids(self):
        import copy
        import pickle

        w = minigrad.randn(2, 2, requires_grad=True, name="w")
        w.grad = np.ones((2, 2), np.float32)
        for c in (copy.deepcopy(w), pickle.loads(pickle.dumps(w))):
            assert c.id != w.id and c.name == "w" and c.requires_grad
            np.testing.assert_array_equal(c.data, w.data)
            np.testing.assert_array_equal(c.grad, w.grad)
        assert copy.deepcopy(w).data is not w.data
        with pytest.raises(RuntimeError, match="leaf"):
            copy.deepcopy(w * 2)

    def test_format_and_no_item_assignment(self):
        assert f"{T(1.23456):.2f}" == "1.23"
        assert f"{T([1.0])}" == "tensor([1.0000])"
        x = T([1.0, 2.0])
        with pytest.raises(TypeError, match="item assignment"):
            x[0] = 3.0


class TestDtypes:
    def test_python_numbers_do_not_promote_float32(self):
        x = T([1.0, 2.0], requires_grad=True)
        for y in (x + 1, 1 + x, x * 2.5, 2.5 * x, x / 3, 3 / x, x - 1, 1 - x, x**2, 2.0**x):
            assert y.dtype == np.float32
        (x * 2.5 + 1).sum().backward()
        assert x.grad.dtype == np.float32

    def test_float64_stays_float64(self):
        x = leaf([1.0, 2.0])
        y = (x * 2.5).exp().sum()
        y.backward()
        assert y.dtype == np.float64 and x.grad.dtype == np.float64

    def test_int_tensor_mixes_with_float_tensor_as_constant(self):
        x = T([1.0, 2.0], requires_grad=True)
        i = T([3, 4])
        y = x * i
        assert y.dtype == np.float32
        y.sum().backward()
        np.testing.assert_array_equal(x.grad, [3, 4])
        assert i.grad is None
        assert (i + 0.5).dtype == np.float32
        assert (i + 1).dtype == np.int64

    def test_bool_mask_multiplies(self):
        x = T([1.0, -2.0, 3.0], requires_grad=True)
        y = x * (x > 0)
        assert y.dtype == np.float32
        y.sum().backward()
        np.testing.assert_array_equal(x.grad, [1, 0, 1])

    def test_int_input_to_float_op(self):
        assert T([1, 2]).exp().dtype == np.float32
        assert T([1, 2]).mean().dtype == np.float32
        assert T([1, 2]).sum().dtype == np.int64

    def test_astype(self):
        x = T([1.0, 2.0], requires_grad=True)
        y = x.double()
        assert y.dtype == np.float64
        (y * y).sum().backward()
        assert x.grad.dtype == np.float32
        np.testing.assert_allclose(x.grad, [2, 4])
        assert x.astype(np.int32).dtype == np.int32


# --- values against numpy ----------------------------------------------------------------------
def _check(fn_t, fn_np, *arrays):
    ts = [leaf(a) for a in arrays]
    out = fn_t(*ts)
    np.testing.assert_allclose(out.data, fn_np(*arrays), rtol=1e-12, atol=1e-12)
    assert gradcheck(fn_t, *ts)


class TestValues:
    rng = np.random.default_rng(0)

    @pytest.mark.parametrize("name,fn_t,fn_np", [
        ("add", lambda a, b: a + b, np.add),
        ("sub", lambda a, b: a - b, np.subtract),
        ("mul", lambda a, b: a * b, np.multiply),
        ("div", lambda a, b: a / b, np.divide),
        ("maximum", lambda a, b: a.maximum(b), np.maximum),
        ("minimum", lambda a, b: a.minimum(b), np.minimum),
    ])
    @pytest.mark.parametrize("sa,sb", [((3, 1), (1, 4)), ((5, 3), (3,)), ((), (2, 3)),
                                       ((2, 3), ()), ((4,), (2, 1, 4))])
    def test_binary_broadcasting(self, name, fn_t, fn_np, sa, sb):
        a = self.rng.uniform(0.5, 2, sa)
        b = self.rng.uniform(0.5, 2, sb) * 1.01
        _check(fn_t, fn_np, a, b)

    def test_numbers_on_either_side(self):
        x = leaf([1.0, 2.0, 4.0])
        for fn in (lambda t: 3 - t, lambda t: 3 / t, lambda t: 2 ** t, lambda t: t ** 3,
                   lambda t: -t + 1, lambda t: 0.5 * t / 2):
            assert gradcheck(fn, x)
        np.testing.assert_allclose((3 / x).data, [3, 1.5, 0.75])

    def test_ndarray_on_the_left_defers_to_tensor(self):
        x = leaf([1.0, 2.0])
        y = np.array([3.0, 4.0]) * x
        assert isinstance(y, Tensor) and y.requires_grad

    def test_unary_functions(self):
        a = self.rng.uniform(0.2, 2, (3, 4))
        _check(lambda t: t.exp(), np.exp, a)
        _check(lambda t: t.log(), np.log, a)
        _check(lambda t: t.sqrt(), np.sqrt, a)
        _check(lambda t: t.tanh(), np.tanh, a)
        _check(lambda t: abs(-t), np.abs, a)
        _check(lambda t: t.sigmoid(), lambda x: 1 / (1 + np.exp(-x)), a)
        _check(lambda t: (t - 1).relu(), lambda x: np.maximum(x - 1, 0), a + 0.013)

    def test_leaky_relu_gelu_clip(self):
        x = leaf([-2.0, -0.5, 0.5, 2.0])
        np.testing.assert_allclose(x.leaky_relu(0.1).data, [-0.2, -0.05, 0.5, 2.0])
        np.testing.assert_allclose(x.gelu().data[3], 1.9544997361036416, rtol=1e-12)
        np.testing.assert_allclose(x.gelu("tanh").data[3], 1.9545976, rtol=1e-6)
        np.testing.assert_allclose(x.clip(-1, 1).data, [-1, -0.5, 0.5, 1])
        x.clip(-1, 1).sum().backward()
        np.testing.assert_array_equal(x.grad, [0, 1, 1, 0])

    def test_sigmoid_is_stable(self):
        x = T([-1000.0, 0.0, 1000.0], requires_grad=True)
        y = x.sigmoid()
        np.testing.assert_array_equal(y.data, [0, 0.5, 1])
        y.sum().backward()
        assert np.isfinite(x.grad).all()

    def test_gelu_matches_value_engine(self):
        for v in (-1.3, 0.2, 2.0):
            a = minigrad.Value(v)
            a.gelu().backward()
            t = leaf([v])
            t.gelu().sum().backward()
            assert abs(t.data[0] * 0 + t.gelu().data[0] - a.gelu().data) < 1e-12
            assert abs(t.grad[0] - a.grad) < 1e-12

    def test_comparisons_are_bool_constants(self):
        x = leaf([1.0, 2.0, 3.0])
        for m in (x < 2, x <= 2, x > 2, x >= 2, x == 2, x != 2):
            assert m.dtype == bool and not m.requires_grad and m.op is None
        np.testing.assert_array_equal((x == 2).data, [False, True, False])
        assert hash(x) == hash(x) and len({x, x}) == 1
        assert x in [x]


class TestReductions:
    rng = np.random.default_rng(1)

    @pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, (0, 2), (0, 1, 2), ()])
    @pytest.mark.parametrize("keepdims", [False, True])
    @pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "var", "logsumexp"])
    def test_every_axis_form(self, name, axis, keepdims):
        a = self.rng.permutation(24).reshape(2, 3, 4) / 7.0
        if name == "var" and axis == ():
            return
        x = leaf(a)
        out = getattr(x, name)(axis=axis, keepdims=keepdims)
        if name == "logsumexp":
            ax = tuple(range(3)) if axis is None else axis
            m = a.max(axis=ax, keepdims=True)
            ref = np.log(np.exp(a - m).sum(axis=ax, keepdims=True)) + m
            ref = ref if keepdims else np.squeeze(ref, axis=ax)
        else:
            ref = getattr(np, name)(a, axis=axis, keepdims=keepdims)
        np.testing.assert_allclose(out.data, ref, rtol=1e-12)
        assert gradcheck(lambda t: getattr(t, name)(axis=axis, keepdims=keepdims), x)

    def test_max_ties_share_gradient(self):
        x = leaf([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
        x.max(axis=1).sum().backward()
        np.testing.assert_allclose(x.grad, [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
        y = leaf([5.0, 1.0, 5.0])
        y.min().backward()
        np.testing.assert_array_equal(y.grad, [0, 1, 0])
        z = leaf([5.0, 1.0, 5.0])
        z.max().backward()
        assert z.grad.sum() == 1.0

    def test_argmax_first_on_ties(self):
        x = T([[1.0, 3.0, 3.0], [4.0, 0.0, 4.0]])
        np.testing.assert_array_equal(x.argmax(axis=1).data, [1, 0])
        assert x.argmax().item() == 3
        assert x.argmax(axis=0).dtype == np.int64
        assert not x.argmax().requires_grad
        np.testing.assert_array_equal(x.argmin(axis=1).data, [0, 1])

    def test_var_ddof(self):
        a = self.rng.standard_normal((4, 5))
        x = leaf(a)
        np.testing.assert_allclose(x.var(axis=1, ddof=1).data, a.var(axis=1, ddof=1))
        np.testing.assert_allclose(x.std().data, a.std())

    def test_axis_errors(self):
        x = T(np.zeros((2, 3)))
        with pytest.raises(ValueError, match=r"axis 2 is out of range.*\(2, 3\)"):
            x.sum(axis=2)
        with pytest.raises(ValueError, match="repeated"):
            x.mean(axis=(0, -2))
        with pytest.raises(TypeError, match="axis"):
            x.sum(axis="rows")


class TestSoftmax:
    def test_values_and_gradients(self):
        a = np.random.default_rng(2).standard_normal((3, 5))
        x = leaf(a)
        e = np.exp(a - a.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(x.softmax().data, ref, rtol=1e-12)
        np.testing.assert_allclose(x.log_softmax(axis=1).data, np.log(ref), rtol=1e-12)
        np.testing.assert_allclose(x.softmax(axis=0).data.sum(axis=0), 1)
        assert gradcheck(lambda t: t.softmax(axis=0), x)
        assert gradcheck(lambda t: t.log_softmax(), x)

    @pytest.mark.parametrize("fn", ["softmax", "log_softmax", "logsumexp"])
    def test_float32_stable_at_large_magnitudes(self, fn):
        x = T([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0]], requires_grad=True)
        out = getattr(x, fn)(axis=1) if fn != "logsumexp" else x.logsumexp(axis=1)
        assert out.dtype == np.float32 and np.isfinite(out.data).all()
        out.backward(np.ones(out.shape, np.float32))
        assert x.grad.dtype == np.float32 and np.isfinite(x.grad).all()
        if fn == "log_softmax":
            np.testing.assert_allclose(out.data[0], [0, -2000, -1000])

    def test_logsumexp_of_minus_inf(self):
        x = T([-np.inf, -np.inf])
        assert x.logsumexp().item() == -np.inf


class TestMatmul:
    rng = np.random.default_rng(3)

    @pytest.mark.parametrize("sa,sb", [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)),
                                       ((3, 4), (4, 2)), ((2, 3, 4), (4, 2)),
                                       ((3, 4), (5, 4, 2)), ((2, 1, 3, 4), (5, 4, 2)),
                                       ((5, 3, 4), (4,)), ((4,), (5, 4, 2))])
    def test_shapes(self, sa, sb):
        a, b = self.rng.standard_normal(sa), self.rng.standard_normal(sb)
        _check(lambda x, y: x @ y, np.matmul, a, b)

    def test_rmatmul_with_array(self):
        x = leaf(np.eye(2))
        y = np.ones((3, 2)) @ x
        assert isinstance(y, Tensor) and y.shape == (3, 2)

    def test_mismatch_names_both_shapes(self):
        a, b = T(np.zeros((3, 4))), T(np.zeros((5, 2)))
        with pytest.raises(ValueError, match=r"matmul: shapes \(3, 4\) and \(5, 2\).*4.*5"):
            a @ b
        with pytest.raises(ValueError, match=r"matmul.*\(2, 3, 4\) and \(3, 4, 5\)"):
            T(np.zeros((2, 3, 4))) @ T(np.zeros((3, 4, 5)))
        with pytest.raises(ValueError, match="matmul.*at least one dimension"):
            T(np.zeros((2, 2))) @ T(1.0)


class TestShapeOps:
    rng = np.random.default_rng(4)

    def test_reshape_forms(self):
        x = leaf(np.arange(12.0))
        assert x.reshape(3, 4).shape == (3, 4)
        assert x.reshape((2, -1)).shape == (2, 6)
        assert x.reshape([4, 3]).shape == (4, 3)
        same = x.view(12)  # a new node even for the same shape: renaming it leaves x alone
        assert same is not x and same.op.name == "reshape"
        same.name = "flat"
        assert x.name is None
        with pytest.raises(ValueError, match=r"reshape.*\(12,\).*\(5, -1\)|reshape.*size 12"):
            x.reshape(5, -1)

    def test_transpose_permute_swapaxes(self):
        a = self.rng.standard_normal((2, 3, 4))
        x = leaf(a)
        np.testing.assert_array_equal(x.transpose().data, a.transpose())
        np.testing.assert_array_equal(x.transpose(1, 0, 2).data, a.transpose(1, 0, 2))
        np.testing.assert_array_equal(x.permute((2, 0, 1)).data, a.transpose(2, 0, 1))
        np.testing.assert_array_equal(x.swapaxes(0, 2).data, a.swapaxes(0, 2))
        assert gradcheck(lambda t: t.permute(2, 0, 1) * 1.0, x)

    def test_squeeze_unsqueeze_expand_flatten(self):
        x = leaf(self.rng.standard_normal((3, 1)))
        assert x.squeeze().shape == (3,)
        assert x.squeeze(1).unsqueeze(0).shape == (1, 3)
        assert x.expand(3, 4).shape == (3, 4)
        assert x.expand(2, -1, 5).shape == (2, 3, 5)
        assert x.broadcast_to((2, 3, 4)).shape == (2, 3, 4)
        x.expand(2, 3, 4).sum().backward()
        np.testing.assert_array_equal(x.grad, np.full((3, 1), 8.0))
        y = leaf(np.zeros((2, 3, 4)))
        assert y.flatten().shape == (24,)
        assert y.flatten(1).shape == (2, 12)
        assert y.flatten(0, 1).shape == (6, 4)

class TestIndexing:
    def test_basic(self):
        a = np.arange(20.0).reshape(4, 5)
        x = leaf(a)
        for idx in (1, -1, (1, 2), slice(1, 3), (slice(None), -2), (Ellipsis, 0),
                    (None, 1), (slice(None, None, -1), slice(0, 5, 2))):
            np.testing.assert_array_equal(x[idx].data, a[idx])
            assert gradcheck(lambda t, i=idx: t[i], x)

    def test_repeated_indices_accumulate(self):
        x = leaf([1.0, 2.0, 3.0])
        x[[0, 0, 2, 0]].sum().backward()
        np.testing.assert_array_equal(x.grad, [3, 0, 1])
        y = leaf(np.zeros((3, 2)))
        y[T([1, 1]), T([0, 0])].sum().backward()
        np.testing.assert_array_equal(y.grad, [[0, 0], [2, 0], [0, 0]])

    def test_gather_rows_with_integer_tensor(self):
        logits = leaf(np.arange(12.0).reshape(4, 3))
        target = T([2, 0, 2, 1])
        picked = logits[minigrad.arange(4), target]
        np.testing.assert_array_equal(picked.data, [2, 3, 8, 10])

    def test_boolean_mask(self):
        a = np.array([[1.0, -2.0], [-3.0, 4.0]])
        x = leaf(a)
        y = x[x > 0]
        np.testing.assert_array_equal(y.data, [1, 4])
        y.sum().backward()
        np.testing.assert_array_equal(x.grad, [[1, 0], [0, 1]])

    def test_iteration_and_errors(self):
        x = leaf([1.0, 2.0])
        assert [t.item() for t in x] == [1.0, 2.0]
        with pytest.raises(IndexError, match=r"getitem.*\[inputs: \(2,\) float64\]"):
            x[5]
        with pytest.raises(IndexError, match="integer or bool"):
            x[np.array([0.5])]


# --- errors ------------------------------------------------------------------------------------
class TestErrors:
    def test_broadcast_mismatch_names_op_and_shapes(self):
        a, b = T(np.zeros((3, 2))), T(np.zeros((4,)))
        for fn, name in ((lambda: a + b, "add"), (lambda: a * b, "mul"), (lambda: b / a, "div"),
                         (lambda: a.maximum(b), "maximum")):
            with pytest.raises(ValueError, match=rf"{name}: shapes \(\d, ?\d?\)? and .*cannot be "
                                                 r"broadcast.*float64"):
                fn()

    @pytest.mark.parametrize("fn,kind,pattern", [
        (lambda x: x.reshape(4, 2), ValueError, r"reshape.*size 6.*\(2, 3\) float32"),
        (lambda x: x.expand(4, 3), ValueError, r"expand.*\(2, 3\).*\(4, 3\)"),
        (lambda x: x.squeeze(0), ValueError, r"squeeze.*\(2, 3\)"),
        (lambda x: x.unsqueeze(5), IndexError, r"unsqueeze.*axis 5"),
        (lambda x: x.flatten(1, 0), ValueError, r"flatten: start_dim"),
        (lambda x: x.permute(0), ValueError, r"transpose.*\(2, 3\)"),
        (lambda x: x.pad((1, 1, 1)), ValueError, r"pad: pad_width"),
        (lambda x: x.softmax(axis=2), ValueError, r"softmax: axis 2.*\(2, 3\)"),
        (lambda x: x.leaky_relu("a"), TypeError, r"leaky_relu"),
        (lambda x: x.clip(), ValueError, r"clip"),
        (lambda x: minigrad.stack([x, x.T]), ValueError, r"stack.*\(2, 3\) float32, \(3, 2\)"),
    ])
    def test_shape_op_errors_name_op_and_shapes(self, fn, kind, pattern):
        with pytest.raises(kind, match=pattern):
            fn(minigrad.zeros(2, 3, requires_grad=True))

    def test_mixing_engines(self):
        with pytest.raises(TypeError, match="Value"):
            T([1.0]) + minigrad.Value(1.0)

    def test_unsupported_operand(self):
        with pytest.raises(TypeError, match="mul: unsupported operand.*str"):
            T([1.0]) * "a"

    def test_backward_on_non_scalar(self):
        x = T([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="non-scalar"):
            (x * 2).backward()


# --- graph behaviour -----------------------------------------------------------------------------
class TestGraph:
    def test_node_records_op_parents_attrs(self):
        x = minigrad.ones(2, 3, requires_grad=True, name="x")
        s = x.sum(axis=1, keepdims=True)
        assert s.op.name == "sum" and s.op.engine == "tensor" and s.parents == (x,)
        assert s.attrs == {"axis": 1, "keepdims": True}  # the op's settings, nothing else
        assert s.in_shapes == ((2, 3),) and s.shape == (2, 1)
        assert s.in_dtypes == (np.float32,) and s.dtype == np.float32
        assert s.saved == ((2, 3),)  # sum's backward needs only the input's shape
        assert s.op.display(s.attrs) == "Σ(axis=1, keepdims)"
        y = x * x
        assert y.parents == (x, x) and y.in_shapes == ((2, 3), (2, 3))
        assert y.attrs is None  # an op without settings
        assert x.in_shapes == () and x.in_dtypes == ()  # a leaf has no op

    def test_no_graph_without_grad(self):
        x = T([1.0, 2.0])
        y = x * 2
        assert y.op is None and not y.requires_grad and y.parents == ()
        w = T([1.0], requires_grad=True)
        with no_grad():
            z = (w * 2).sum()
        assert z.op is None and not z.requires_grad

    def test_accumulation_and_zero_grad(self):
        x = T([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        np.testing.assert_array_equal(x.grad, [5, 7])
        x.zero_grad()
        assert x.grad is None

    def test_shared_subexpression_three_uses(self):
        x = T(2.0, requires_grad=True)
        y = x * 1.0
        z = y + y + y  # y feeds three edges
        z.backward()
        assert x.grad.item() == 3.0 and isinstance(x.grad, np.ndarray)

    def test_zero_d_grads_are_arrays(self):
        x = leaf(2.0)
        y = x.exp() * x + x.tanh() - x
        y.backward()
        assert isinstance(x.grad, np.ndarray) and x.grad.shape == ()

    def test_retain_graph(self):
        x = T([1.0, 2.0], requires_grad=True)
        y = (x.tanh() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        with pytest.raises(minigrad.GraphReleasedError):
            y.backward()

    def test_graph_freed_by_refcounting(self):
        x = T(np.ones((3, 3)), requires_grad=True)
        gc.disable()
        try:
            h = x
            for _ in range(5):
                h = (h @ x).tanh().softmax() * 2 + h[0]
            loss = h.sum()
            probe = weakref.ref(h)
            probe_op = weakref.ref(loss.parents[0])
            loss.backward()
            del h, loss
            assert probe() is None and probe_op() is None
        finally:
            gc.enable()

    def test_function_graph_freed(self):
        class Double(minigrad.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                ctx.scale = 2.0
                return a.data * 2

            @staticmethod
            def backward(ctx, g):
                return g * ctx.scale

        x = T([1.0], requires_grad=True)
        gc.disable()
        try:
            y = Double.apply(x)
            probe = weakref.ref(y)
            probe_ctx = weakref.ref(y.attrs["ctx"])
            y.sum().backward()
            del y
            assert probe() is None and probe_ctx() is None
        finally:
            gc.enable()

    def test_trace_recorder_sees_tensor_contributions(self):
        x = T([1.0, 2.0], requires_grad=True)
        with minigrad.record() as tape:
            y = (x * x).sum()
        tape.backward(y)
        contributions = [e for e in tape if e.kind == "contribute"]
        assert len(contributions) == 3  # sum -> mul, mul -> x twice

    def test_every_registered_op_has_a_symbol(self):
        for op in registered_ops("tensor"):
            assert op.symbol and op.name


class TestFits:
    """``Node.grads_fit_inputs``: an elementwise node that broadcast and promoted nothing, whose
    gradients backward adds in unchecked.  Everything else is checked edge by edge;
    both paths must give the same gradients, dtypes and ownership."""

    def test_which_nodes_fit(self):
        a = leaf(np.ones((2, 3)), np.float32)
        b = leaf(np.ones((2, 3)), np.float32)
        bias = leaf(np.ones(3), np.float32)
        assert (a * b).grads_fit_inputs and (a - b).tanh().grads_fit_inputs
        assert (-a).grads_fit_inputs
        assert (a * 2.0).grads_fit_inputs  # the constant is broadcast, not a
        assert (1 - a).grads_fit_inputs
        assert not (a + bias).grads_fit_inputs  # bias gets a gradient that must be summed down
        assert not (a * leaf(np.ones((2, 3)))).grads_fit_inputs  # float32 * float64: promoted
        assert not (a @ leaf(np.ones((3, 3)), np.float32)).grads_fit_inputs  # not elementwise
        assert not a.sum().grads_fit_inputs  # general ops: checked
        assert not a.leaky_relu().grads_fit_inputs
        assert not a.grads_fit_inputs  # a leaf
        with no_grad():
            assert not (a * b).grads_fit_inputs

    @pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv", "pow", "maximum",
                                      "minimum"])
    def test_binary_fast_path_matches_the_checked_path(self, name):
        from minigrad.tensor import apply_op

        rng = np.random.default_rng(0)
        op = {"truediv": "div"}.get(name, name)
        fn = getattr(Tensor, f"__{name}__" if name not in ("maximum", "minimum") else name)
        av, bv = rng.uniform(0.5, 2.0, (2, 3, 4))
        grads = []
        for fast in (True, False):
            a = leaf(av, np.float32)
            b = leaf(bv, np.float32)
            out = fn(a, b) if fast else apply_op(minigrad.autograd.get_op(op, "tensor"), a, b)
            assert out.grads_fit_inputs is fast
            (out * out).sum().backward()
            grads.append((a.grad, b.grad))
            assert a.grad.dtype == b.grad.dtype == np.float32
        for fast_grad, checked_grad in zip(*grads):
            np.testing.assert_allclose(fast_grad, checked_grad, rtol=1e-6)

    def test_leaves_never_share_the_gradient_add_passes_through(self):
        a = leaf([1.0, 2.0], np.float32)
        b = leaf([3.0, 4.0], np.float32)
        s = a + b
        s.backward(np.ones(2, np.float32))
        assert a.grad is not b.grad and a.grad is not s.grad and b.grad is not s.grad
        a.grad *= 10  # the user's to change in place: nothing else moves
        np.testing.assert_array_equal(b.grad, [1.0, 1.0])
        np.testing.assert_array_equal(s.grad, [1.0, 1.0])

    def test_a_leaf_reached_twice_adds_up(self):
        x = leaf([1.0, 2.0], np.float32)
        (x + x + x * x).sum().backward()
        np.testing.assert_allclose(x.grad, [4.0, 6.0])  # 1 + 1 + 2x
        y = (x * x).tanh()
        y.sum().backward(retain_graph=True)
        first = x.grad.copy()
        y.sum().backward()  # leaves accumulate across passes, fast path or not
        np.testing.assert_allclose(x.grad, first + (first - [4.0, 6.0]), rtol=1e-6)

    def test_zero_d_fast_path_gives_arrays(self):
        x = leaf(2.0, np.float32)
        y = (x * x).tanh() + x
        assert y.grads_fit_inputs
        y.backward()
        assert isinstance(x.grad, np.ndarray) and x.grad.shape == () and x.grad.dtype == np.float32


# --- in-place updates ---------------------------------------------------------------


def test_inplace_update_under_no_grad_keeps_the_same_leaf():
    w = Tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    same = w
    with no_grad():
        w -= 0.5 * w.grad
    assert w is same and w.is_leaf and w.requires_grad and w.dtype == np.float32
    np.testing.assert_allclose(w.data, [0.0, 0.0])
    with no_grad():
        w += 1
        w *= 3
        w /= 2
    np.testing.assert_allclose(w.data, [1.5, 1.5])


def test_inplace_on_a_leaf_that_requires_grad_with_grad_on_is_refused():
    w = Tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="no_grad"):
        w -= 1.0


def test_inplace_on_a_non_leaf_makes_a_new_node():
    # ``h += 1`` on an op's output is ``h = h + 1``: exp saved its output, which must
    # not change under it, and the ResNet idiom ``out += skip`` keeps working.
    w = Tensor([1.0], requires_grad=True)
    h = w.exp()
    old = h
    h += 1
    assert h is not old and h.op.name == "add"
    np.testing.assert_allclose(old.data, np.exp([1.0]), rtol=1e-6)
    h.sum().backward()
    np.testing.assert_allclose(w.grad, np.exp([1.0]), rtol=1e-6)
    loss = 0
    for k in range(3):
        loss += (w * k).sum()
    w.grad = None
    loss.backward()
    np.testing.assert_allclose(w.grad, [3.0])


def test_inplace_shape_and_dtype_errors():
    t = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"shape \(4,\).*shape \(2, 3\)"):
        t += np.ones(4)
    with pytest.raises(ValueError, match=r"shape \(3, 3\)"):
        t += np.ones((3, 3))
    i = Tensor(np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="cannot store a float"):
        i += 0.5
    t += np.ones(3)  # broadcasting into the tensor's own shape is fine
    assert t.data.sum() == 6.0 and t.dtype == np.float32
