"""Reference solution for exercise 08 (zero_grad, and accumulating on purpose)."""

__all__ = ["gradient_descent", "accumulate_gradients"]


def gradient_descent(params, loss_fn, lr: float, steps: int) -> list[float]:
    """Plain gradient descent; returns the loss value of each step (before its update)."""
    losses = []
    for _ in range(steps):
        for p in params:
            p.zero_grad()
        loss = loss_fn()
        loss.backward()
        for p in params:
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses


def accumulate_gradients(params, loss_fns) -> float:
    """Leave the gradient of the mean of the losses in ``p.grad``; return the mean loss."""
    for p in params:
        p.zero_grad()
    k = len(loss_fns)
    total = 0.0
    for loss_fn in loss_fns:
        loss = loss_fn()
        loss.backward(1.0 / k)  # d(mean)/d(loss_i) = 1/k; the graph is freed after each call
        total += loss.data
    return total / k
