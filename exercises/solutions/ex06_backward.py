"""Reference solution for exercise 06 (the backward pass: a chain-rule loop)."""

from minigrad import topological_order

__all__ = ["backward"]


def backward(root, gradient: float = 1.0) -> None:
    """Fill ``.grad`` of every node ``root`` depends on (that requires grad)."""
    root.grad = gradient
    for node in reversed(topological_order(root)):
        if node.op is None or node.grad is None:
            continue
        for parent, rule in zip(node.parents, node.op.grads, strict=True):
            if parent.requires_grad:
                local = rule(node.grad, *node.saved)
                parent.grad = local if parent.grad is None else parent.grad + local
