"""Checks for exercise 06: every gradient in the graph against minigrad's engine."""

from minigrad.autograd.differentiable import Differentiable
from minigrad.core import backward as core_backward
from minigrad.engines import choose

from . import _graphs
from ._support import call, close, fail, fmt, forbidding, rng_for

WHY = "ex06: write the loop yourself instead of calling minigrad's backward"
HIDDEN = [(choose, "backward"), (core_backward, "backward"),
            (Differentiable, "backward")]

CASES = [
    ("a*b + a", _graphs.mul_add, 1.0),
    ("x*x", _graphs.square, None),
    ("the diamond tanh((3x)·exp(x))", _graphs.diamond, None),
    ("a random expression (seed 1)", lambda: _graphs.random_expression(1), None),
    ("a random expression (seed 2)", lambda: _graphs.random_expression(2), None),
    ("a random expression (seed 5)", lambda: _graphs.random_expression(5, 4, 40), None),
]


def compare_grads(name, student_graph, reference_graph, call_text):
    """Compare every gradient, from the root down: the first wrong one is where it went wrong."""
    root, _, nodes = student_graph
    ref_root, _, ref_nodes = reference_graph
    reachable = _graphs.graph_ids(root)
    users = _graphs.uses(nodes)
    for mine, ref in reversed(list(zip(nodes, ref_nodes, strict=True))):
        if mine.id not in reachable or not mine.requires_grad:
            continue
        if ref.grad is not None and mine.grad is not None and close(mine.grad, ref.grad):
            continue
        what = f"{fmt(mine)}.grad = {fmt(mine.grad)}, expected {fmt(ref.grad)}"
        if mine is root:
            hint = "seed the root: root.grad = gradient"
        elif mine.grad is None:
            hint = ("no gradient reached this node: walk every node in reversed topological "
                    "order and give each parent its share")
        elif users.get(mine.id, 0) > 1:
            hint = (f"this node is used {users[mine.id]} times (one edge each), so its gradient "
                    f"is the sum of {users[mine.id]} contributions: add each one in (+=) "
                    f"instead of overwriting")
        else:
            hint = "each parent's share is rule(node.grad, *node.saved) for its own rule"
        fail(f"after {call_text} on {name}: {what}", hint)


def check_backward(backward):
    rng = rng_for("ex06.backward")
    for name, build, gradient in CASES:
        if gradient is None:
            gradient = float(rng.uniform(0.5, 2.0) * rng.choice([-1, 1]))
        student, reference = build(), build()
        reference[0].backward(gradient)
        call_text = f"backward(root, gradient={gradient:.4g})"
        with forbidding(backward, HIDDEN, WHY):
            call(backward, "backward", {"root": student[0], "gradient": gradient},
                 context=f"{call_text} on {name}")
        compare_grads(name, student, reference, call_text)
        _constants_untouched(name, student, call_text)


def _constants_untouched(name, student_graph, call_text):
    """Nodes that do not require grad (constants, inputs) must keep grad None: the engine
    skips them, which is also what keeps their gradients from being computed at all."""
    root, _, nodes = student_graph
    reachable = _graphs.graph_ids(root)
    for n in nodes:
        if n.id in reachable and not n.requires_grad and n.grad is not None:
            fail(f"after {call_text} on {name}: {fmt(n)} does not require grad, but its "
                 f".grad = {fmt(n.grad)}, expected None",
                 "skip parents with requires_grad False (`if parent.requires_grad:`): "
                 "constants get no gradient")
