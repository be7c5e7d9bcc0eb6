"""Regression tests for fixes in nn.Module's state dicts: in-place loads tracked, PyTorch's
state_dict order, any key order accepted. Each test failed before its fix; torch is the oracle
where it applies."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, nn


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
