"""Recording tapes (``autograd/tape.py``): every engine event, in order."""



import minigrad
from minigrad import Value


def test_record_captures_forward_and_backward_in_order():
    with minigrad.record() as tape:
        a = Value(2.0, "a")
        b = Value(3.0, "b")
        c = a * b
        d = c + a
        d.backward()
    assert [n.label for n in tape.nodes[:2]] == ["a", "b"]
    assert tape.nodes[2] is c and tape.nodes[-1] is d
    kinds = [e.kind for e in tape.backward_events]
    assert kinds[0] == "seeded" and kinds.count("visit") == 2 and kinds.count("contribute") == 4
    contribs = [e for e in tape.events if e.kind == "contribute"]
    mul_to_a = next(e for e in contribs if e.node is c and e.parent is a)
    assert mul_to_a.derivative == 3.0 and mul_to_a.local_grad == 3.0
    assert mul_to_a.before == 1.0 and mul_to_a.after == 4.0  # a got 1.0 from the add first
    # contributions to each leaf sum exactly to its final gradient
    for leaf in (a, b):
        assert sum(e.local_grad for e in contribs if e.parent is leaf) == leaf.grad
    assert tape.roots == [d]
    assert repr(tape) == "<Tape 4 created, 2 visits, 4 contributions>"


def test_tape_backward_after_the_block():
    with minigrad.record() as tape:
        x = Value(2.0)
        y = x * x
    y.backward()  # not recorded
    assert not tape.backward_events
    y2 = x * x
    tape.backward(y2)
    assert sum(1 for e in tape.events if e.kind == "contribute") == 2


def test_no_recorder_no_events():
    class Counter:
        n = 0

        def created(self, node):
            Counter.n += 1

        seeded = visit = contribute = lambda self, *a: None

    with minigrad.record(Counter()):
        Value(1.0) * 2
    assert Counter.n == 3
    Value(1.0) * 2
    assert Counter.n == 3


def test_tape_never_reruns_a_custom_functions_backward():
    calls = []

    class Square(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            calls.append(g)
            (x,) = ctx.saved_tensors
            return 2 * x * g

    with minigrad.record() as tape:
        x = Value(3.0)  # scalar: the bare-derivative path is the one at stake
        y = Square.apply(x)
        y.backward()
    assert len(calls) == 1 and x.grad == 6.0
    (contrib,) = [e for e in tape.events if e.kind == "contribute"]
    assert contrib.derivative is None
