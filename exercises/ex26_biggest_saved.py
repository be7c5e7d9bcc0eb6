"""Exercise 26 · the saved tensor that holds the most memory in PyTorch's graph (lesson 15).

``biggest_saved(loss)``: walk the backward graph behind ``loss`` and return
``(node_name, attribute, nbytes)`` for the saved tensor that takes the most bytes,
or ``None`` when no saved tensor can be read.

What a Node keeps for its backward rule shows up as its attributes whose names start
with ``_saved_`` (``dir(node)`` lists them): ``MulBackward0`` has ``_saved_self``
and ``_saved_other`` (each factor, for the other's gradient), ``TanhBackward0``
has ``_saved_result`` (tanh's derivative is 1 − result²), ``MmBackward0`` has
``_saved_self`` and ``_saved_mat2``, and many have settings that are not tensors
(``_saved_dim``, ``_saved_self_sym_sizes``).

* Walk every Node reachable from ``loss.grad_fn`` through ``next_functions``
  **without recursion**, each Node once (as in exercise 25); skip ``None`` entries.
* On each Node read every ``_saved_*`` attribute with ``getattr``.  Only torch
  tensors count (``isinstance(value, torch.Tensor)``); sizes, dims, scalars and
  tuples do not.
* A tensor's bytes are ``value.numel() * value.element_size()``: a float64 number
  takes 8 bytes, a float32 one 4.  The number of elements alone is not the memory.
* After ``loss.backward()`` without ``retain_graph=True`` the saved tensors are
  freed, and reading one raises ``RuntimeError``: skip it.  If nothing is left (or
  ``loss.grad_fn`` is ``None``), return ``None``.
* Return ``(node.name(), attribute, nbytes)``, e.g. ``("TanhBackward0",
  "_saved_result", 40000)``: the Node's name as ``name()`` gives it, the attribute
  as ``dir()`` lists it, the bytes as an ``int``.  When several tensors tie for the
  most bytes, any of them is right.

Check it:  python -m exercises ex26   (in a notebook: ``check("ex26")``)
(The check needs PyTorch: ``pip install "minigrad-kit[torch]"``; without it, it is skipped.)
"""

__all__ = ["biggest_saved"]


def biggest_saved(loss):
    """``(node_name, attribute, nbytes)`` of the largest saved tensor behind ``loss``, or
    ``None``."""
    raise NotImplementedError
