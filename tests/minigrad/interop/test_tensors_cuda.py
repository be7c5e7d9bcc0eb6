"""``minigrad.interop.tensors`` with a CUDA tensor, without a GPU: ``from_torch`` copies
it to the host with ``.cpu()`` before numpy reads it (``tests/_fake_cuda.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import interop
from tests import _fake_cuda
from tests._fake_cuda import fake_cuda

torch = pytest.importorskip("torch", reason="PyTorch is optional")


def test_from_torch_copies_a_cuda_tensor_to_the_host():
    t = fake_cuda(torch, torch.arange(6, dtype=torch.float32).reshape(2, 3).requires_grad_())
    assert interop.is_torch_tensor(t) and t.device.type == "cuda"
    _fake_cuda.CPU_CALLS.clear()
    ours = interop.from_torch(t)
    assert _fake_cuda.CPU_CALLS == [(2, 3)]
    assert ours.requires_grad and ours.data.dtype == np.float32
    assert np.array_equal(ours.data, np.arange(6, dtype=np.float32).reshape(2, 3))
