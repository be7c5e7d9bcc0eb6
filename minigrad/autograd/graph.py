"""``saved_tensors_hooks``, under PyTorch's name (``torch.autograd.graph``); how it works
is ``saved.py``."""

from __future__ import annotations

from .saved import saved_hooks, set_saved_hooks

__all__ = ["saved_tensors_hooks"]


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` every value an op saves for
    backward inside the block is stored as ``pack_hook(value)``, and handed to its
    backward rule as ``unpack_hook(packed)`` (lazily, when backward reaches the op,
    once per use).

    ``value`` is a numpy array (``Tensor`` ops) or a float (``Value`` ops); inside
    ``vmap``, a batched value is the array of the whole batch, batch axes in front.
    ``unpack_hook`` must return one of the same shape and dtype, or the backward
    pass stops with an error naming the op, the node and the hooks.  Contexts nest
    (the innermost packs) and are per thread.  ``graph_memory`` counts what the graph
    really holds: a float16 copy half of a float32 array, an offload key nothing::

        store = {}
        def offload(x):
            store[len(store)] = x
            return len(store) - 1
        with saved_tensors_hooks(offload, store.pop):
            loss = model(x).sum()      # the graph's saved values live in ``store``
        loss.backward()                # ... and come back one node at a time

    See ``minigrad/autograd/saved.py``.
    """

    def __init__(self, pack_hook, unpack_hook):
        for what, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise TypeError(f"saved_tensors_hooks: {what} must be callable, got "
                                f"{type(hook).__name__}")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._prev = None

    def __enter__(self):
        self._prev = set_saved_hooks(saved_hooks() + ((self.pack_hook, self.unpack_hook),))
        return self

    def __exit__(self, *exc):
        set_saved_hooks(self._prev)
        return False
