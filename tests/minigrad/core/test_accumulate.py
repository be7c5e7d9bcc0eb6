"""``unbroadcast``: the backward of numpy broadcasting (``core/accumulate.py``)."""


import numpy as np
import pytest

from minigrad.autograd import unbroadcast


@pytest.mark.parametrize(
    "grad_shape, shape",
    [((2, 3, 4), (3, 1)), ((5, 3), (3,)), ((3, 4), ()), ((3, 4), (1, 4)), ((3, 4), (3, 4))],
)
def test_unbroadcast_sums_broadcast_axes(grad_shape, shape):
    rng = np.random.default_rng(0)
    g = rng.standard_normal(grad_shape)
    out = unbroadcast(g, shape)
    assert out.shape == shape
    # the adjoint identity: <g, broadcast(x)> == <unbroadcast(g), x>
    x = rng.standard_normal(shape)
    assert np.sum(g * np.broadcast_to(x, grad_shape)) == pytest.approx(np.sum(out * x))


def test_unbroadcast_rejects_impossible_shapes():
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(2, 4\)"):
        unbroadcast(np.ones((3, 4)), (2, 4))
