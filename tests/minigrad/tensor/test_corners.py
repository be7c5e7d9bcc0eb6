"""Corners of the tensor engine found by a review against PyTorch's behaviour.

Each test pins one rule a student could trip over: gradients that must not share memory,
dtypes that must not widen, and errors that must name the problem.  (Stale saved arrays
after an in-place change are ``tests/minigrad/engines/test_inplace.py``'s.)
"""

import warnings

import numpy as np
import pytest

import minigrad as mg


def f32(*vals):
    return mg.Tensor(np.array(vals, dtype=np.float32), requires_grad=True)


# --- a leaf's .grad is its own array -------------------------------------------------
class TestGradientsDoNotAlias:
    def test_custom_function_returning_one_array_for_two_inputs(self):
        class Add(mg.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a.data + b.data

            @staticmethod
            def backward(ctx, g):
                g2 = g * 1.0
                return g2, g2

        a, b = f32(1.0, 2.0), f32(3.0, 4.0)
        Add.apply(a, b).sum().backward()
        assert not np.shares_memory(a.grad, b.grad)
        a.grad += 1
        np.testing.assert_allclose(b.grad, [1.0, 1.0])

    def test_custom_function_returning_a_saved_input(self):
        class Odd(mg.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.data * 1

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return x  # a (wrong, but legal) gradient that *is* the input's data

        x = f32(1.0, 2.0)
        Odd.apply(x).sum().backward()
        assert not np.shares_memory(x.grad, x.data)

    def test_backward_on_a_leaf_with_a_given_gradient(self):
        x = f32(1.0, 2.0)
        upstream = np.ones(2, dtype=np.float32)
        x.backward(upstream)
        upstream[0] = 99
        np.testing.assert_allclose(x.grad, [1.0, 1.0])


class TestCustomFunctionShapes:
    def test_a_gradient_of_the_wrong_shape_names_the_function(self):
        class Bad(mg.Function):
            @staticmethod
            def forward(ctx, x):
                return x.data * 2

            @staticmethod
            def backward(ctx, g):
                return np.ones(5)

        with pytest.raises(ValueError, match=r"Bad.backward.*shape \(5,\).*input 0.*\(2,\)"):
            Bad.apply(f32(1.0, 2.0)).sum().backward()

    def test_a_broadcast_shaped_gradient_is_summed_down(self):
        class Spread(mg.Function):
            @staticmethod
            def forward(ctx, b):
                return np.broadcast_to(b.data, (3, 2)).copy()

            @staticmethod
            def backward(ctx, g):
                return g  # shape (3, 2) for an input of shape (2,)

        b = f32(1.0, 2.0)
        Spread.apply(b).sum().backward()
        np.testing.assert_allclose(b.grad, [3.0, 3.0])


# --- dtypes: what does not widen float32 ---------------------------------------------
class TestPromotion:
    def test_numpy_scalars_are_numbers(self):
        q = mg.randn(4, 8, requires_grad=True)
        assert ((q @ q.T) / np.sqrt(8)).dtype == np.float32
        assert (q * np.float64(2)).dtype == np.float32
        assert (np.float64(2) - q).dtype == np.float32
        assert (q + np.int64(1)).dtype == np.float32

    def test_a_0d_float64_tensor_does_not_widen_a_matrix(self):
        q = mg.randn(3, 2, requires_grad=True)
        s = mg.Tensor(np.float64(2.0), requires_grad=True)
        out = q * s
        assert out.dtype == np.float32
        out.sum().backward()
        assert q.grad.dtype == np.float32 and s.grad.dtype == np.float64
        np.testing.assert_allclose(s.grad, q.data.sum(), rtol=1e-5)
        np.testing.assert_allclose(q.grad, np.full((3, 2), 2.0))

    def test_two_tensors_with_dimensions_follow_numpy(self):
        a = mg.Tensor(np.ones(2, dtype=np.float32))
        b = mg.Tensor(np.ones(2, dtype=np.float64))
        assert (a + b).dtype == np.float64

    def test_clip_keeps_ints_with_int_bounds_and_gives_float32_with_float_bounds(self):
        t = mg.Tensor([1, 5])
        assert t.clip(0, 3).dtype == np.int64
        np.testing.assert_array_equal(t.clip(0, 3).data, [1, 3])
        out = t.clip(0.5, 1.5)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out.data, [1.0, 1.5])


class TestClipBounds:
    def test_constant_tensor_and_array_bounds(self):
        x = mg.Tensor(np.array([[-2.0, 0.5, 3.0]], dtype=np.float32), requires_grad=True)
        lo = mg.zeros(1, 3)
        hi = np.array([1.0, 1.0, 2.0])  # float64 bounds do not promote the tensor
        y = x.clip(lo, hi)
        assert y.dtype == np.float32
        np.testing.assert_allclose(y.data, [[0.0, 0.5, 2.0]])
        y.sum().backward()
        np.testing.assert_allclose(x.grad, [[0.0, 1.0, 0.0]])

    def test_bad_bounds_say_what_is_wrong(self):
        x = mg.randn(2, 3)
        with pytest.raises(ValueError, match=r"clip: a bound of shape \(4,\).*\(2, 3\)"):
            x.clip(np.zeros(4), 1)
        with pytest.raises(TypeError, match="clip: a bound that requires grad"):
            x.clip(mg.zeros(3, requires_grad=True), 1)
        with pytest.raises(TypeError, match="clip: expected a number"):
            x.clip("low", 1)


# --- small API corners ---------------------------------------------------------------
def test_empty_list_index_selects_nothing():
    x = mg.randn(2, 3, requires_grad=True)
    assert x[[]].shape == (0, 3)
    x[[]].sum().backward()
    np.testing.assert_array_equal(x.grad, np.zeros((2, 3)))


@pytest.mark.parametrize("make", [mg.randn, mg.rand, mg.zeros, mg.ones])
def test_negative_sizes_are_a_clear_error(make):
    with pytest.raises(ValueError, match=r"sizes must be >= 0, got shape \(2, -1\)"):
        make(2, -1)


def test_reshape_to_the_same_shape_is_a_new_tensor():
    x = mg.randn(2, 3, requires_grad=True)
    y = x.reshape(2, 3)
    y.name = "y"
    assert y is not x and x.name is None
    (y * 2).sum().backward()
    np.testing.assert_allclose(x.grad, np.full((2, 3), 2.0))


def test_dividing_integers_gives_float32():
    a = mg.Tensor([1, 2, 3])
    assert (a / 2).dtype == np.float32
    np.testing.assert_allclose((a / mg.Tensor([2, 4, 3])).data, [0.5, 0.5, 1.0])
    accuracy = (mg.Tensor([1, 0, 1]) == 1).sum() / 3  # a bool count over an int
    assert accuracy.dtype == np.float32
    assert (mg.Tensor(np.array([1.0], dtype=np.float64)) / 2).dtype == np.float64


def test_leaky_relu_of_integers_is_float32():
    out = mg.Tensor([-10, 2]).leaky_relu(0.1)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.data, [-1.0, 2.0])


def test_clip_with_an_array_bound_labels_it_by_shape():
    x = mg.randn(3, requires_grad=True)
    y = x.clip(np.zeros(3), 1.0)
    assert y.op.display(y.attrs) == "clip[array(3,), 1.0]"


def test_value_pow_zero_has_zero_gradient_at_zero():
    v = mg.Value(0.0, requires_grad=True)
    (v**0).backward()
    assert v.grad == 0.0


def test_an_identity_transpose_warns_and_points_to_swapaxes():
    x = mg.randn(2, 3)
    with pytest.warns(UserWarning, match=r"transpose\(0, 1\) keeps every axis.*swapaxes"):
        y = x.transpose(0, 1)
    assert y.shape == (2, 3)
    with pytest.raises(ValueError, match=r"use swapaxes\(dim0, dim1\)"):
        mg.randn(2, 3, 4).transpose(0, 1)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_numpy_reductions_on_a_tensor_record_the_op(name):
    t = mg.Tensor(np.array([[1.0, 5.0, 2.0], [4.0, 3.0, 0.5]], dtype=np.float32),
                  requires_grad=True)
    r = getattr(np, name)(t, axis=0)  # numpy defers to t.<name>(axis=..., out=None, ...)
    assert isinstance(r, mg.Tensor) and r.op.name == name
    np.testing.assert_allclose(r.data, getattr(np, name)(t.data, axis=0))
    r.sum().backward()
    assert t.grad.shape == (2, 3)
    with pytest.raises(TypeError, match=f"{name}: out= is not supported"):
        getattr(np, name)(t, out=np.zeros(3, dtype=np.float32), axis=0)


def test_np_sum_with_a_dtype_casts_first():
    t = mg.randn(3, requires_grad=True)
    r = np.sum(t, dtype=np.float64)
    assert r.dtype == np.float64
    r.backward()
    assert t.grad.dtype == np.float32


# --- found by differential fuzzing against PyTorch -----------------------------------
def test_a_0d_leaf_used_with_vectors_accumulates_every_use():
    # unbroadcast's fast path summed to a numpy scalar, and `+=` on it was lost
    a = np.array([1.0, 2.0])
    x = mg.Tensor(np.array(1.0), requires_grad=True)
    ((x * a).sum() + (x * a).sum() + (x * a).sum()).backward()
    assert isinstance(x.grad, np.ndarray) and x.grad.shape == ()
    np.testing.assert_allclose(x.grad, 9.0)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "logsumexp", "var"])
@pytest.mark.parametrize("axis", [0, -1, (0,)])
def test_reducing_a_0d_tensor_over_an_axis_keeps_its_value(name, axis):
    x = mg.Tensor(np.array(1.5), requires_grad=True)
    r = getattr(x, name)(axis=axis)
    assert r.shape == ()
    r.backward()
    expected_value, expected_grad = (0.0, 0.0) if name == "var" else (1.5, 1.0)
    np.testing.assert_allclose(r.data, expected_value)
    np.testing.assert_allclose(x.grad, expected_grad)


def test_variance_with_no_degrees_of_freedom_is_nan_not_a_crash():
    y = mg.Tensor([[1.0], [2.0]], requires_grad=True)
    with warnings.catch_warnings():  # numpy: "Degrees of freedom <= 0 for slice"
        warnings.simplefilter("ignore", RuntimeWarning)
        v = y.var(axis=1, ddof=1)
    assert np.isnan(v.data).all()
    v.sum().backward()
    assert y.grad.dtype == np.float32 and np.isnan(y.grad).all()


def test_reductions_over_empty_tensors():
    z = mg.zeros(0, 3, requires_grad=True)
    for out, shape in ((z.softmax(axis=0), (0, 3)), (z.log_softmax(axis=0), (0, 3)),
                       (z.max(axis=1), (0,)), (z.min(axis=-1), (0,)),
                       (z.logsumexp(axis=1), (0,))):
        assert out.shape == shape
        z.grad = None
        out.sum().backward()
        assert z.grad.shape == (0, 3)
    lse = z.logsumexp(axis=0)  # log of an empty sum
    np.testing.assert_array_equal(lse.data, [-np.inf] * 3)
    with pytest.raises(ValueError, match="an empty slice has no maximum"):
        z.max(axis=0)


def test_matmul_with_an_empty_inner_axis():
    a = mg.zeros(2, 0, requires_grad=True)
    b = mg.zeros(0, requires_grad=True)
    (a @ b).sum().backward()
    assert a.grad.shape == (2, 0) and b.grad.shape == (0,)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_of_a_0d_tensor_gives_an_array_gradient(name):
    x = mg.Tensor(np.array(-1.0), requires_grad=True)
    getattr(x, name)().backward(np.array(2.0))
    assert isinstance(x.grad, np.ndarray) and x.grad.shape == ()
    np.testing.assert_allclose(x.grad, 0.0)  # the output is constant (1, or log 1)
