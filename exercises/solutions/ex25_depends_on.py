"""Reference solution for exercise 25 (what a loss depends on, from next_functions)."""

__all__ = ["depends_on"]


def depends_on(loss, params: dict) -> list:
    """The names in ``params`` of the leaves ``loss``'s graph reaches, in ``params``' order."""
    root = loss.grad_fn
    if root is None:
        return []
    reached = set()  # id() of every leaf tensor an AccumulateGrad holds
    seen, stack = {root}, [root]
    while stack:
        node = stack.pop()
        if hasattr(node, "variable"):  # AccumulateGrad: a leaf
            reached.add(id(node.variable))
        for parent, _input_nr in node.next_functions:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return [name for name, tensor in params.items() if id(tensor) in reached]
