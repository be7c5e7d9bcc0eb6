"""nn.Module: parameters and children by name, zero_grad, state dicts, save/load, repr,
Sequential, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor, gradcheck, nn


class Net(nn.Module):
    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.conv = nn.Conv2d(1, 4, 3, padding=1, rng=rng)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.5, rng=rng), nn.Linear(64, 3, rng=rng))

    def forward(self, x):
        return self.head(self.pool(F.relu(self.bn(self.conv(x)))))


def images(n=4, seed=0):
    return Tensor(np.random.default_rng(seed).normal(size=(n, 1, 8, 8)).astype(np.float32))


# --- the protocol -----------------------------------------------------------------------
def test_parameters_names_children_modules():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["conv.weight", "conv.bias", "bn.weight", "bn.bias",
                     "head.2.weight", "head.2.bias"]
    assert all(isinstance(p, nn.Parameter) for p in net.parameters())
    assert [n for n, _ in net.named_children()] == ["conv", "bn", "pool", "head"]
    assert [n for n, _ in net.named_modules()] == ["", "conv", "bn", "pool", "head", "head.0",
                                                   "head.1", "head.2"]
    assert [n for n, _ in net.named_buffers()] == ["bn.running_mean", "bn.running_var",
                                                   "bn.num_batches_tracked"]
    assert net.num_parameters() == 4 * 9 + 4 + 4 + 4 + 64 * 3 + 3
    assert net.conv.weight.label == "weight"


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(3, 3)
    net = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(net.parameters()) == 2


def test_forward_backward_and_zero_grad():
    net = Net()
    loss = F.cross_entropy(net(images()), np.array([0, 1, 2, 0]))
    loss.backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all((p.grad == 0).all() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_module_gradcheck_in_float64():
    net = Net().double().eval()
    x = Tensor(np.random.default_rng(1).normal(size=(2, 1, 8, 8)), requires_grad=True)
    assert net.conv.weight.dtype == np.float64 and net.bn.running_var.dtype == np.float64
    assert gradcheck(lambda x: net(x), x)
    net.train()
    net.head[1].p = 0.0  # dropout off, batch norm on batch statistics
    w = Tensor(net.conv.weight.data.copy(), requires_grad=True)  # (gradcheck copies by type)
    assert gradcheck(lambda x, w: net.head(net.pool(F.relu(net.bn(
        F.conv2d(x, w, net.conv.bias, padding=1))))), x, w)


# --- state dicts and files ----------------------------------------------------------------
def test_state_dict_roundtrip_and_save_load(tmp_path):
    a, b = Net(seed=1), Net(seed=2)
    a.train()
    a(images())  # changes a's running statistics
    state = a.state_dict()
    assert list(state)[:2] == ["conv.weight", "conv.bias"] and "bn.running_mean" in state
    state["conv.weight"][...] = 0  # a copy: the model is untouched
    assert np.abs(a.conv.weight.data).sum() > 0
    path = a.save(tmp_path / "net")
    assert path.endswith(".npz")
    weight_before = b.conv.weight
    b.load(tmp_path / "net.npz")
    assert b.conv.weight is weight_before  # loaded in place
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
        np.testing.assert_array_equal(x, y, err_msg=name)
    a.eval()
    b.eval()
    np.testing.assert_array_equal(a(images()).data, b(images()).data)


def test_load_state_dict_errors():
    net = Net()
    state = net.state_dict()
    del state["conv.bias"]
    state["extra.weight"] = np.zeros(3)
    with pytest.raises(nn.StateDictError, match="missing key.*conv.bias") as err:
        net.load_state_dict(state)
    assert "unexpected key(s): extra.weight" in str(err.value)
    result = net.load_state_dict(state, strict=False)
    assert result.missing_keys == ["conv.bias"] and result.unexpected_keys == ["extra.weight"]
    bad = Net().state_dict()
    bad["head.2.weight"] = np.zeros((3, 65))
    before = net.conv.weight.data.copy()
    bad["conv.weight"] = before + 1
    with pytest.raises(nn.StateDictError, match=r"head.2.weight: .*\(3, 65\).*\(3, 64\)"):
        net.load_state_dict(bad)
    np.testing.assert_array_equal(net.conv.weight.data, before)  # nothing written


def test_repr_like_pytorch():
    net = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 2, bias=False)))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Linear(in_features=4, out_features=3, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Linear(in_features=3, out_features=2, bias=False)\n"
        "  )\n"
        ")"
    )
    assert repr(nn.Conv2d(1, 8, 3, stride=2, padding=1)) == (
        "Conv2d(1, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))")


def test_sequential_indexing():
    net = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    assert len(net) == 3 and isinstance(net[0], nn.Linear) and isinstance(net[-1], nn.Linear)
    head = net[1:]
    assert isinstance(head, nn.Sequential) and len(head) == 2
    assert [type(m).__name__ for m in net] == ["Linear", "ReLU", "Linear"]
    with pytest.raises(IndexError, match="out of range"):
        net[3]
    with pytest.raises(TypeError, match="not a Module"):
        nn.Sequential(nn.ReLU)


def test_module_errors():
    class Forgot(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(RuntimeError, match="super\\(\\).__init__"):
        Forgot()

    with pytest.raises(NotImplementedError, match="Module has no forward"):
        nn.Module()(1)
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign ndarray to parameter 'weight'"):
        lin.weight = np.zeros((2, 2))
