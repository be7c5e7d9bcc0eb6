"""Checks for exercise 21: pending counts against minigrad's scheduler, and a ready-queue
backward whose gradients match minigrad's and whose nodes each ran once, after all
their users (every contribution had arrived)."""

import contextlib

import minigrad
from minigrad import Value
from minigrad.autograd.differentiable import Differentiable
from minigrad.core import backward as core_backward
from minigrad.core import order
from minigrad.engines import choose
from minigrad.engines.ready_queue import dependencies

from . import _graphs
from ._support import call, expect_returned, fail, fmt, forbidding, rng_for
from .ex06_backward import compare_grads

WHY = {"backward": "ex21: write the loop yourself instead of calling minigrad's backward",
       "topological_order": "ex21: write the walk yourself instead of calling minigrad's "
                            "topological_order: the point of the ready queue is that counting "
                            "needs no sort (a stack and a set of seen ids will do)"}
HIDDEN = {"backward": [(choose, "backward"), (core_backward, "backward"),
            (Differentiable, "backward")],
          "topological_order": [(order, "topological_order"), (minigrad, "topological_order"),
                                (minigrad.autograd, "topological_order")]}
RUN_ONCE = ("each node runs exactly once, when its count reaches zero (a recursive walk "
            "that pushes a node again at every contribution re-visits a reused node)")
WAIT = ("run a node only when its count reaches zero: its gradient is complete only after "
        "every node that uses it has sent its contribution")


def diamonds(k: int):
    """``h = tanh(h) + 0.5·h``, ``k`` times: every ``h`` is an op node used twice."""

    def build():
        h = Value(0.3, label="x")
        for _ in range(k):
            h = h.tanh() + h * 0.5
        return h

    return _graphs.built(build)


def self_product():
    """``t = tanh(x)``, ``t * t + t``: a non-leaf listed twice by one node, once by another."""

    def build():
        t = Value(0.8, label="x").tanh()
        t.label = "t"
        return t * t + t

    return _graphs.built(build)


CASES = [
    ("a*b + a", _graphs.mul_add),
    ("x*x", _graphs.square),
    ("t*t + t with t = tanh(x)", self_product),
    ("the diamond tanh((3x)·exp(x))", _graphs.diamond),
    ("a chain of 8 diamonds h = tanh(h) + 0.5h", lambda: diamonds(8)),
    ("a random expression (seed 1)", lambda: _graphs.random_expression(1)),
    ("a random expression (seed 5)", lambda: _graphs.random_expression(5, 4, 40)),
    ("a chain of 3,000 ops", lambda: _graphs.chain(3000)),
]


def _hidden(impl):
    """Calling minigrad's backward or topological_order fails, naming which one."""
    stack = contextlib.ExitStack()
    for name, places in HIDDEN.items():
        stack.enter_context(forbidding(impl, places, WHY[name]))
    return stack


def _expected_counts(root) -> dict:
    return dependencies(order.topological_order(root, leaves=False))


def check_pending_counts(pending_counts):
    for name, build in CASES:
        root, _, nodes = build()
        want = _expected_counts(root)
        context = f"pending_counts(root) on {name}"
        with _hidden(pending_counts):
            got = call(pending_counts, "pending_counts", {"root": root}, context=context)
        expect_returned(got, context)
        if not isinstance(got, dict):
            fail(f"{context} returned a {type(got).__name__}, expected a dict "
                 f"{{node.id: count}}")
        if any(hasattr(k, "parents") for k in got):
            fail(f"{context}: the keys should be node ids (node.id), got nodes",
                 "key the dict by node.id")
        by_id = {n.id: n for n in nodes}
        extra = [k for k in got if k not in want]
        if extra:
            n = by_id.get(extra[0])
            what = fmt(n) if n is not None else repr(extra[0])
            if n is root:
                hint = "nothing uses the root: it has no pending contributions, leave it out"
            elif n is not None and not n.requires_grad:
                hint = ("constants (requires_grad False) get no gradient, so nothing is "
                        "pending for them: count only parents that require grad")
            else:
                hint = "count only nodes that are the parent of some edge"
            fail(f"{context}: {what} should not be in the counts (got {got[extra[0]]!r})", hint)
        for node_id, count in want.items():
            if got.get(node_id) == count:
                continue
            n = by_id[node_id]
            users = {c.id for c in nodes if any(p is n for p in c.parents)}
            detail = f"{context}: the count of {fmt(n)} is {got.get(node_id)!r}, expected {count}"
            if node_id not in got:
                hint = "every node that requires grad and is some node's parent needs a count"
            elif got[node_id] == len(users) < count:
                hint = (f"count edges, not users: a node that lists {fmt(n)} twice in its "
                        f"parents (x * x) sends two contributions, so it waits for {count}")
            elif got[node_id] == 1:
                hint = ("count every edge into a node, also when you have already seen the "
                        "node: the seen set decides what to walk, not what to count")
            else:
                hint = "one per edge from a node made by an op into this node"
            fail(detail, hint)


def _check_order(name, ran, root, nodes, context):
    if not isinstance(ran, (list, tuple)):
        fail(f"{context} returned a {type(ran).__name__}, expected the list of nodes it ran")
    reachable = _graphs.graph_ids(root)
    position = {}
    for i, n in enumerate(ran):
        if not (hasattr(n, "parents") and hasattr(n, "id")):
            fail(f"{context}: item {i} of the list it returned is {fmt(n)}, expected a node",
                 "append each node you run (not its id or its gradient)")
        if n.op is None:
            fail(f"{context}: {fmt(n)} is a leaf, but it is in the list of nodes that ran",
                 "a leaf has nothing to run: when its count reaches zero its .grad is final")
        if n.id in position:
            fail(f"{context}: {fmt(n)} ran twice (at steps {position[n.id]} and {i})",
                 RUN_ONCE)
        position[n.id] = i
    missing = [n for n in nodes if n.id in reachable and n.op is not None and n.requires_grad
               and n.id not in position]
    if missing:
        fail(f"{context}: {fmt(missing[0])} never ran ({len(missing)} op nodes did not)",
             "a node joins the queue when its count reaches zero; the root is ready at once")
    for child in ran:
        for parent in child.parents:
            if parent.id in position and position[parent.id] < position[child.id]:
                fail(f"{context}: {fmt(parent)} ran at step {position[parent.id]}, before "
                     f"{fmt(child)}, which uses it, ran at step {position[child.id]}", WAIT)


def check_ready_queue_backward(ready_queue_backward):
    rng = rng_for("ex21.ready_queue_backward")
    for name, build in CASES:
        gradient = float(rng.uniform(0.5, 2.0) * rng.choice([-1, 1]))
        student, reference = build(), build()
        reference[0].backward(gradient)
        call_text = f"ready_queue_backward(root, gradient={gradient:.4g})"
        context = f"{call_text} on {name}"
        with _hidden(ready_queue_backward):
            ran = call(ready_queue_backward, "ready_queue_backward",
                       {"root": student[0], "gradient": gradient}, context=context)
        expect_returned(ran, context)
        _check_order(name, ran, student[0], student[2], context)
        compare_grads(name, student, reference, call_text)
