"""A stand-in for a CUDA tensor on a machine with no GPU: a ``torch.Tensor`` subclass
that reports device ``cuda:0`` and, like a real CUDA tensor, refuses ``.numpy()`` until
``.cpu()`` has copied it to the host.  ``CPU_CALLS`` counts those copies, so a test can
tell that the code under test took the ``.cpu()`` path.

Only the leaves are fakes: an op on them returns a plain tensor (``__torch_function__``
runs it with the subclass switched off), except ``detach``, which keeps the fake, as
detaching a CUDA tensor stays on the GPU.  What it cannot show: real device memory,
streams, a driver; the docstrings of that path say it is untested on real CUDA."""

from __future__ import annotations

CPU_CALLS: list = []


def fake_cuda(torch, t):
    """``t`` (a CPU tensor) as a fake CUDA leaf (keeps ``requires_grad``)."""

    class FakeCudaTensor(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            with torch._C.DisableTorchFunctionSubclass():
                out = func(*args, **(kwargs or {}))
            if func is torch.Tensor.detach:
                return torch.Tensor._make_subclass(cls, out, False)
            return out

        @property
        def device(self):
            return torch.device("cuda", 0)

        @property
        def is_cuda(self):
            return True

        def numpy(self, *args, **kwargs):
            raise TypeError("can't convert cuda:0 device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")

        def cpu(self, *args, **kwargs):
            CPU_CALLS.append(tuple(self.shape))
            with torch._C.DisableTorchFunctionSubclass():
                return self.as_subclass(torch.Tensor).clone()

    return torch.Tensor._make_subclass(FakeCudaTensor, t.detach(), t.requires_grad)
