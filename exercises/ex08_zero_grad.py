"""Exercise 08 · zero_grad, and accumulating on purpose (lesson 3).

Leaves *accumulate*: every ``backward()`` adds into ``p.grad`` (``+=``), it
never overwrites it.  The engine has to add (exercise 07), and adding across
calls comes for free, and is useful (part 2).  But in a training loop
yesterday's gradient must not leak into today's step: forget to zero and each
step moves by the sum of all gradients so far.

Part 1.  ``gradient_descent(params, loss_fn, lr, steps)``: ``params`` is a list
of leaf ``Value``s, ``loss_fn()`` builds the loss from them and returns it (a
``Value``).  Repeat ``steps`` times: zero every gradient (``p.zero_grad()``
sets it to ``None``), build the loss, ``backward()``, then update each
parameter in place, ``p.data -= lr * p.grad``.  Return the list of the loss
values (floats) of each step.  The parameters may arrive with a stale
``.grad`` from earlier work: it must not affect the first step.

Part 2.  Accumulating on purpose: a batch too big for memory is split into
micro-batches, one graph each.  ``accumulate_gradients(params, loss_fns)``:
``loss_fns`` is a list of k functions, each building one micro-batch's loss.
Leave in each ``p.grad`` the gradient of the *mean* loss,
``(L₁ + … + L_k) / k``, by calling ``backward`` once per micro-batch (scale
each: ``backward(1 / k)`` seeds dL/dLᵢ = 1/k) and zeroing only once, at the
start.  Return the mean loss value (a float).

Check it:  python -m exercises ex08   (in a notebook: ``check("ex08")``)
"""

__all__ = ["gradient_descent", "accumulate_gradients"]


def gradient_descent(params, loss_fn, lr: float, steps: int) -> list[float]:
    """Plain gradient descent; returns the loss value of each step (before its update)."""
    raise NotImplementedError


def accumulate_gradients(params, loss_fns) -> float:
    """Leave the gradient of the mean of the losses in ``p.grad``; return the mean loss."""
    raise NotImplementedError
