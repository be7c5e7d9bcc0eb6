"""Wrong answers that ``checks/ex25_depends_on.py`` must reject (lesson 15)."""

from __future__ import annotations

from ._registry import mistake


def _leaves(root, skip_none=True):
    """Every leaf tensor an AccumulateGrad below ``root`` holds, in the order found."""
    found, seen, stack = [], {root}, [root]
    while stack:
        node = stack.pop()
        if hasattr(node, "variable"):
            found.append(node.variable)
        for parent, _ in node.next_functions:
            if parent is None and skip_none:
                continue
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return found


def _by_id(params, leaves):
    ids = {id(t) for t in leaves}
    return [name for name, t in params.items() if id(t) in ids]


@mistake("ex25", "depends_on", "walks the graph by recursion", "explicit stack")
def _recursive(loss, params):
    ids = set()

    def visit(node):
        if hasattr(node, "variable"):
            ids.add(id(node.variable))
        for parent, _ in node.next_functions:
            if parent is not None:
                visit(parent)

    if loss.grad_fn is not None:
        visit(loss.grad_fn)
    return [name for name, t in params.items() if id(t) in ids]


@mistake("ex25", "depends_on", "every parameter with requires_grad", "graph reaches")
def _requires_grad(loss, params):
    return [name for name, t in params.items() if t.requires_grad]


@mistake("ex25", "depends_on", "matches leaves by value", "identity")
def _by_value(loss, params):
    import torch

    if loss.grad_fn is None:
        return []
    leaves = _leaves(loss.grad_fn)
    return [name for name, t in params.items()
            if any(t.shape == v.shape and torch.equal(t, v) for v in leaves)]


@mistake("ex25", "depends_on", "`t in a list of tensors`", "id(")
def _in_list(loss, params):
    if loss.grad_fn is None:
        return []
    leaves = _leaves(loss.grad_fn)
    return [name for name, t in params.items() if t in leaves]


@mistake("ex25", "depends_on", "only the loss's own inputs", "all the way down")
def _first_level(loss, params):
    if loss.grad_fn is None:
        return []
    leaves = [p.variable for p, _ in loss.grad_fn.next_functions if hasattr(p, "variable")]
    return _by_id(params, leaves)


@mistake("ex25", "depends_on", "follows the None of an input with no gradient", "(None, 0)")
def _follows_none(loss, params):
    if loss.grad_fn is None:
        return []
    return _by_id(params, _leaves(loss.grad_fn, skip_none=False))


@mistake("ex25", "depends_on", "in the order the walk found them", "order of params")
def _walk_order(loss, params):
    if loss.grad_fn is None:
        return []
    names = {id(t): name for name, t in params.items()}
    return [names[id(v)] for v in _leaves(loss.grad_fn) if id(v) in names]


@mistake("ex25", "depends_on", "looks every leaf up in params", "not in params")
def _every_leaf(loss, params):
    if loss.grad_fn is None:
        return []
    names = {id(t): name for name, t in params.items()}
    found = {names[id(v)] for v in _leaves(loss.grad_fn)}
    return [name for name in params if name in found]


@mistake("ex25", "depends_on", "assumes the loss has a graph", "return []")
def _no_graph(loss, params):
    return _by_id(params, _leaves(loss.grad_fn))


@mistake("ex25", "depends_on", "returns the tensors", "not the tensors")
def _tensors(loss, params):
    if loss.grad_fn is None:
        return []
    ids = {id(t) for t in _leaves(loss.grad_fn)}
    return [t for t in params.values() if id(t) in ids]
