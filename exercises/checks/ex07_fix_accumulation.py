"""Checks for exercise 07: gradients of shared subexpressions, and a pure function."""

from minigrad import Value
from minigrad.autograd.differentiable import Differentiable
from minigrad.core import backward as core_backward
from minigrad.engines import choose

from . import _graphs
from ._support import call, close, expect_close, fail, fmt, forbidding

WHY = "ex07: fix the loop in broken_grad instead of calling minigrad's backward"
HIDDEN = [(choose, "backward"), (core_backward, "backward"),
            (Differentiable, "backward")]


def _cases():
    yield "x*x", _graphs.square, ("x",)
    yield "a*b + a", _graphs.mul_add, ("a", "b")
    yield "the diamond tanh((3x)·exp(x))", _graphs.diamond, ("x",)
    for seed in (1, 2, 3):
        yield f"a random expression (seed {seed})", (
            lambda seed=seed: _graphs.random_expression(seed)), ("a", "b", "c")


def check_grad(grad):
    for name, build, labels in _cases():
        student, reference = build(), build()
        root, leaves, nodes = student
        inputs = [leaves[k] for k in labels]
        reference[0].backward()
        expected = [reference[1][k].grad for k in labels]
        # An input the root does not depend on, and an intermediate node.
        outsider = Value(1.0, label="outsider")
        inputs.append(outsider)
        expected.append(0.0)
        inner = next((n for n in reversed(nodes) if n.op is not None and n is not root), None)
        if inner is not None:
            inputs.append(inner)
            expected.append(next(r for m, r in zip(nodes, reference[2], strict=True)
                                 if m is inner).grad)
        context = f"grad(root, [{', '.join(x.label or f'#{x.id}' for x in inputs)}]) on {name}"
        first = None
        for attempt in ("", " (called a second time)"):
            with forbidding(grad, HIDDEN, WHY):
                got = call(grad, "grad", {"root": root, "inputs": inputs},
                           context=context + attempt)
            if not isinstance(got, (list, tuple)) or len(got) != len(inputs):
                fail(f"{context}{attempt} should return a list of {len(inputs)} numbers, one per "
                     f"input, got {fmt(got)}")
            users = _graphs.uses(nodes)
            # A second call that disagrees with the first points at state kept between calls
            # (a module-level dict), not at the per-edge sum.
            changed = first is not None and not close(list(got), first)
            first = list(got) if first is None else first
            for x, g, e in zip(inputs, got, expected, strict=True):
                shared = users.get(x.id, 0)
                hint = (f"{x.label or 'this node'} is used by {shared} edges: its gradient is "
                        f"the sum of one term per edge" if shared > 1 else None)
                if changed:
                    hint = ("the second call returned something different from the first: "
                            "state is kept between calls (a dict outside the function?); "
                            "start every call from a fresh dict")
                expect_close(g, e, what=f"d root/d {x.label or fmt(x)}",
                             context=context + attempt, hint=hint)
            touched = [n for n in nodes if n.grad is not None]
            if touched:
                fail(f"{context}: {fmt(touched[0])}.grad was set to {fmt(touched[0].grad)}",
                     "keep the gradients in your own dict: this engine leaves .grad alone")
