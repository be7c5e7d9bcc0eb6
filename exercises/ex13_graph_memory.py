"""Exercise 13 · what a graph holds in memory, and not building one (lesson 7).

A graph keeps arrays alive for backward: each op node's ``node.saved`` holds
what its gradient rule needs (``mul`` its two inputs, ``tanh`` its output,
``matmul`` both factors ...).  Backward releases them (``node.saved`` becomes
``None``) unless ``retain_graph=True``.  Saving is by reference, not by copy,
so memory is counted per *buffer*:

* an array saved twice (``x * x`` saves ``x`` twice; ``tanh`` saves its output,
  which the next op may save again) is one buffer, counted once;
* a view (``x.T``, ``x[1:3]``, a reshape) shares the memory of the array it
  views: it holds that whole *base* array.  Follow ``a.base`` while it is an
  ``np.ndarray`` to find it, and count its ``nbytes``.

Part 1.  ``saved_bytes(root)``: the number of bytes held by the ``saved``
arrays of the graph behind the Tensor ``root``, each buffer counted once, with
nodes whose saved values were released (``None``) holding nothing.  Walk the
graph with ``minigrad.topological_order(root)``; leaves save nothing (``()``).
``node.saved`` is a tuple that can also hold things that are not arrays
(``sum``, ``mean`` and ``reshape`` save their input's *shape*, a tuple of
ints): only the ``np.ndarray`` items hold array memory.

Part 2.  Evaluating a model builds the same graph as training unless you say
otherwise, and the graph (with all its saved arrays) lives until the result is
dropped.  ``evaluate(model, loss_fn, batches)``: for each ``(x, y)`` in
``batches`` compute ``loss_fn(model(x), y)`` and return the list of losses as
floats, *without building any graph* (``minigrad.no_grad()``), leaving grad
mode as you found it.

Check it:  python -m exercises ex13   (in a notebook: ``check("ex13")``)
"""

__all__ = ["saved_bytes", "evaluate"]


def saved_bytes(root) -> int:
    """Bytes held by the graph's saved arrays, each memory buffer counted once."""
    raise NotImplementedError


def evaluate(model, loss_fn, batches) -> list[float]:
    """The loss of each batch, as floats, computed without recording a graph."""
    raise NotImplementedError
