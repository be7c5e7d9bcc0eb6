"""``viz.render.torch_graph`` on CUDA tensors, without a GPU: the values the drawing,
the text tree and the stepper show are copied to the host with ``.cpu()`` (a fake CUDA
tensor refuses ``.numpy()`` otherwise; see ``tests/_fake_cuda.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import viz
from tests import _fake_cuda
from tests._fake_cuda import fake_cuda
from viz.render.torch_graph import host_array, is_torch, torch_view

torch = pytest.importorskip("torch", reason="torch is optional: the torch view is tested with it")


def cuda_graph():
    x = fake_cuda(torch, torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64,
                                      requires_grad=True))
    w = fake_cuda(torch, torch.tensor([1.5, 0.25, -0.5], dtype=torch.float64,
                                      requires_grad=True))
    return x, w


def test_the_fake_behaves_like_a_cuda_tensor():
    x, _ = cuda_graph()
    assert x.device.type == "cuda" and x.is_leaf and x.requires_grad
    with pytest.raises(TypeError, match="cuda:0 device type tensor to numpy"):
        x.detach().numpy()
    assert is_torch(x)  # a tensor subclass is recognised without importing torch


def test_host_array_copies_to_the_host_first():
    x, _ = cuda_graph()
    _fake_cuda.CPU_CALLS.clear()
    a = host_array(x)
    assert _fake_cuda.CPU_CALLS == [(3,)]
    assert isinstance(a, np.ndarray) and np.array_equal(a, [0.5, -1.0, 2.0])


def test_a_cuda_graph_is_drawn_with_its_values():
    x, w = cuda_graph()
    loss = torch.tanh(x * w).sum()
    _fake_cuda.CPU_CALLS.clear()
    view = torch_view(loss, params={"x": x, "w": w})
    assert _fake_cuda.CPU_CALLS == [(3,), (3,)]  # both leaves' values, copied to the host
    leaves = {vn.name: vn for vn in view.nodes if vn.is_leaf and vn.requires_grad}
    assert leaves["x"].data == "[0.5000, -1.0000, 2.0000]"
    assert view.by_id[view.roots[0]].data != "(no value)"
    assert "x" in viz.text(loss, params={"x": x, "w": w})


def test_a_cuda_graph_steps_through_with_host_copies():
    x, w = cuda_graph()
    s = viz.step_through(lambda x, w: torch.tanh(x * w).sum(), x, w)
    x2 = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    w2 = torch.tensor([1.5, 0.25, -0.5], dtype=torch.float64, requires_grad=True)
    torch.tanh(x2 * w2).sum().backward()
    assert np.array_equal(host_array(x.grad), x2.grad.numpy())
    tanh = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "TanhBackward0")
    assert np.allclose(tanh.data, torch.tanh(x2 * w2).detach().numpy())
    s.last()
    assert "x.grad" in s.panel
