"""``vmap``'s errors: each names the problem in the user's terms (which argument, which
size, what to write instead), never a traceback from deep inside numpy."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, Value
from minigrad.batching import BatchingError, BatchingFallbackWarning
from minigrad.func import vmap
from minigrad.nn import functional as F


def _xs(*shape):
    return Tensor(np.random.default_rng(0).standard_normal(shape))


def test_batch_sizes_that_differ_name_each_argument_and_its_size():
    def f(x, y):
        return x + y

    with pytest.raises(ValueError) as err:
        vmap(f)(_xs(3, 2), _xs(4, 2))
    assert "argument 0 ('x') has size 3" in str(err.value)
    assert "argument 1 ('y') has size 4" in str(err.value)


def test_sizes_along_different_in_dims_are_compared():
    with pytest.raises(ValueError, match=r"argument 1 .* has size 2"):
        vmap(lambda x, y: x + y, in_dims=(0, 1))(_xs(3, 2), _xs(3, 2))


def test_in_dims_that_do_not_match_the_arguments():
    with pytest.raises(ValueError, match="in_dims has 1 entries but the function got 2"):
        vmap(lambda x, y: x, in_dims=(0,))(_xs(3), _xs(3))
    with pytest.raises(ValueError, match="in_dims for argument 0 .* has 3 entries but the "
                                         "argument has 2"):
        vmap(lambda p: p[0], in_dims=((0, 0, 0),))((_xs(3), _xs(3)))
    with pytest.raises(ValueError, match="is a tuple but the argument is a Tensor"):
        vmap(lambda p: p, in_dims=((0, 0),))(_xs(3))
    with pytest.raises(ValueError, match=r"in_dim 2 for argument 0 .* out of range: it has "
                                         r"shape \(3, 2\)"):
        vmap(lambda x: x, in_dims=2)(_xs(3, 2))
    with pytest.raises(TypeError, match="is a float, not a Tensor, but its in_dim is 0"):
        vmap(lambda x, s: x * s, in_dims=(0, 0))(_xs(3), 2.0)
    with pytest.raises(ValueError, match="no input is mapped"):
        vmap(lambda x: x, in_dims=None)(_xs(3))


def test_a_value_argument_is_refused_with_a_hint():
    with pytest.raises(TypeError, match="is a Value .* vmap maps over Tensors"):
        vmap(lambda v: v * 2)(Value(1.0))


def test_a_random_op_under_randomness_error_and_same():
    xs = Tensor(np.ones((4, 50)))
    with pytest.raises(BatchingError, match="randomness='error'.*randomness='same'"):
        vmap(lambda x: F.dropout(x, 0.5, training=True))(xs)
    out = vmap(lambda x: F.dropout(x, 0.5, training=True), randomness="same")(xs)
    assert all((out.data[i] == out.data[0]).all() for i in range(4))  # one shared mask
    with pytest.raises(ValueError, match="randomness must be one of"):
        vmap(lambda x: x, randomness="sometimes")


def test_an_in_place_update_of_an_unbatched_tensor_by_a_batch():
    w = Tensor(np.zeros(3))

    def f(x, w):
        w += x
        return w

    with pytest.raises(BatchingError, match="in-place add writes a batched value .* not "
                                            "batched"):
        vmap(f, in_dims=(0, None))(_xs(4, 3), w)
    assert (w.data == 0).all()


def test_an_in_place_update_of_a_batched_input_writes_each_example():
    xs = _xs(4, 3)
    before = xs.data.copy()

    def f(x):
        x += 1.0
        return x * 2

    out = vmap(f)(xs)
    np.testing.assert_allclose(out.data, 2 * (before + 1))


def test_python_control_flow_on_a_batched_value_suggests_where():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(BatchingError, match=r"Python control flow .* where\(cond, a, b\)"):
        vmap(f)(_xs(4, 3))


@pytest.mark.parametrize("read", [lambda t: t.item(), float, lambda t: np.asarray(t),
                                  lambda t: t.tolist()],
                         ids=["item", "float", "asarray", "tolist"])
def test_reading_a_batched_value_into_python_is_an_error(read):
    with pytest.raises(BatchingError, match="batch"):
        vmap(lambda x: read(x.sum()) and x)(_xs(4, 3))


def test_a_non_tensor_output_is_an_error():
    with pytest.raises(TypeError, match=r"must return Tensors .* but the output\[1\] is a "
                                        "float"):
        vmap(lambda x: (x, 1.0))(_xs(4, 3))


def test_out_dims_that_do_not_fit():
    with pytest.raises(ValueError, match="out_dims is None .* differs from example to example"):
        vmap(lambda x: x, out_dims=None)(_xs(4, 3))
    with pytest.raises(ValueError, match="out_dims 3 is out of range"):
        vmap(lambda x: x, out_dims=3)(_xs(4, 3))
    with pytest.raises(ValueError, match="out_dims has 1 entries but the function returned 2"):
        vmap(lambda x: (x, x), out_dims=(0,))(_xs(4, 3))


def test_chunk_size_must_be_a_positive_int():
    with pytest.raises(ValueError, match="chunk_size must be a positive int"):
        vmap(lambda x: x, chunk_size=0)


def test_a_numpy_function_with_no_rule_runs_per_example_and_warns_naming_it():
    xs = np.random.default_rng(1).standard_normal((4, 5))
    with pytest.warns(BatchingFallbackWarning, match="np.median has no batching rule"):
        out = vmap(lambda x: Tensor(np.median(x.data)) * x)(Tensor(xs))
    np.testing.assert_allclose(out.data, np.median(xs, axis=1, keepdims=True) * xs)


def test_backward_inside_vmap_points_to_the_transforms():
    w = Tensor(np.ones(3), requires_grad=True)

    def f(x):
        (x * w).sum().backward()
        return x

    with pytest.raises(RuntimeError, match=r"backward\(\) inside vmap.*vmap\(minigrad.func.grad"):
        vmap(f)(_xs(4, 3))
    assert w.grad is None


def test_printing_a_batched_tensor_shows_every_example():
    shown = []
    vmap(lambda x: shown.append(repr(x)) or x)(Tensor(np.arange(6.0).reshape(2, 3)))
    assert shown[0].startswith("tensor(batched([[0.0000, 1.0000, 2.0000],")
    assert "examples of shape (3,)" in shown[0]


def test_numpy_of_a_batched_tensor_is_an_error():
    with pytest.raises(BatchingError, match="np.asarray"):
        vmap(lambda x: x.numpy() and x)(_xs(2, 3))


def test_dropout_under_randomness_different_draws_a_mask_per_example():
    from minigrad.func import value_and_grad

    xs = Tensor(np.ones((4, 60)))
    drop = lambda x: F.dropout(x, 0.5, training=True).sum()  # noqa: E731
    out, g = vmap(value_and_grad(drop), randomness="different")(xs)
    masks = g.data  # d(sum(x·m))/dx = m: the mask each example used
    assert set(np.unique(masks)) <= {0.0, 2.0}
    assert len({m.tobytes() for m in masks}) == 4  # four different masks
    np.testing.assert_allclose(out.data, masks.sum(1))  # the forward used the same ones
