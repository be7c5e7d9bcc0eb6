"""Models across, layer by layer and for the kit's MLP and CNN, in float64: the same
outputs and gradients both ways, torch's own state_dict keys, a round trip that keeps
every weight bit for bit, modes and batch-norm statistics carried, and the errors.

Tolerance: outputs and gradients agree to ``rtol=1e-10, atol=1e-12``.  The two
libraries sum in different orders (im2col against torch's convolution, numpy's BLAS
against torch's), so bits may differ in the last places of float64, never more.
"""

from __future__ import annotations

import copy
from collections import OrderedDict

import numpy as np
import pytest

import minigrad as mg
from minigrad import interop, nn
from minigrad.nn import functional as F
from minigrad.nn.neurons import MLP as ScalarMLP
from minigrad.train import build_model

torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install "
                                            '"minigrad-kit[torch]" to run the interop tests')
tnn = torch.nn
TOL = {"rtol": 1e-10, "atol": 1e-12}
F64 = {"dtype": np.float64}
T64 = {"dtype": torch.float64}


def lesson10_cnn(g):
    """Lesson 10's CNN, as the lesson builds it."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, rng=g), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1, rng=g), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10, rng=g),
    )


def torch_cnn(bn: bool):
    """The same CNN written in torch (``bn``: build_model's, with batch norm)."""
    def block(cin, cout):
        return [tnn.Conv2d(cin, cout, 3, padding=1)] + ([tnn.BatchNorm2d(cout)] if bn else []) \
            + [tnn.ReLU(), tnn.MaxPool2d(2)]
    return tnn.Sequential(*block(1, 16), *block(16, 32), tnn.Flatten(), tnn.Linear(128, 10))


# (id, minigrad model, the same model written in torch, input shape); both float64
CASES = [
    ("Linear", lambda: nn.Linear(5, 3, **F64), lambda: tnn.Linear(5, 3, **T64), (4, 5)),
    ("Linear-nobias", lambda: nn.Linear(5, 3, bias=False, **F64),
     lambda: tnn.Linear(5, 3, bias=False, **T64), (4, 5)),
    ("Conv2d", lambda: nn.Conv2d(2, 3, 3, stride=2, padding=1, **F64),
     lambda: tnn.Conv2d(2, 3, 3, stride=2, padding=1, **T64), (2, 2, 7, 6)),
    ("Conv2d-rect-nobias", lambda: nn.Conv2d(2, 3, (3, 2), bias=False, **F64),
     lambda: tnn.Conv2d(2, 3, (3, 2), bias=False, **T64), (2, 2, 7, 6)),
    ("MaxPool2d", lambda: nn.MaxPool2d(2), lambda: tnn.MaxPool2d(2), (2, 2, 6, 6)),
    ("MaxPool2d-pad", lambda: nn.MaxPool2d(3, 2, 1), lambda: tnn.MaxPool2d(3, 2, 1),
     (2, 2, 7, 7)),
    ("AvgPool2d", lambda: nn.AvgPool2d(2), lambda: tnn.AvgPool2d(2), (2, 2, 6, 6)),
    ("AvgPool2d-pad", lambda: nn.AvgPool2d(3, 2, 1), lambda: tnn.AvgPool2d(3, 2, 1),
     (2, 2, 7, 7)),
    ("BatchNorm1d-train", lambda: nn.BatchNorm1d(3, **F64), lambda: tnn.BatchNorm1d(3, **T64),
     (6, 3)),
    ("BatchNorm1d-NCL", lambda: nn.BatchNorm1d(3, **F64), lambda: tnn.BatchNorm1d(3, **T64),
     (4, 3, 5)),
    ("BatchNorm1d-eval", lambda: nn.BatchNorm1d(3, **F64).eval(),
     lambda: tnn.BatchNorm1d(3, **T64).eval(), (6, 3)),
    ("BatchNorm1d-noaffine", lambda: nn.BatchNorm1d(3, affine=False, momentum=None, **F64),
     lambda: tnn.BatchNorm1d(3, affine=False, momentum=None, **T64), (6, 3)),
    ("BatchNorm2d-train", lambda: nn.BatchNorm2d(3, **F64), lambda: tnn.BatchNorm2d(3, **T64),
     (4, 3, 3, 3)),
    ("BatchNorm2d-nostats", lambda: nn.BatchNorm2d(3, track_running_stats=False, **F64),
     lambda: tnn.BatchNorm2d(3, track_running_stats=False, **T64), (4, 3, 3, 3)),
    ("LayerNorm", lambda: nn.LayerNorm((3, 4), **F64), lambda: tnn.LayerNorm((3, 4), **T64),
     (2, 3, 4)),
    ("LayerNorm-noaffine", lambda: nn.LayerNorm(4, elementwise_affine=False),
     lambda: tnn.LayerNorm(4, elementwise_affine=False), (2, 4)),
    ("Dropout-eval", lambda: nn.Dropout(0.3).eval(), lambda: tnn.Dropout(0.3).eval(), (4, 5)),
    ("Flatten", lambda: nn.Flatten(), lambda: tnn.Flatten(), (2, 3, 4)),
    ("Flatten-1-2", lambda: nn.Flatten(1, 2), lambda: tnn.Flatten(1, 2), (2, 3, 4, 2)),
    ("Identity", lambda: nn.Identity(), lambda: tnn.Identity(), (3, 4)),
    ("ReLU", lambda: nn.ReLU(), lambda: tnn.ReLU(), (3, 4)),
    ("LeakyReLU", lambda: nn.LeakyReLU(0.2), lambda: tnn.LeakyReLU(0.2), (3, 4)),
    ("Tanh", lambda: nn.Tanh(), lambda: tnn.Tanh(), (3, 4)),
    ("Sigmoid", lambda: nn.Sigmoid(), lambda: tnn.Sigmoid(), (3, 4)),
    ("GELU", lambda: nn.GELU(), lambda: tnn.GELU(), (3, 4)),
    ("GELU-tanh", lambda: nn.GELU("tanh"), lambda: tnn.GELU("tanh"), (3, 4)),
    ("Softmax", lambda: nn.Softmax(-1), lambda: tnn.Softmax(-1), (3, 4)),
    ("Softmax-dim1", lambda: nn.Softmax(1), lambda: tnn.Softmax(1), (2, 3, 4)),
    ("Sequential", lambda: nn.Sequential(nn.Linear(4, 6, **F64), nn.Tanh(), nn.Linear(6, 2, **F64)),
     lambda: tnn.Sequential(tnn.Linear(4, 6, **T64), tnn.Tanh(), tnn.Linear(6, 2, **T64)),
     (3, 4)),
    ("Sequential-named", lambda: nn.Sequential(OrderedDict(fc=nn.Linear(4, 2, **F64),
                                                           act=nn.ReLU())),
     lambda: tnn.Sequential(OrderedDict(fc=tnn.Linear(4, 2, **T64), act=tnn.ReLU())), (3, 4)),
    ("kit-MLP", lambda: build_model("mlp", 64, 10).double(),
     lambda: tnn.Sequential(tnn.Linear(64, 256), tnn.ReLU(), tnn.Linear(256, 128), tnn.ReLU(),
                            tnn.Linear(128, 10)).double(), (5, 64)),
    ("kit-CNN-train", lambda: build_model("cnn", 64, 10, (1, 8, 8)).double(),
     lambda: torch_cnn(bn=True).double(), (4, 1, 8, 8)),
    ("kit-CNN-eval", lambda: build_model("cnn", 64, 10, (1, 8, 8)).double().eval(),
     lambda: torch_cnn(bn=True).double().eval(), (4, 1, 8, 8)),
    ("lesson10-CNN", lambda: lesson10_cnn(np.random.default_rng(0)).double(),
     lambda: torch_cnn(bn=False).double(), (4, 1, 8, 8)),
]
IDS = [c[0] for c in CASES]


def scramble(model, seed=1):
    """Every floating parameter and buffer random (batch norm's ones and zeros would hide
    a weight crossed as a bias), on either side."""
    g = np.random.default_rng(seed)
    if interop.is_torch_module(model):
        with torch.no_grad():
            for t in list(model.parameters()) + list(model.buffers()):
                if t.dtype.is_floating_point:
                    t.copy_(torch.from_numpy(g.uniform(0.5, 1.5, tuple(t.shape))))
        return model
    for p in model.parameters():
        p.data[...] = g.uniform(0.5, 1.5, p.shape)
    for _, b in model.named_buffers():
        if b.dtype.kind == "f":
            b[...] = g.uniform(0.5, 1.5, b.shape)
    return model


def run_ours(model, x, r):
    xt = mg.Tensor(x, requires_grad=True)
    out = model(xt)
    (out * mg.Tensor(r)).sum().backward()
    return out.data, xt.grad, {n: p.grad for n, p in model.named_parameters()}


def run_torch(model, x, r):
    xt = torch.tensor(x, requires_grad=True)
    out = model(xt)
    (out * torch.from_numpy(r)).sum().backward()
    return (out.detach().numpy(), xt.grad.numpy(),
            {n: p.grad.numpy() for n, p in model.named_parameters()})


def check_same(ours, theirs, shape):
    """Forward and gradients of ``sum(out * r)`` w.r.t. the input and every parameter."""
    g = np.random.default_rng(2)
    x = g.normal(size=shape)
    r = g.normal(size=tuple(copy.deepcopy(theirs)(torch.from_numpy(x)).shape))  # (a copy: the
    # forward of a batch norm in training mode moves its statistics)
    out, gx, grads = run_ours(ours, x, r)
    t_out, t_gx, t_grads = run_torch(theirs, x, r)
    np.testing.assert_allclose(out, t_out, **TOL)
    np.testing.assert_allclose(gx, t_gx, **TOL)
    keys = interop.torch_state_dict_keys(ours)
    assert {keys[n] for n in grads} == set(t_grads)
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, t_grads[keys[name]], **TOL, err_msg=name)
    for name, buf in ours.named_buffers():  # batch norm's statistics, updated in train mode
        np.testing.assert_allclose(buf, theirs.get_buffer(keys.get(name, name)).numpy(), **TOL)


@pytest.mark.parametrize("name, ours, theirs, shape", CASES, ids=IDS)
def test_to_torch_gives_the_same_outputs_and_gradients(name, ours, theirs, shape):
    model = scramble(ours())
    converted = interop.to_torch(model)
    assert type(converted).__name__ == type(model).__name__
    check_same(model, converted, shape)


@pytest.mark.parametrize("name, ours, theirs, shape", CASES, ids=IDS)
def test_from_torch_gives_the_same_outputs_and_gradients(name, ours, theirs, shape):
    model = scramble(theirs())
    converted = interop.from_torch(model)
    assert type(converted).__name__ == type(model).__name__
    check_same(converted, model, shape)


@pytest.mark.parametrize("name, ours, theirs, shape", CASES, ids=IDS)
def test_state_dict_keys_are_torchs_own(name, ours, theirs, shape):
    model = ours()
    keys = interop.torch_state_dict_keys(model)
    assert list(keys) == list(model.state_dict())
    assert list(keys.values()) == list(theirs().state_dict())  # torch's model, written by hand
    assert list(keys.values()) == list(interop.to_torch(model).state_dict())


def state_bytes(state) -> dict:
    return {k: (np.asarray(v).dtype, np.asarray(v).shape, np.asarray(v).tobytes())
            for k, v in state.items()}


@pytest.mark.parametrize("name, ours, theirs, shape", CASES, ids=IDS)
def test_a_round_trip_keeps_every_weight_bit_for_bit(name, ours, theirs, shape):
    model = scramble(ours(), seed=3)
    back = interop.from_torch(interop.to_torch(model))
    assert state_bytes(back.state_dict()) == state_bytes(model.state_dict())
    assert repr(back) == repr(model)
    tmodel = scramble(theirs(), seed=3)
    tback = interop.to_torch(interop.from_torch(tmodel))
    assert state_bytes({k: v.numpy() for k, v in tback.state_dict().items()}) == \
        state_bytes({k: v.numpy() for k, v in tmodel.state_dict().items()})


def test_float32_stays_float32():
    model = build_model("cnn", 64, 10, (1, 8, 8))
    converted = interop.to_torch(model)
    assert {t.dtype for t in converted.parameters()} == {torch.float32}
    assert {p.dtype for p in interop.from_torch(converted).parameters()} == {np.dtype(np.float32)}


def test_modes_cross_module_by_module():
    model = build_model("cnn", 64, 10, (1, 8, 8)).eval()
    model[1].train()  # one batch norm in training mode, the rest in eval
    converted = interop.to_torch(model)
    assert [m.training for m in converted.modules()] == [m.training for m in model.modules()]
    assert converted[1].training and not converted[5].training and not converted.training
    back = interop.from_torch(converted)
    assert [m.training for m in back.modules()] == [m.training for m in model.modules()]


def test_batch_norm_running_statistics_cross():
    model = build_model("cnn", 64, 10, (1, 8, 8)).double()
    g = np.random.default_rng(0)
    for _ in range(3):  # three training batches move the statistics
        model(mg.Tensor(g.normal(2.0, 3.0, (8, 1, 8, 8))))
    converted = interop.to_torch(model)
    assert int(converted[1].num_batches_tracked) == 3
    assert converted[1].running_mean.numpy().tobytes() == model[1].running_mean.tobytes()
    assert converted[5].running_var.numpy().tobytes() == model[5].running_var.tobytes()
    x = g.normal(size=(4, 1, 8, 8))  # and they are what eval mode uses, on both sides
    model.eval()
    converted.eval()
    np.testing.assert_allclose(model(mg.Tensor(x)).data,
                               converted(torch.from_numpy(x)).detach().numpy(), **TOL)
    # a further training step on each side updates them the same way
    model.train()
    converted.train()
    model(mg.Tensor(x))
    converted(torch.from_numpy(x))
    np.testing.assert_allclose(model[1].running_var, converted[1].running_var.numpy(), **TOL)


def test_requires_grad_flags_cross():
    model = build_model("mlp", 4, 2).double()
    model[0].weight.requires_grad = False  # a frozen first layer
    converted = interop.to_torch(model)
    assert [p.requires_grad for p in converted.parameters()] == [False, True, True, True, True,
                                                                  True]
    back = interop.from_torch(converted)
    assert [p.requires_grad for p in back.parameters()] == [False, True, True, True, True, True]


def test_weights_are_copies_not_shared():
    model = nn.Linear(2, 2, **F64)
    converted = interop.to_torch(model)
    model.weight.data[0, 0] = 100.0
    with torch.no_grad():
        converted.bias[0] = -100.0
    assert converted.weight[0, 0].item() != 100.0 and model.bias.data[0] != -100.0


def test_a_shared_layer_stays_shared():
    shared = nn.Linear(3, 3, **F64)
    model = nn.Sequential(shared, nn.Tanh(), shared)
    converted = interop.to_torch(model)
    assert converted[0] is converted[2]
    assert list(interop.torch_state_dict_keys(model).values()) == ["0.weight", "0.bias"]
    back = interop.from_torch(converted)
    assert back[0] is back[2]
    check_same(model, converted, (2, 3))


def test_module_list_crosses():
    model = nn.ModuleList([nn.Linear(2, 3, **F64), nn.ReLU(), nn.Linear(3, 1, **F64)])
    converted = interop.to_torch(model)
    assert isinstance(converted, tnn.ModuleList) and len(converted) == 3
    assert list(converted.state_dict()) == list(interop.torch_state_dict_keys(model).values())
    back = interop.from_torch(converted)
    assert state_bytes(back.state_dict()) == state_bytes(model.state_dict())


def test_converting_leaves_torchs_random_stream_alone():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    interop.to_torch(build_model("mlp", 8, 2))
    assert torch.equal(torch.rand(3), expected)


# --- what does not cross ------------------------------------------------------------------
class Upsample(nn.Module):
    def forward(self, x):
        return x


def test_an_unsupported_layer_is_named_with_its_path_and_the_supported_list():
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), Upsample()))
    for call in (interop.to_torch, interop.torch_state_dict_keys):
        with pytest.raises(TypeError) as e:
            call(model)
        message = str(e.value)
        assert "'1.1' (a Upsample)" in message
        for name in ("Linear", "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm2d", "Dropout",
                     "ReLU", "Sequential"):
            assert name in message
    with pytest.raises(TypeError, match="the model itself"):
        interop.to_torch(Upsample())


def test_a_subclass_of_a_supported_layer_is_not_taken_for_it():
    class MySequential(nn.Sequential):
        def forward(self, x):
            return super().forward(x) * 2

    with pytest.raises(TypeError, match=r"the model itself \(a MySequential\).*not subclasses"):
        interop.to_torch(MySequential(nn.ReLU()))


def test_an_unsupported_torch_layer_is_named():
    with pytest.raises(TypeError, match=r"'1' \(a Upsample\) from torch: .*torch.nn.Linear"):
        interop.from_torch(tnn.Sequential(tnn.Linear(2, 2), tnn.Upsample(scale_factor=2)))


@pytest.mark.parametrize("layer, match", [
    (lambda: tnn.Conv2d(2, 2, 3, groups=2), "groups=2 has no minigrad equivalent"),
    (lambda: tnn.Conv2d(2, 2, 3, dilation=2), r"dilation=\(2, 2\)"),
    (lambda: tnn.Conv2d(2, 2, 3, padding="same"), "padding='same'"),
    (lambda: tnn.Conv2d(2, 2, 3, padding_mode="reflect"), "padding_mode='reflect'"),
    (lambda: tnn.MaxPool2d(2, ceil_mode=True), "ceil_mode=True"),
    (lambda: tnn.AvgPool2d(2, count_include_pad=False), "count_include_pad=False"),
    (lambda: tnn.LayerNorm(3, bias=False), "bias=False"),
    (lambda: tnn.Softmax(), "dim=None"),
])
def test_a_torch_setting_minigrad_lacks_is_refused(layer, match):
    with pytest.raises(TypeError, match=match):
        interop.from_torch(tnn.Sequential(layer()))


@pytest.mark.parametrize("layer", [lambda: nn.Linear(2, 2, activation="relu"),
                                   lambda: nn.Conv2d(1, 2, 3, activation="relu"),
                                   lambda: nn.BatchNorm2d(2, activation="relu")])
def test_a_fused_activation_is_refused_with_the_way_out(layer):
    with pytest.raises(TypeError, match=r"'0' \(a \w+\) to torch: activation='relu'.*ReLU\(\)"):
        interop.to_torch(nn.Sequential(layer()))


def test_the_scalar_engines_layer_says_how_to_cross():
    # the MLP converts on its own (test_scalar_mlp); its layers inside another model do not
    with pytest.raises(TypeError, match="MLP converts on its own.*build the network from "
                                        "nn.Linear"):
        interop.to_torch(nn.Sequential(ScalarMLP(3, [4, 1]).layers[0]))


# --- a model class of one's own ------------------------------------------------------------
class DigitsMLP(nn.Module):
    """Lesson 9's MLP, as the lesson writes it."""

    def __init__(self, hidden=128, seed=0, dtype=np.float32):
        super().__init__()
        g = np.random.default_rng(seed)
        self.fc1 = nn.Linear(64, hidden, rng=g, dtype=dtype)
        self.fc2 = nn.Linear(hidden, 10, rng=g, dtype=dtype)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class TorchDigitsMLP(tnn.Module):
    """Its twin in torch, with the same attribute names."""

    def __init__(self, fc1, fc2):
        super().__init__()
        self.fc1, self.fc2 = fc1, fc2

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


@pytest.fixture
def digits_mlp_registered():
    def back(t, children):
        model = DigitsMLP(t.fc1.out_features, dtype=np.float64)
        model.fc1, model.fc2 = children["fc1"], children["fc2"]
        return model

    interop.register(DigitsMLP, TorchDigitsMLP, lambda m, ch: TorchDigitsMLP(**ch), back)
    yield
    interop.unregister(DigitsMLP)


def test_a_registered_class_crosses_both_ways(digits_mlp_registered):
    model = DigitsMLP(hidden=16, dtype=np.float64)
    converted = interop.to_torch(model)
    assert isinstance(converted, TorchDigitsMLP)
    assert list(converted.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    check_same(model, converted, (3, 64))
    back = interop.from_torch(converted)
    assert isinstance(back, DigitsMLP)
    assert state_bytes(back.state_dict()) == state_bytes(model.state_dict())
    assert interop.supported()[0] == "DigitsMLP"


def test_an_unregistered_class_of_ones_own_is_refused():
    with pytest.raises(TypeError, match=r"the model itself \(a DigitsMLP\).*register"):
        interop.to_torch(DigitsMLP())


def test_a_registered_pair_whose_names_differ_is_refused():
    class Renamed(tnn.Module):
        def __init__(self, fc1, fc2):
            super().__init__()
            self.first, self.second = fc1, fc2

    interop.register(DigitsMLP, Renamed, lambda m, ch: Renamed(**ch), None)
    try:
        with pytest.raises(TypeError, match="state_dict keys differ.*same attribute names"):
            interop.to_torch(DigitsMLP())
    finally:
        interop.unregister(DigitsMLP)
