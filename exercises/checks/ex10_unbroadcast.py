"""Checks for exercise 10: every kind of broadcast pairing, against minigrad's
``unbroadcast`` and the definition (the gradient of a broadcast sum)."""

import numpy as np

from minigrad.core.accumulate import unbroadcast as reference_unbroadcast

from ._support import call, expect_array, expect_close, fail, rng_for

# (shape of grad = broadcast result, shape of the input that was broadcast)
PAIRS = [
    ((2, 3), (2, 3)),  # nothing to do
    ((4, 3), (3,)),  # a leading axis added: a bias added to a batch
    ((4, 3), (1, 3)),  # a size-1 axis stretched
    ((4, 3), (4, 1)),  # a size-1 column stretched
    ((2, 3, 4), (3, 1)),  # both kinds at once
    ((2, 3, 4), (2, 1, 4)),  # a size-1 axis in the middle
    ((2, 3, 4), (1, 1, 1)),
    ((5,), ()),  # a 0-d scalar broadcast to a vector
    ((2, 3), ()),
    ((3, 1), (1,)),  # an axis of size 1 in grad too: nothing to sum there
    ((2, 1, 5), (1, 1, 5)),
]


def _by_definition(grad, shape):
    """The gradient of sum(grad * broadcast_to(x, grad.shape)) with respect to x."""
    x_grad = np.zeros(shape)
    view = np.broadcast_to(np.arange(int(np.prod(shape, dtype=int))).reshape(shape), grad.shape)
    np.add.at(x_grad.reshape(-1), view.reshape(-1), grad.reshape(-1))
    return x_grad


def check_unbroadcast(unbroadcast):
    rng = rng_for("ex10.unbroadcast")
    for grad_shape, shape in PAIRS:
        grad = rng.standard_normal(grad_shape)
        before = grad.copy()
        context = f"unbroadcast(grad of shape {grad_shape}, shape={shape})"
        got = call(unbroadcast, "unbroadcast", {"grad": grad, "shape": shape}, context=context)
        if shape == () and isinstance(got, np.generic):
            got = np.asarray(got)  # a numpy scalar is a fine 0-d answer
        hint = None
        if isinstance(got, np.ndarray) and got.shape != shape:
            if got.size == int(np.prod(shape)):
                hint = ("the numbers may be right but the shape is not: keep the size-1 axes "
                        "(sum(..., keepdims=True)) or reshape to `shape`")
            elif got.ndim > len(shape):
                hint = f"sum over the {got.ndim - len(shape)} leading axes broadcasting added"
            elif got.ndim == len(shape):
                hint = "sum over the axes where `shape` has size 1, with keepdims=True"
        expect_array(got, shape, what="the result", context=context, hint=hint)
        want = reference_unbroadcast(before.copy(), shape)
        assert np.allclose(want, _by_definition(before, shape))
        expect_close(got, want, what="the result", context=context,
                     hint="sum over the added leading axes, then over the size-1 axes")
        if not np.array_equal(grad, before):
            fail(f"{context} changed grad in place", "compute a new array; do not write into grad")
