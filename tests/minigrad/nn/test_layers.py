"""nn's layers: forward and backward of each, train/eval modes, BatchNorm's running statistics
and momentum, seeded initialisation."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, nn
from tests.minigrad.nn.test_module import Net, images


def test_train_eval_and_dropout():
    net = Net()
    assert net.training and net.head[1].training
    assert net.eval() is net and not net.head[1].training and not net.bn.training
    x = images()
    a, b = net(x).data, net(x).data
    np.testing.assert_array_equal(a, b)  # eval: no dropout, running stats
    net.train()
    assert net.head[1].training


def test_batchnorm_running_stats_follow_training():
    bn = nn.BatchNorm1d(3)
    x = Tensor(np.random.default_rng(2).normal(5.0, 2.0, size=(256, 3)).astype(np.float32))
    for _ in range(60):
        bn(x)
    np.testing.assert_allclose(bn.running_mean, x.data.mean(0), rtol=1e-2)
    np.testing.assert_allclose(bn.running_var, x.data.var(0, ddof=1), rtol=1e-2)
    assert int(bn.num_batches_tracked) == 60
    bn.eval()
    out = bn(x).data
    np.testing.assert_allclose(out.mean(0), 0, atol=0.05)
    with pytest.raises(ValueError, match=r"BatchNorm1d\(3\): input has 4 channels"):
        bn(np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match=r"\(N, C, H, W\)"):
        nn.BatchNorm2d(3)(np.ones((2, 3), np.float32))


def test_every_layer_runs_forward_and_backward():
    x4 = Tensor(np.random.default_rng(3).normal(size=(2, 3, 6, 6)).astype(np.float32),
                requires_grad=True)
    x2 = Tensor(np.random.default_rng(4).normal(size=(5, 6)).astype(np.float32),
                requires_grad=True)
    for layer, x in [
        (nn.Conv2d(3, 2, 3, stride=2, padding=1, seed=0), x4), (nn.MaxPool2d(2), x4),
        (nn.AvgPool2d(3, stride=1), x4), (nn.Flatten(), x4), (nn.BatchNorm2d(3), x4),
        (nn.LayerNorm((6, 6)), x4), (nn.Linear(6, 4, seed=0), x2), (nn.ReLU(), x2),
        (nn.LeakyReLU(0.1), x2), (nn.Tanh(), x2), (nn.Sigmoid(), x2), (nn.GELU(), x2),
        (nn.Dropout(0.2, seed=0), x2), (nn.BatchNorm1d(6), x2), (nn.Identity(), x2),
        (nn.Softmax(axis=1), x2),
    ]:
        x.grad = None
        out = layer(x)
        assert out.dtype == np.float32, layer
        (out * out).sum().backward()
        assert x.grad is not None and x.grad.shape == x.shape, layer


# --- init ---------------------------------------------------------------------------------
def test_layers_are_reproducible_from_a_seed():
    a, b = nn.Linear(5, 4, seed=3), nn.Linear(5, 4, seed=3)
    np.testing.assert_array_equal(a.weight.data, b.weight.data)
    assert not np.array_equal(a.weight.data, nn.Linear(5, 4, seed=4).weight.data)
    minigrad.manual_seed(11)
    c = nn.Conv2d(2, 3, 3)
    minigrad.manual_seed(11)
    np.testing.assert_array_equal(c.weight.data, nn.Conv2d(2, 3, 3).weight.data)
    with pytest.raises(ValueError, match="not both"):
        nn.Linear(2, 2, rng=np.random.default_rng(0), seed=1)


# --- 2. BatchNorm momentum=None: cumulative moving average ---------------------------------
@pytest.mark.parametrize("cls, shape", [(nn.BatchNorm1d, (6, 3)), (nn.BatchNorm1d, (4, 3, 5)),
                                        (nn.BatchNorm2d, (4, 3, 2, 2))])
def test_batchnorm_momentum_none_is_a_cumulative_average(cls, shape):
    rng = np.random.default_rng(0)
    bn = cls(3, momentum=None)
    batches = [(rng.normal(size=shape) * (i + 1) + i).astype(np.float32) for i in range(4)]
    for x in batches:
        bn(Tensor(x))
    axes = tuple(a for a in range(len(shape)) if a != 1)
    np.testing.assert_allclose(bn.running_mean, np.mean([x.mean(axes) for x in batches], 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var,
                               np.mean([x.var(axes, ddof=1) for x in batches], 0), rtol=1e-5)
    assert int(bn.num_batches_tracked) == 4
    bn.eval()
    bn(Tensor(batches[0]))  # eval uses the statistics and leaves them alone
    assert int(bn.num_batches_tracked) == 4


@pytest.mark.parametrize("ours, theirs, shape", [("BatchNorm1d", "BatchNorm1d", (5, 3)),
                                                 ("BatchNorm2d", "BatchNorm2d", (4, 3, 2, 2))])
def test_batchnorm_momentum_none_matches_torch(ours, theirs, shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    bn, tbn = getattr(nn, ours)(3, momentum=None), getattr(torch.nn, theirs)(3, momentum=None)
    for i in range(5):
        x = (rng.normal(size=shape) * (i + 1) + i).astype(np.float32)
        y, ty = bn(Tensor(x)), tbn(torch.tensor(x))
        np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean, tbn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var, tbn.running_var.numpy(), rtol=1e-5, atol=1e-6)
    assert "momentum=None" in repr(bn) and "momentum=None" in repr(tbn)


def test_batchnorm_momentum_must_be_a_number_or_none():
    with pytest.raises(TypeError, match="momentum must be a number or None"):
        nn.BatchNorm1d(3, momentum="0.1")
