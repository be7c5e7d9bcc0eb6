"""minigrad.nn: the Module protocol, layers, losses, init, state dicts, name scopes."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad import Tensor, gradcheck, nn
from minigrad.nn.neurons import MLP as ScalarMLP


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


def test_parameter_is_a_float32_leaf():
    p = nn.Parameter(np.zeros((2, 3)))
    assert p.dtype == np.float32 and p.requires_grad and p.is_leaf and p.op is None
    assert nn.Parameter(np.zeros(2), dtype=None).dtype == np.float64
    assert "Parameter containing" in repr(p)
    for p in Net().parameters():
        assert p.dtype == np.float32


def test_train_eval_and_dropout():
    net = Net()
    assert net.training and net.head[1].training
    assert net.eval() is net and not net.head[1].training and not net.bn.training
    x = images()
    a, b = net(x).data, net(x).data
    np.testing.assert_array_equal(a, b)  # eval: no dropout, running stats
    net.train()
    assert net.head[1].training


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


def test_loss_modules():
    rng = np.random.default_rng(5)
    z, t = Tensor(rng.normal(size=(4, 3))), rng.integers(0, 3, 4)
    assert nn.CrossEntropyLoss()(z, t).item() == pytest.approx(F.cross_entropy(z, t).item())
    assert nn.CrossEntropyLoss(reduction="sum")(z, t).item() == pytest.approx(
        F.cross_entropy(z, t, "sum").item())
    assert nn.MSELoss()(z, z * 0).item() == pytest.approx((z.data ** 2).mean())
    y = rng.uniform(size=(4, 3))
    assert nn.BCEWithLogitsLoss()(z, y).item() == pytest.approx(
        F.binary_cross_entropy_with_logits(z, y).item())
    assert repr(nn.MSELoss(reduction="sum")) == "MSELoss(reduction='sum')"
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")


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


@pytest.mark.parametrize("fn,std", [
    (lambda s, r: nn.init.kaiming_uniform(s, rng=r), math.sqrt(2 / 400)),
    (lambda s, r: nn.init.kaiming_normal(s, rng=r), math.sqrt(2 / 400)),
    (lambda s, r: nn.init.kaiming_normal(s, mode="fan_out", rng=r), math.sqrt(2 / 300)),
    (lambda s, r: nn.init.xavier_uniform(s, rng=r), math.sqrt(2 / 700)),
    (lambda s, r: nn.init.xavier_normal(s, gain=2.0, rng=r), 2 * math.sqrt(2 / 700)),
])
def test_init_statistics(fn, std):
    w = fn((300, 400), np.random.default_rng(0))
    assert w.dtype == np.float32 and w.shape == (300, 400)
    assert abs(w.std() / std - 1) < 0.01 and abs(w.mean()) < 0.01 * std * 10


def test_init_fans_and_fill():
    assert nn.init.fan_in_and_fan_out((8, 3, 5, 5)) == (75, 200)
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    conv = nn.Conv2d(3, 8, 5)
    nn.init.kaiming_normal_(conv.weight, rng=0)
    assert conv.weight.dtype == np.float32
    assert abs(conv.weight.data.std() - math.sqrt(2 / 75)) < 0.03
    with pytest.raises(ValueError, match="at least 2 axes"):
        nn.init.xavier_uniform((5,))


# --- scopes -------------------------------------------------------------------------------
def test_scopes_tag_nodes_with_the_module_path():
    net = Net().eval()
    with minigrad.record() as tape, nn.record_scopes() as scopes:
        loss = F.cross_entropy(net(images()), np.array([0, 1, 2, 0]))
    ops = {n.op.name: scopes.get(n) for n in tape.nodes if n.op is not None}
    assert ops == {"conv2d": "conv", "batch_norm_eval": "bn", "relu": None,
                   "max_pool2d": "pool", "flatten": "head.0", "linear": "head.2",
                   "cross_entropy": None}
    assert scopes.get(loss) is None
    assert scopes.get(net.conv.weight) == "conv"
    assert scopes.param_names[net.head[2].weight.id] == "head.2.weight"
    assert scopes.modules["head.2"].kind == "Linear"
    assert scopes.modules["head.2"].title == "head.2: Linear"
    assert scopes.modules[""].kind == "Net"
    clusters = scopes.clusters()
    assert list(clusters)[0] == "conv" and net.conv.weight.id in clusters["conv"]
    assert nn.ScopeMap.parents_of("head.2") == ["head"]


def test_explicit_scopes_nest_and_unwind():
    assert nn.current_scope() is None
    with nn.scope("block") as name:
        assert name == "block" and nn.current_scope() == "block"
        with nn.scope("inner"):
            assert nn.current_scope() == "block.inner"
    assert nn.current_scope() is None
    lin = nn.Linear(2, 2)
    x = Tensor(np.ones((1, 2), np.float32))
    with nn.record_scopes() as scopes:
        with nn.scope("block"):
            out = lin(x)
            extra = out * 2
    assert scopes.get(out) == "block" and scopes.get(extra) == "block"
    with pytest.raises(RuntimeError), nn.record_scopes(), nn.scope("s"):
        raise RuntimeError("boom")
    assert nn.current_scope() is None


def test_scopes_cost_nothing_without_a_recorder():
    net = nn.Sequential(nn.Linear(2, 2))
    with nn.record_scopes() as scopes:
        pass
    net(Tensor(np.ones((1, 2), np.float32)))
    assert len(scopes) == 0 and nn.current_scope() is None


def test_scalar_mlp_shares_the_protocol():
    random.seed(0)
    mlp = ScalarMLP(2, [3, 1])
    params = mlp.parameters()
    assert isinstance(params, list) and len(params) == 3 * 3 + 4
    assert params[0] is mlp.layers[0].neurons[0].w[0] and params[2] is mlp.layers[0].neurons[0].b
    names = [n for n, _ in mlp.named_parameters()]
    assert names[:3] == ["layers.0.neurons.0.w.0", "layers.0.neurons.0.w.1",
                         "layers.0.neurons.0.b"]
    out = mlp([1.0, -2.0])
    out.backward()
    assert all(p.grad is not None for p in params)
    mlp.zero_grad()
    assert all(p.grad is None for p in params)
    state = mlp.state_dict()
    other = ScalarMLP(2, [3, 1])
    other.load_state_dict(state)
    assert other([1.0, -2.0]).data == pytest.approx(out.data)
    with nn.record_scopes() as scopes:
        mlp([1.0, -2.0])
    assert list(scopes.clusters()) == ["layers.0.neurons.0", "layers.0.neurons.1",
                                       "layers.0.neurons.2", "layers.1.neurons.0"]
    assert repr(mlp).startswith("MLP of [Layer of [ReLUNeuron(2)")
