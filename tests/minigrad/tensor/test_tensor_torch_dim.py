"""PyTorch's ``dim=``/``keepdim=`` name the same reductions as numpy's ``axis=``/``keepdims=``
(``x.sum(dim=1, keepdim=True)``, ``F.softmax(x, dim=-1)``, ``x.argmax(dim=1)``): the values
and gradients PyTorch gives, and one clear error when both names are given."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor

X = np.random.default_rng(0).standard_normal((3, 4))


def _pair(method, torch_method=None, **kw):
    """(ours, theirs): the method's value and the gradient of its sum, minigrad and torch."""
    torch = pytest.importorskip("torch")
    x = Tensor(X.copy(), requires_grad=True)
    t = torch.tensor(X.copy(), requires_grad=True)
    ours = method(x, **kw)
    theirs = (torch_method or method)(t, **kw)
    ours.sum().backward()
    theirs.sum().backward()
    return (ours.data, x.grad), (theirs.detach().numpy(), t.grad.numpy())


@pytest.mark.parametrize("name, kw", [
    ("sum", {"dim": 1}), ("sum", {"dim": 0, "keepdim": True}), ("sum", {"dim": (0, 1)}),
    ("mean", {"dim": 1}), ("mean", {"dim": -1, "keepdim": True}),
    ("logsumexp", {"dim": 1}), ("logsumexp", {"dim": 0, "keepdim": True}),
    ("softmax", {"dim": 0}), ("log_softmax", {"dim": 1}),
])
def test_reductions_take_dim_and_keepdim_as_pytorch_does(name, kw):
    (v, g), (tv, tg) = _pair(lambda x, **k: getattr(x, name)(**k), **kw)
    np.testing.assert_allclose(v, tv, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_functional_softmax_takes_dim(name):
    torch = pytest.importorskip("torch")
    ours = getattr(F, name)(Tensor(X), dim=0).data
    theirs = getattr(torch.nn.functional, name)(torch.tensor(X), dim=0).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert np.array_equal(getattr(F, name)(Tensor(X)).data, getattr(F, name)(Tensor(X), -1).data)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_and_argmin_take_dim_and_keepdim(name):
    torch = pytest.importorskip("torch")
    ours = getattr(Tensor(X), name)(dim=1, keepdim=True).data
    theirs = getattr(torch.tensor(X), name)(dim=1, keepdim=True).numpy()
    np.testing.assert_array_equal(ours, theirs)


def test_axis_and_dim_together_are_refused():
    x = Tensor(X)
    for call in (lambda: x.sum(axis=0, dim=1), lambda: x.mean(1, dim=1),
                 lambda: x.softmax(0, dim=1), lambda: F.log_softmax(x, 0, dim=0),
                 lambda: x.argmax(axis=0, dim=0)):
        with pytest.raises(TypeError, match=r"give axis= \(numpy's name\) or dim= "
                                            r"\(PyTorch's\), not both"):
            call()


def test_numpy_names_are_unchanged():
    x = Tensor(X)
    assert np.array_equal(x.sum(1, True).data, x.sum(dim=1, keepdim=True).data)
    assert np.array_equal(x.mean(axis=0).data, x.mean(dim=0).data)
    assert x.softmax().data.shape == (3, 4)
