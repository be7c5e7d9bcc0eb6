"""Reference solution for exercise 21 (backward with dependency counts and a ready queue)."""

from collections import deque

__all__ = ["pending_counts", "ready_queue_backward"]


def pending_counts(root) -> dict:
    """``{node.id: edges into it from op nodes}`` for every node ``root`` depends on
    that requires grad and that something uses."""
    counts: dict = {}
    seen = {root.id}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.op is None:
            continue
        for parent in node.parents:
            if parent.requires_grad:
                counts[parent.id] = counts.get(parent.id, 0) + 1  # one per edge
            if parent.id not in seen:
                seen.add(parent.id)
                stack.append(parent)
    return counts


def ready_queue_backward(root, gradient: float = 1.0) -> list:
    """Fill ``.grad`` by running each node when its count reaches zero; return the op
    nodes in the order they ran."""
    pending = pending_counts(root)
    root.grad = gradient
    ready = deque([root] if root.op is not None else [])
    ran = []
    while ready:
        node = ready.popleft()
        ran.append(node)
        for parent, rule in zip(node.parents, node.op.grads, strict=True):
            if not parent.requires_grad:
                continue
            local = rule(node.grad, *node.saved)
            parent.grad = local if parent.grad is None else parent.grad + local
            pending[parent.id] -= 1
            if pending[parent.id] == 0 and parent.op is not None:
                ready.append(parent)  # complete: every user has contributed
    return ran
