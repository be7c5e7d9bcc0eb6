"""Regression tests for fixes in minigrad.nn: in-place loads/inits tracked,
BatchNorm momentum=None, the scalar MLP's input length, PyTorch's state_dict order.
Each test failed before its fix; torch is the oracle where it applies."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, nn
from minigrad.nn import init
from minigrad.nn.neurons import MLP as ScalarMLP
from minigrad.nn.neurons import Neuron
from tests._helpers import param


def small_net(seed=0):
    return nn.Sequential(nn.Linear(2, 3, seed=seed), nn.BatchNorm1d(3),
                         nn.Linear(3, 1, seed=seed + 1))


X = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25]], np.float32)


# --- 1. load_state_dict and init.*_ mark parameters modified ------------------------------
def test_load_state_dict_refuses_backward_through_an_older_graph():
    net, other = small_net(0), small_net(5)
    loss = net(Tensor(X)).sum()
    net.load_state_dict(other.state_dict())
    with pytest.raises(RuntimeError, match="changed in place"):
        loss.backward()
    net(Tensor(X)).sum().backward()  # a fresh forward pass is fine
    assert net[0].weight.grad is not None


def test_load_state_dict_marks_all_changed_parameters_in_one_call(monkeypatch):
    import minigrad.nn.module as module

    calls = []
    real = module.mark_modified
    monkeypatch.setattr(module, "mark_modified", lambda nodes: calls.append(list(nodes))
                        or real(nodes))
    net = small_net()
    net.load_state_dict(small_net(3).state_dict())
    assert len(calls) == 1
    assert {id(p) for p in calls[0]} == {id(p) for p in net.parameters()}


@pytest.mark.parametrize("fill", [init.kaiming_uniform_, init.kaiming_normal_,
                                  init.xavier_uniform_, init.xavier_normal_])
def test_init_fill_refuses_backward_through_an_older_graph(fill):
    w = param(np.ones((2, 2)))
    loss = (Tensor(np.ones((2, 2), np.float32)) * w).sum()
    assert fill(w, rng=0) is w
    with pytest.raises(RuntimeError, match="changed in place"):
        loss.backward()


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


# --- 3. scalar MLP input length ------------------------------------------------------------
def test_scalar_mlp_rejects_a_wrong_length_input():
    with pytest.raises(ValueError, match=r"MLP\(3, \[1\]\) expects 3 inputs, got 2"):
        ScalarMLP(3, [1])([1.0, 2.0])
    with pytest.raises(ValueError, match="expects 3 inputs, got 4"):
        ScalarMLP(3, [2, 1])([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"Neuron\(2\) expects 2 inputs, got 3"):
        Neuron(2)([1.0, 2.0, 3.0])


def test_scalar_mlp_accepts_a_width_one_hidden_layer():
    """A one-neuron Layer returns a single Value; the next layer takes it as one input."""
    import random

    mlp = ScalarMLP(2, [1, 2], rng=random.Random(0))
    out = mlp([1.0, -2.0])
    n0 = mlp.layers[0].neurons[0]
    h = max(0.0, n0.w[0].data * 1.0 + n0.w[1].data * -2.0 + n0.b.data)
    for o, n in zip(out, mlp.layers[1].neurons):
        assert o.data == pytest.approx(n.w[0].data * h + n.b.data)


# --- 4. state_dict order --------------------------------------------------------------------
EXPECTED_KEYS = ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                 "1.running_var", "1.num_batches_tracked", "2.weight", "2.bias"]


def test_state_dict_orders_entries_module_by_module():
    assert list(small_net().state_dict()) == EXPECTED_KEYS


def test_state_dict_order_matches_torch():
    torch = pytest.importorskip("torch")
    tnet = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3),
                               torch.nn.Linear(3, 1))
    assert list(small_net().state_dict()) == list(tnet.state_dict())


@pytest.mark.parametrize("order", ["reversed", "params_first"])
def test_load_state_dict_accepts_any_key_order(order):
    src, dst = small_net(0), small_net(7)
    src.train()
    src(Tensor(X))  # move the running statistics away from their initial values
    state = src.state_dict()
    if order == "reversed":
        state = dict(reversed(list(state.items())))
    else:  # the old layout: all parameters, then all buffers
        names = [n for n, _ in src.named_parameters()]
        state = {**{k: state[k] for k in names},
                 **{k: v for k, v in state.items() if k not in names}}
    dst.load_state_dict(state)
    for (k, a), (k2, b) in zip(src.state_dict().items(), dst.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a, b)
