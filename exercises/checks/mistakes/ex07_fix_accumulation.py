"""Wrong answers that ``checks/ex07_fix_accumulation.py`` must reject (lesson 3)."""

from __future__ import annotations

from minigrad import topological_order

from ._registry import mistake


def _broken_grad(root, inputs):
    from exercises.ex07_fix_accumulation import broken_grad

    return broken_grad(root, inputs)


mistake("ex07", "grad", "the broken engine itself", "sum of one term per edge")(_broken_grad)


@mistake("ex07", "grad", "fixed, but crashes on an input root does not use", "KeyError")
def _no_default(root, inputs):
    grads = _walk_into({root: 1.0}, root)
    return [grads[x] for x in inputs]


def _walk_into(grads, root):
    """The fixed engine's walk, into ``grads`` (which holds the root's seed)."""
    for node in reversed(topological_order(root)):
        if node.op is None or node not in grads:
            continue
        for parent, rule in zip(node.parents, node.op.grads, strict=True):
            if parent.requires_grad:
                grads[parent] = grads.get(parent, 0.0) + rule(grads[node], *node.saved)
    return grads


@mistake("ex07", "grad", "writes into .grad", ".grad")
def _writes_grad(root, inputs):
    result = _no_default_safe(root, inputs)
    for x in inputs:
        x.grad = 1.0
    return result


_KEPT: dict = {}  # the mistake below: a dict that outlives each call


@mistake("ex07", "grad", "a module-level dict kept between calls", "between calls")
def _module_dict(root, inputs):
    _KEPT[root] = 1.0
    _walk_into(_KEPT, root)
    return [_KEPT.get(x, 0.0) for x in inputs]


def _no_default_safe(root, inputs):
    from exercises.solutions.ex07_fix_accumulation import grad

    return grad(root, inputs)
