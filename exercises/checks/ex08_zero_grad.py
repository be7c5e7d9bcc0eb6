"""Checks for exercise 08: a training trajectory and an accumulated gradient, both
compared with a reference, with the common slips recognised by their numbers."""

import numpy as np

from minigrad import Value
from minigrad.engines import choose

from ._support import call, close, expect_close, fail, fmt

STALE = (0.8, -0.5)  # gradients left over "from earlier work"


def _data(seed, n):
    rng = np.random.default_rng(seed)
    xs = rng.uniform(-2, 2, n)
    return [float(x) for x in xs], [float(np.tanh(0.7 * x - 0.3) + 0.1 * e)
                                    for x, e in zip(xs, rng.standard_normal(n), strict=True)]


def _loss_fn(params, xs, ys):
    w, b = params

    def loss():
        total = 0.0
        for x, y in zip(xs, ys, strict=True):
            d = (w * x + b).tanh() - y
            total = d * d + total
        return total / len(xs)

    return loss


def _params():
    w, b = Value(-0.4, label="w"), Value(0.9, label="b")
    w.grad, b.grad = STALE
    return [w, b]


def _descend(zero, lr, steps, xs, ys):
    """The reference (zero="before") and two slips: never zeroing, zeroing after the update."""
    params = _params()
    loss_fn = _loss_fn(params, xs, ys)
    losses = []
    for _ in range(steps):
        if zero == "before":
            for p in params:
                p.grad = None
        loss = loss_fn()
        loss.backward()
        for p in params:
            p.data -= lr * p.grad
            if zero == "after":
                p.grad = None
        losses.append(loss.data)
    return losses, [p.data for p in params]


def check_gradient_descent(gradient_descent):
    xs, ys = _data(8, 6)
    lr, steps = 0.3, 6
    params = _params()
    losses = call(gradient_descent, "gradient_descent",
                  {"params": params, "loss_fn": _loss_fn(params, xs, ys), "lr": lr,
                   "steps": steps},
                  context=f"gradient_descent([w, b], loss_fn, lr={lr}, steps={steps})")
    context = f"gradient_descent([w, b], loss_fn, lr={lr}, steps={steps})"
    if not isinstance(losses, (list, tuple)) or len(losses) != steps:
        fail(f"{context} should return a list of {steps} loss values, got {fmt(losses)}")
    kept = next((v for v in losses if not isinstance(v, float)), None)
    if kept is not None:
        # A Value in the list holds its whole graph (every saved input, every parent), so
        # all `steps` graphs stay alive: the memory leak lesson 7 is about.
        fail(f"{context}: the losses should be Python floats, got {type(kept).__name__} "
             f"{fmt(kept)}",
             "append loss.data (or float(loss)), not loss: a Value keeps its whole graph "
             "alive, so the list would hold every step's graph in memory")
    want_losses, want_params = _descend("before", lr, steps, xs, ys)
    got_params = [p.data for p in params]
    if close(got_params, want_params) and close(losses, want_losses):
        return
    start = [-0.4, 0.9]
    if close(got_params, start):
        fail(f"{context}: the parameters did not move (w, b = {fmt(got_params)})",
             "update them in place, p.data -= lr * p.grad (p = p - ... makes a new node and "
             "leaves the parameter alone), and zero the gradients before backward, not between "
             "backward and the update")
    for slip, hint in (
            ("never", "gradients from earlier steps are still in p.grad: zero every parameter's "
                      "gradient (p.zero_grad()) at the start of each step"),
            ("after", "the stale gradient the parameters arrived with was used in step 1: zero "
                      "before backward, at the start of each step, not after the update")):
        slip_losses, slip_params = _descend(slip, lr, steps, xs, ys)
        if close(got_params, slip_params):
            fail(f"{context}: the parameters end at (w, b) = {fmt(got_params)}, expected "
                 f"{fmt(want_params)}", hint)
    if not close(got_params, want_params):
        fail(f"{context}: the parameters end at (w, b) = {fmt(got_params)}, expected "
             f"{fmt(want_params)}", "each step: zero the gradients, build the loss, backward, "
             "then p.data -= lr * p.grad")
    expect_close(np.asarray(losses, dtype=float), np.asarray(want_losses), what="the losses",
                 context=context, hint="record loss.data of each step (before the update)")


class _CountingBackward:
    def __init__(self):
        self.calls = 0
        self.original = choose.backward

    def __enter__(self):
        def counted(*args, **kwargs):
            self.calls += 1
            return self.original(*args, **kwargs)

        choose.backward = counted
        return self

    def __exit__(self, *exc):
        choose.backward = self.original
        return False


def check_accumulate_gradients(accumulate_gradients):
    xs, ys = _data(9, 9)
    batches = [(xs[i:i + 3], ys[i:i + 3]) for i in (0, 3, 6)]
    k = len(batches)
    context = "accumulate_gradients([w, b], [loss_1, loss_2, loss_3])"

    ref = _params()
    for p in ref:
        p.grad = None
    mean = sum((_loss_fn(ref, bx, by)() for bx, by in batches), 0.0) / k
    mean.backward()
    want = [p.grad for p in ref]

    params = _params()
    with _CountingBackward() as counter:
        got = call(accumulate_gradients, "accumulate_gradients",
                   {"params": params, "loss_fns": [_loss_fn(params, bx, by) for bx, by in batches]},
                   context=context)
    expect_close(got, mean.data, what="the returned mean loss", context=context,
                 hint="return (L₁ + … + L_k) / k as a float")
    grads = [p.grad for p in params]
    if any(g is None for g in grads):
        fail(f"{context}: p.grad is None afterwards: call backward on each micro-batch's loss")
    if counter.calls == 1 and k > 1:
        fail(f"{context}: backward was called once for {k} micro-batches",
             "call backward once per micro-batch, so only one small graph is alive at a time")
    if close(grads, want):
        return
    last_x, last_y = batches[-1]
    last = _params()
    for p in last:
        p.grad = None
    _loss_fn(last, last_x, last_y)().backward()
    hints = [
        ([k * w for w in want], "this is the gradient of the *sum*: scale each micro-batch by "
                                "1/k (loss.backward(1 / k))"),
        ([w + s for w, s in zip(want, STALE, strict=True)],
         "the stale gradient the parameters arrived with is still in there: zero once, first"),
        ([p.grad for p in last], "only the last micro-batch is left: do not zero between "
                                 "micro-batches, gradients are meant to add up"),
        ([p.grad / k for p in last], "only the last micro-batch is left: do not zero between "
                                     "micro-batches, gradients are meant to add up"),
    ]
    hint = next((h for slip, h in hints if close(grads, slip)), None)
    fail(f"{context}: (w.grad, b.grad) = {fmt(tuple(grads))}, expected {fmt(tuple(want))}",
         hint or "zero once, then loss_i.backward(1 / k) for each micro-batch")
