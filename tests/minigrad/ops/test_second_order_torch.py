"""Second derivatives of the conv, pooling and GELU ops against PyTorch's double backward
(skipped when torch is not installed)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor
from minigrad.autograd import grad

torch = pytest.importorskip("torch")
tF = torch.nn.functional


@pytest.mark.parametrize("stride,padding,pool", [(1, 0, 2), ((1, 2), 1, 3), (2, (1, 0), 2)])
def test_a_gradient_penalty_through_conv_gelu_and_max_pool_matches_torch(stride, padding, pool):
    """d/dθ ‖∂L/∂(x, w)‖² for L = Σ pool(gelu(conv(x, w, b)))³: a Hessian-vector product."""
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(2, 3, 8, 7)), rng.normal(size=(4, 3, 3, 3)), rng.normal(size=4)]
    ours = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]

    x, w, b = ours
    y = F.max_pool2d(F.gelu(F.conv2d(x, w, b, stride, padding)), pool, stride=2, padding=1)
    gx, gw = grad((y * y * y).sum(), [x, w], create_graph=True)
    mine = grad((gx * gx).sum() + (gw * gw).sum(), ours)

    tx, tw, tb = theirs
    ty = tF.max_pool2d(tF.gelu(tF.conv2d(tx, tw, tb, stride, padding)), pool, stride=2, padding=1)
    tgx, tgw = torch.autograd.grad((ty ** 3).sum(), [tx, tw], create_graph=True)
    want = torch.autograd.grad((tgx ** 2).sum() + (tgw ** 2).sum(), theirs)

    for m, t in zip(mine, want):
        np.testing.assert_allclose(m, t.numpy(), rtol=1e-9, atol=1e-9 * np.abs(t.numpy()).max())
