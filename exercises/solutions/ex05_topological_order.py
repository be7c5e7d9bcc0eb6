"""Reference solution for exercise 05 (a topological sort without recursion)."""

__all__ = ["topological_order"]


def topological_order(root) -> list:
    """Every node ``root`` depends on (``root`` included), once each, parents first."""
    order, expanded = [], set()
    stack = [(root, False)]  # (node, are its parents finished?)
    while stack:
        node, parents_finished = stack.pop()
        if parents_finished:
            order.append(node)
            continue
        if id(node) in expanded:  # pushed twice (a shared node): already handled
            continue
        expanded.add(id(node))
        stack.append((node, True))  # pops again after every parent pushed below is done
        for parent in node.parents:
            if id(parent) not in expanded:
                stack.append((parent, False))
    return order
