"""Topological order: parents first, each node once, no recursion (``core/order.py``)."""



import minigrad
from minigrad import Value


def test_topological_order_parents_first_each_once():
    x = Value(1.0)
    a = x * 2
    b = x + a
    c = a * b
    order = minigrad.topological_order(c)
    assert order[-1] is c and len(order) == len({n.id for n in order})
    pos = {n.id: i for i, n in enumerate(order)}
    for n in order:
        for p in n.parents:
            assert pos[p.id] < pos[n.id]


def test_topological_order_of_several_roots_and_deep_chain():
    x = Value(1.0)
    y = x
    for _ in range(50_000):
        y = y * 1.0
    z = x + 1
    order = minigrad.topological_order([y, z])
    assert order[0] is x and {y.id, z.id} <= {n.id for n in order}


def test_topological_order_without_leaves_is_what_backward_visits():
    x = Value(1.0)
    w = Value(2.0)
    a = x * w
    b = a + w
    order = minigrad.topological_order(b, leaves=False)
    assert order == [a, b]  # parents first, made by an op, each once
    assert minigrad.topological_order(b)[:2] == [x, w]
