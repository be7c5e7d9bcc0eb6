"""Exercise 22 · hooks: saved values in half precision, gradients clipped per tensor (lesson 13).

Part 1.  ``half_precision_hooks()``: return a pair ``(pack, unpack)`` for
``minigrad.autograd.saved_tensors_hooks``, so that

    with saved_tensors_hooks(*half_precision_hooks()):
        loss = model(x) ...

stores what each op saves for backward at half the bytes.  Inside the block,
every value an op saves goes through ``pack`` when the node is made, and the
node keeps what ``pack`` returned; backward hands ``unpack(packed)`` to the op's
rule, which must get the value back in its shape and dtype.

* ``pack(x)``: a ``float32`` numpy array becomes a ``float16`` copy
  (``x.astype(np.float16)``: 2 bytes a number instead of 4).  Anything else
  comes back unchanged: an op may save integers (``cross_entropy`` saves the
  labels), and float16 cannot hold them exactly.
* ``unpack(p)``: a ``float16`` array becomes ``float32`` again; anything else is
  returned as it is.

float16 keeps about three significant digits, so the gradients change a little
(the check compares them with the plain ones to 2%), and what every op saved
takes half the memory (the check weighs it with ``minigrad.graph_memory``).

Part 2.  ``clip_gradients(params, max_norm)``: per-tensor gradient clipping with
``register_hook``.  On each tensor in ``params`` register a hook that receives
the tensor's gradient ``g`` for this backward pass (a read-only numpy array) and,
when its norm ``‖g‖ = sqrt(Σ g²)`` is above ``max_norm``, returns ``g`` scaled
down to norm ``max_norm``:  ``g · (max_norm / ‖g‖)``, a new array of ``g``'s
dtype.  A gradient already within the limit is left as it is (return ``None``).
Return the handles ``register_hook`` gave you, one per tensor, in order (so
that ``handle.remove()`` turns clipping off again).  The hook runs before the
gradient is added into ``.grad``, so only this pass's gradient is clipped, not
what ``.grad`` held from earlier passes.

Check it:  python -m exercises ex22   (in a notebook: ``check("ex22")``)
"""

import numpy as np  # noqa: F401  (you will want it)

__all__ = ["half_precision_hooks", "clip_gradients"]


def half_precision_hooks() -> tuple:
    """``(pack, unpack)``: float32 saved values stored as float16, the rest as they are."""
    raise NotImplementedError


def clip_gradients(params, max_norm: float) -> list:
    """Register a hook on each of ``params`` that scales its gradient to norm at most
    ``max_norm``; return the handles."""
    raise NotImplementedError
