"""Checks for exercise 13: saved bytes against ``minigrad.graph_memory`` on graphs
with shared saves, views and released nodes; evaluation that must record no graph."""

import numpy as np

import minigrad
import minigrad.nn.functional as F
from minigrad import Tensor

from ._support import call, expect_close, fail, fmt, fmt_typed, is_number, rng_for, type_name

SAVED_HINT = ("node.saved is None once released, () for a leaf, and may hold non-arrays (sum "
              "saves a shape): loop over `node.saved or ()` and count only np.ndarray items")


def _graphs():
    rng = rng_for("ex13.graphs")
    x = Tensor(rng.standard_normal((4, 3)), name="x")  # an input: no grad
    w1 = Tensor(rng.standard_normal((3, 5)), requires_grad=True, name="W1")
    b1 = Tensor(rng.standard_normal(5), requires_grad=True, name="b1")
    h = (x @ w1 + b1).tanh()
    yield "a layer: ((x @ W1 + b1).tanh() squared).sum()", (h * h).sum()
    v = Tensor(rng.standard_normal((6, 4)).astype(np.float32), requires_grad=True, name="v")
    yield "float32 v * v (v saved twice)", (v * v).sum()
    big = Tensor(rng.standard_normal((10, 3)))
    w = Tensor(rng.standard_normal((3, 2)), requires_grad=True, name="W")
    yield "views: big[2:6] @ W (a slice of a 10×3 input)", (big[2:6] @ w).sum()
    a = Tensor(rng.standard_normal((3, 4)), requires_grad=True, name="a")
    yield "views: a.T @ a", (a.T @ a).exp().mean()
    # A view of a view: numpy collapses plain view chains (x[1:3].T.base is x), but an
    # ndarray subclass in between (np.memmap, np.matrix, ...) keeps every link, so .base
    # must be followed until it is not an ndarray, not just once.
    owner = rng.standard_normal((8, 3))
    chained = np.asarray(owner.view(_Subclass)[1:5])  # chained.base.base.base is owner
    w2 = Tensor(rng.standard_normal((3, 2)), requires_grad=True, name="W2")
    yield ("a view of a view: rows 1:5 of an 8×3 array through an ndarray subclass, @ W2",
           (Tensor(chained) @ w2).sum())


class _Subclass(np.ndarray):
    """Stands in for np.memmap and friends: views through it keep a chain of bases."""


def _alternatives(root):
    """What common slips count: every saved array (no dedup), and dedup without bases."""
    total, by_id = 0, {}
    for node in minigrad.topological_order(root):
        for item in node.saved or ():
            if isinstance(item, np.ndarray):
                total += item.nbytes
                by_id[id(item)] = item.nbytes
    return total, sum(by_id.values())


def _check_one(saved_bytes, name, root, when):
    context = f"saved_bytes(root) for {name}{when}"
    got = call(saved_bytes, "saved_bytes", {"root": root}, context=context,
               hint_on_error=SAVED_HINT)
    want = minigrad.graph_memory(root).saved_bytes
    # A numpy integer is as good as an int (sum() over np.int64 nbytes, or np.sum, gives
    # one); a float, a bool or a 0-d array is not a byte count, even with the right value.
    whole = isinstance(got, (int, np.integer)) and not isinstance(got, bool)
    if whole and got == want:
        return
    every, no_base = _alternatives(root)
    hint = None
    if not whole and _equals(got, want) and isinstance(got, (float, np.floating)):
        hint = ("the count is right, but a byte count is a whole number: return an int (add "
                "up the arrays' .nbytes, which are ints, starting from 0, not 0.0)")
    elif not whole and _equals(got, want):
        kind = "0-d numpy array" if isinstance(got, np.ndarray) else type_name(got)
        hint = f"the count is right, but it is a {kind}: return int(...) of it"
    elif want == 0:
        hint = "after backward a node's saved is None: released nodes hold nothing"
    elif _equals(got, every) and every != want and every != no_base:
        hint = "count each buffer once: the same array can be saved by two ops (or twice)"
    elif (_equals(got, every) or _equals(got, no_base)) and no_base != want:
        hint = ("a view holds its whole base array: follow .base while it is an ndarray and "
                "count the base's nbytes")
    elif not whole:
        hint = f"return the number of bytes as an int, not a {type_name(got)}"
    fail(f"{context} returned {fmt_typed(got)}; expected {want} (int)", hint)


def _equals(got, n: int) -> bool:
    """``got`` is the number ``n`` (whatever its type: 376.0 is 376; '376' and True are not)."""
    return is_number(got) and bool(got == n)


def check_saved_bytes(saved_bytes):
    for name, root in _graphs():
        _check_one(saved_bytes, name, root, "")
        root.backward(retain_graph=True)
        _check_one(saved_bytes, name, root, " after backward(retain_graph=True)")
        root.backward()
        _check_one(saved_bytes, name, root, " after backward()")


class _Recorder:
    """Counts op nodes created while active (leaves are fine: they are data)."""

    def __init__(self):
        self.ops = 0

    def created(self, node):
        if node.op is not None:
            self.ops += 1

    def seeded(self, *args):
        pass

    def visit(self, *args):
        pass

    def contribute(self, *args):
        pass


def check_evaluate(evaluate):
    rng = rng_for("ex13.evaluate")
    w = Tensor(rng.standard_normal((3, 2)), requires_grad=True, name="W")
    b = Tensor(rng.standard_normal(2), requires_grad=True, name="b")

    def model(x):
        return (x @ w + b).tanh()

    batches = [(Tensor(rng.standard_normal((5, 3))), Tensor(rng.standard_normal((5, 2))))
               for _ in range(3)]
    want = [float(np.mean((np.tanh(x.data @ w.data + b.data) - y.data) ** 2))
            for x, y in batches]
    context = "evaluate(model, mse_loss, 3 batches)"
    recorder = _Recorder()
    with minigrad.record(recorder):
        got = call(evaluate, "evaluate",
                   {"model": model, "loss_fn": F.mse_loss, "batches": batches}, context=context)
    if not minigrad.is_grad_enabled():
        minigrad.set_grad_enabled(True)
        fail(f"{context} left grad mode off",
             "use `with minigrad.no_grad():`, which restores the previous mode on the way out")
    # Called with grad mode already off, it must leave it off: ending with
    # set_grad_enabled(True) is not "as you found it".
    minigrad.set_grad_enabled(False)
    try:
        call(evaluate, "evaluate", {"model": model, "loss_fn": F.mse_loss, "batches": batches},
             context=f"{context} with grad mode off")
        left_on = minigrad.is_grad_enabled()
    finally:
        minigrad.set_grad_enabled(True)
    if left_on:
        fail(f"{context}, called with grad mode off, switched it on",
             "leave grad mode as you found it: `with minigrad.no_grad():` restores the "
             "previous mode (it does not set it to True)")
    if recorder.ops:
        fail(f"{context} recorded {recorder.ops} graph nodes",
             "compute inside `with minigrad.no_grad():` so no op records a graph (or saves "
             "anything for a backward that will never come)")
    if not isinstance(got, (list, tuple)) or len(got) != len(batches):
        fail(f"{context} should return a list of {len(batches)} floats, got {fmt(got)}")
    bad = [v for v in got if not isinstance(v, float)]
    if bad:
        fail(f"{context}: the losses should be Python floats, got {type(bad[0]).__name__}",
             "float(loss.item()) turns a 0-d tensor into a number")
    expect_close(np.asarray(got), np.asarray(want), what="the losses", context=context,
                 hint="loss_fn(model(x), y) for each (x, y), in order")
    if w.grad is not None or b.grad is not None:
        fail(f"{context} changed the parameters' gradients", "evaluation runs no backward")
