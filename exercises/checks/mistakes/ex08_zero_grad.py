"""Wrong answers that ``checks/ex08_zero_grad.py`` must reject (lesson 3)."""

from __future__ import annotations

from ._registry import mistake


def _descent(zero, keep_nodes=False):
    def gradient_descent(params, loss_fn, lr, steps):
        losses = []
        for _ in range(steps):
            if zero == "before":
                for p in params:
                    p.zero_grad()
            loss = loss_fn()
            loss.backward()
            if zero == "between":
                for p in params:
                    p.zero_grad()
            for p in params:
                p.data -= lr * (p.grad or 0.0)
                if zero == "after":
                    p.zero_grad()
            losses.append(loss if keep_nodes else loss.data)
        return losses

    return gradient_descent


mistake("ex08", "gradient_descent", "never zeroes", "zero every parameter")(_descent("never"))
mistake("ex08", "gradient_descent", "keeps the loss Values (and their graphs)", "loss.data")(
    _descent("before", keep_nodes=True))
mistake("ex08", "gradient_descent", "zeroes after the update", "stale gradient")(_descent("after"))
mistake("ex08", "gradient_descent", "zeroes before the update", "did not move")(
    _descent("between"))


@mistake("ex08", "gradient_descent", "p = p - lr * grad (rebinds, no update)", "did not move")
def _rebinds(params, loss_fn, lr, steps):
    losses = []
    for _ in range(steps):
        for p in params:
            p.zero_grad()
        loss = loss_fn()
        loss.backward()
        for p in params:
            p = p - lr * p.grad  # the mistake: a new node, the parameter is untouched
        losses.append(loss.data)
    return losses


def _accumulate(zero, scale=True, one_graph=False):
    def accumulate_gradients(params, loss_fns):
        k = len(loss_fns)
        if zero == "once":
            for p in params:
                p.zero_grad()
        if one_graph:
            mean = sum((f() for f in loss_fns), 0.0) / k
            mean.backward()
            return mean.data
        total = 0.0
        for f in loss_fns:
            if zero == "each":
                for p in params:
                    p.zero_grad()
            loss = f()
            loss.backward(1.0 / k if scale else 1.0)
            total += loss.data
        return total / k

    return accumulate_gradients


mistake("ex08", "accumulate_gradients", "forgets 1/k", "*sum*")(_accumulate("once", scale=False))
mistake("ex08", "accumulate_gradients", "never zeroes", "stale")(_accumulate("never"))
mistake("ex08", "accumulate_gradients", "zeroes between micro-batches", "last micro-batch")(
    _accumulate("each"))
mistake("ex08", "accumulate_gradients", "one big graph", "once per micro-batch")(
    _accumulate("once", one_graph=True))
