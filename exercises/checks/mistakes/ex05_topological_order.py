"""Wrong answers that ``checks/ex05_topological_order.py`` must reject (lesson 2)."""

from __future__ import annotations

import minigrad

from ._registry import mistake


@mistake("ex05", "topological_order", "recursive (micrograd's build_topo)", "recursion")
def _recursive(root):
    order, seen = [], set()

    def visit(v):
        if v not in seen:
            seen.add(v)
            for p in v.parents:
                visit(p)
            order.append(v)

    visit(root)
    return order


@mistake("ex05", "topological_order", "pre-order: a node before its parents", "post-order")
def _preorder(root):
    order, seen, stack = [], set(), [root]
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            order.append(v)
            stack.extend(v.parents)
    return order


@mistake("ex05", "topological_order", "reversed pre-order", "before its parent")
def _reversed_preorder(root):
    return _preorder(root)[::-1]


@mistake("ex05", "topological_order", "no seen-set: shared nodes twice", "appears twice")
def _no_dedup(root):
    order, stack = [], [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        else:
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents)
    return order


@mistake("ex05", "topological_order", "marks nodes seen when pushed", "before its parent")
def _seen_at_push(root):
    order, seen, stack = [], {id(root)}, [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        stack.append((node, True))
        for parent in reversed(node.parents):
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append((parent, False))
    return order


@mistake("ex05", "topological_order", "root first (the list reversed)", "order is reversed")
def _root_first(root):
    from exercises.solutions.ex05_topological_order import topological_order as solution

    return solution(root)[::-1]


@mistake("ex05", "topological_order", "leaves out the root", "root itself belongs")
def _no_root(root):
    from exercises.solutions.ex05_topological_order import topological_order as solution

    return [n for n in solution(root) if n is not root]


@mistake("ex05", "topological_order", "only the leaves and the root", "missing")
def _leaves_only(root):
    return [n for n in _preorder(root)[::-1] if n.op is None and n is not root] + [root]


mistake("ex05", "topological_order", "calls minigrad's own", "yourself")(
    lambda root: minigrad.topological_order(root))
