"""Exercise 25 · what a loss depends on, read from PyTorch's graph (lesson 15).

``depends_on(loss, params)``: the names of the parameters that ``loss.backward()``
would send a gradient to, found by walking PyTorch's backward graph by hand.

``params`` is a dict ``{name: tensor}``, for instance
``dict(model.named_parameters())``.  The graph starts at ``loss.grad_fn``, a Node;
each Node's ``next_functions`` is a tuple of ``(node, input_nr)`` pairs, one per
input of the op it differentiates:

* ``node`` is ``None`` for an input that needs no gradient (the data, a constant,
  a detached tensor): there is nothing to follow;
* a leaf tensor's Node is an ``AccumulateGrad``; its ``.variable`` is the leaf
  itself, and its ``next_functions`` is empty.

Walk every Node reachable from ``loss.grad_fn`` **without recursion** (a list used
as a stack, and a set of the Nodes already seen: a Node used twice is walked once,
and a chain thousands of Nodes deep must work), collect the tensors the
``AccumulateGrad`` Nodes hold, and return the names of the parameters among them
as a list **in the order of** ``params``.

* Compare tensors by identity (``is``, or ``id()``), never by value: ``==`` on two
  tensors compares their numbers, and two parameters can hold the same numbers.
* A leaf that is not in ``params`` (an input made with ``requires_grad=True``) is
  left out.
* A loss with no ``grad_fn`` (computed under ``torch.no_grad()``) depends on no
  parameter: return ``[]``.

You need no ``import torch`` for this.

Check it:  python -m exercises ex25   (in a notebook: ``check("ex25")``)
(The check needs PyTorch: ``pip install "minigrad-kit[torch]"``; without it, it is skipped.)
"""

__all__ = ["depends_on"]


def depends_on(loss, params: dict) -> list:
    """The names in ``params`` of the leaves ``loss``'s graph reaches, in ``params``' order."""
    raise NotImplementedError
