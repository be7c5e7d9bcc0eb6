"""Per-example gradients of the MLP 784-256-128-10 (ReLU, cross-entropy), for
``transforms.py``: one gradient of every weight for *each* example of a batch,
not their mean (what DP-SGD clips, what per-example gradient norms need).

* ``numpy``: the reference, written by hand: one batched forward pass, one batched
  backward pass, and each weight's per-example gradient an outer product
  ``δᵇ ⊗ hᵇ`` for every example ``b`` at once (``np.einsum("bi,bj->bij")``);
* ``loop``: ``minigrad.func.grad`` of the one-example loss, called once per example;
* ``vmap``: ``vmap(grad(loss), in_dims=(None,)*6 + (0, 0))``: the per-example loss
  batched over the examples, the weights shared (torch.func's, and minigrad's
  when ``minigrad.func`` has ``vmap``).

Every implementation returns the six per-example gradients, shaped
``(batch,) + weight.shape``, float32; ``agreement`` compares them with the
reference.
"""

from __future__ import annotations

from mlp import init_weights, make_data

#: the weights' names, in the order the loss takes them
NAMES = ("W1", "b1", "W2", "b2", "W3", "b3")


def data(batch: int):
    """``(x, onehot)``: float32 images ``(batch, 784)`` and one-hot labels ``(batch, 10)``."""
    import numpy as np

    x, y = make_data(batch)
    return x, np.eye(10, dtype=np.float32)[y]


def minigrad_vmap_available() -> bool:
    """Whether this minigrad has ``minigrad.func.vmap`` (it is being built: issue 29)."""
    import minigrad.func

    return hasattr(minigrad.func, "vmap")


def numpy_fn(batch: int):
    """The hand-written batched per-example gradients (the reference)."""
    import numpy as np

    W1, b1, W2, b2, W3, b3 = init_weights()
    x, t = data(batch)

    def per_example():
        z1 = x @ W1.T + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ W2.T + b2
        h2 = np.maximum(z2, 0)
        logits = h2 @ W3.T + b3
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        d3 = p - t  # d loss_b / d logits_b, one row per example (no 1/batch: no mean)
        d2 = (d3 @ W3) * (z2 > 0)
        d1 = (d2 @ W2) * (z1 > 0)
        outer = "bi,bj->bij"
        return [np.einsum(outer, d1, x), d1, np.einsum(outer, d2, h1), d2,
                np.einsum(outer, d3, h2), d3]

    return per_example


def _minigrad_loss():
    def loss(W1, b1, W2, b2, W3, b3, x, t):
        """Cross-entropy of one example ``x`` (784,) with one-hot label ``t`` (10,)."""
        h1 = (W1 @ x + b1).relu()
        h2 = (W2 @ h1 + b2).relu()
        return -(t * (W3 @ h2 + b3).log_softmax(axis=-1)).sum()

    return loss


def minigrad_fns(batch: int) -> dict:
    """``{"loop": call, "vmap": call}`` (no "vmap" before minigrad has it)."""
    from minigrad import Tensor, func

    weights = [Tensor(w) for w in init_weights()]
    x, t = data(batch)
    gradient = func.grad(_minigrad_loss(), argnums=tuple(range(6)))

    def loop():
        grads = [gradient(*weights, Tensor(x[b]), Tensor(t[b])) for b in range(batch)]
        return [_np_stack([g[k].data for g in grads]) for k in range(6)]

    fns = {"loop": loop}
    if minigrad_vmap_available():
        batched = func.vmap(gradient, in_dims=(None,) * 6 + (0, 0))
        xs, ts = Tensor(x), Tensor(t)
        fns["vmap"] = lambda: [g.data for g in batched(*weights, xs, ts)]
    return fns


def torch_fns(batch: int) -> dict:
    """``{"vmap": call}``: torch.func's ``vmap(grad(loss))``."""
    import torch
    from torch.func import grad, vmap

    weights = [torch.from_numpy(w) for w in init_weights()]
    x, t = (torch.from_numpy(a) for a in data(batch))

    def loss(W1, b1, W2, b2, W3, b3, x, t):
        h1 = torch.relu(W1 @ x + b1)
        h2 = torch.relu(W2 @ h1 + b2)
        return -(t * torch.log_softmax(W3 @ h2 + b3, dim=-1)).sum()

    batched = vmap(grad(loss, argnums=tuple(range(6))), in_dims=(None,) * 6 + (0, 0))
    return {"vmap": lambda: [g.numpy() for g in batched(*weights, x, t)]}


def agreement(grads, reference) -> float:
    """The largest difference from the reference, relative to each gradient's scale."""
    import numpy as np

    worst = 0.0
    for name, g, r in zip(NAMES, grads, reference):
        if np.shape(g) != np.shape(r):
            raise ValueError(f"per-example gradient of {name}: shape {np.shape(g)}, the "
                             f"reference's {np.shape(r)}")
        worst = max(worst, float(np.abs(np.asarray(g) - r).max() / (np.abs(r).max() + 1e-30)))
    return worst


def _np_stack(arrays):
    import numpy as np

    return np.stack(arrays)
