"""Wrong answers that ``checks/ex21_ready_queue.py`` must reject (lesson 13)."""

from __future__ import annotations

from collections import deque

from minigrad import topological_order

from ._registry import mistake


def _counts(root, per_edge=True, when_seen=True, constants=False, with_root=False):
    counts = {root.id: 0} if with_root else {}
    seen, stack = {root.id}, [root]
    while stack:
        node = stack.pop()
        if node.op is None:
            continue
        parents = node.parents if per_edge else {p.id: p for p in node.parents}.values()
        for parent in parents:
            new = parent.id not in seen
            if (parent.requires_grad or constants) and (when_seen or new):
                counts[parent.id] = counts.get(parent.id, 0) + 1
            if new:
                seen.add(parent.id)
                stack.append(parent)
    return counts


mistake("ex21", "pending_counts", "counts users, not edges", "count edges, not users")(
    lambda root: _counts(root, per_edge=False))
mistake("ex21", "pending_counts", "counts a reused node once", "already seen")(
    lambda root: _counts(root, when_seen=False))
mistake("ex21", "pending_counts", "counts constants", "requires_grad False")(
    lambda root: _counts(root, constants=True))
mistake("ex21", "pending_counts", "gives the root a count", "nothing uses the root")(
    lambda root: _counts(root, with_root=True))
mistake("ex21", "pending_counts", "sorts with topological_order", "counting needs no sort")(
    lambda root: {n.id: 1 for n in topological_order(root)})


@mistake("ex21", "pending_counts", "walks by recursion", "recursion limit")
def _recursive_counts(root):
    counts, seen = {}, set()

    def walk(node):
        seen.add(node.id)
        for parent in node.parents:
            if parent.requires_grad:
                counts[parent.id] = counts.get(parent.id, 0) + 1
            if parent.id not in seen:
                walk(parent)

    walk(root)
    return counts


def _accumulate(parent, local, overwrite=False):
    parent.grad = local if parent.grad is None or overwrite else parent.grad + local


@mistake("ex21", "ready_queue_backward", "pushes on every contribution (DFS re-visits)",
         "ran twice")
def _naive_recursion(root, gradient=1.0):
    """Lesson 2's recursive backward: push to a parent, then recurse into it at once."""
    root.grad, ran = gradient, []

    def push(node, g):
        ran.append(node)
        for parent, rule in zip(node.parents, node.op.grads):
            if parent.requires_grad:
                local = rule(g, *node.saved)
                _accumulate(parent, local)
                if parent.op is not None:
                    push(parent, parent.grad)

    push(root, gradient)
    return ran


def _queue(root, gradient, ready_when, overwrite=False):
    pending = _counts(root)
    root.grad, ran, queued = gradient, [], {root.id}
    ready = deque([root])
    while ready:
        node = ready.popleft()
        ran.append(node)
        for parent, rule in zip(node.parents, node.op.grads):
            if parent.requires_grad:
                _accumulate(parent, rule(node.grad, *node.saved), overwrite)
                pending[parent.id] -= 1
                if ready_when(pending[parent.id]) and parent.op is not None \
                        and parent.id not in queued:
                    queued.add(parent.id)
                    ready.append(parent)
    return ran


mistake("ex21", "ready_queue_backward", "runs a node on its first contribution",
        "only when its count reaches zero")(
    lambda root, gradient=1.0: _queue(root, gradient, lambda left: True))
mistake("ex21", "ready_queue_backward", "overwrites instead of adding", "+=")(
    lambda root, gradient=1.0: _queue(root, gradient, lambda left: left == 0, overwrite=True))
mistake("ex21", "ready_queue_backward", "calls minigrad's backward", "write the loop yourself")(
    lambda root, gradient=1.0: root.backward(gradient))


@mistake("ex21", "ready_queue_backward", "returns the leaves too", "is a leaf")
def _with_leaves(root, gradient=1.0):
    from exercises.solutions.ex21_ready_queue import ready_queue_backward

    ran = ready_queue_backward(root, gradient)
    return ran + [p for n in ran for p in n.parents if p.op is None][:1]
