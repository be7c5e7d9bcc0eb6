"""The switches the fast paths read, and the shortcuts they take.

``COUNTS.detours`` is the one number the Tensor operators read before building a node
by hand: it must be non-zero whenever grad mode may be off or someone watches, so that
the constructor (``core.node.init_node``) decides instead.  ``run_scalar`` passes ``g``
through a passthrough rule without calling it, and ``unbroadcast``'s bias case sums
an array with ``np.add.reduce`` but a node (``create_graph``) with its recorded
``sum``.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value, no_grad, record
from minigrad.autograd import forward_ad
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.core import op as registry
from minigrad.core.accumulate import unbroadcast
from minigrad.core.modes import COUNTS
from minigrad.engines import fast


def _switches():
    return {
        "no_grad": no_grad,
        "record": record,
        "anomaly": minigrad.detect_anomaly,
        "dual level": forward_ad.dual_level,
        "saved hooks": lambda: saved_tensors_hooks(lambda x: x, lambda x: x),
    }


@pytest.mark.parametrize("name", sorted(_switches()))
def test_detours_is_the_sum_of_no_grad_threads_and_watchers(name):
    assert COUNTS.detours == COUNTS.no_grad_threads + COUNTS.watchers == 0
    with _switches()[name]():
        assert COUNTS.detours == COUNTS.no_grad_threads + COUNTS.watchers > 0
    assert COUNTS.detours == 0


def test_an_operator_under_no_grad_makes_a_constant():
    a = Tensor(np.ones((2, 2), np.float32), requires_grad=True)
    with no_grad():
        outs = [a * a, a + 1.0, a.tanh(), -a]
    assert all(o.op is None and not o.requires_grad and o.parents == () for o in outs)


def test_an_operator_announces_its_node_while_recorded():
    a = Tensor(np.ones((2, 2), np.float32), requires_grad=True)
    with record() as rec:
        out = (a * a).tanh()
    made = [e for e in rec.events if e.kind == "created"]
    assert out.id in {e.node.id for e in made} and out.parents[0].id in {
        e.node.id for e in made}


def test_scalar_fast_loop_calls_no_passthrough():
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is registry.passthrough.__code__:
            calls.append(frame)

    a, b = Value(2.0), Value(3.0)
    out = a + b
    assert out.op.grads == (registry.passthrough, registry.passthrough)
    out.grad = 1.5
    sys.setprofile(profile)
    try:
        fast.run_scalar([out], retain_graph=True)
    finally:
        sys.setprofile(None)
    assert a.grad == b.grad == 1.5 and not calls  # g passed on as it is


def test_unbroadcast_of_a_bias_gradient_sums_rows_bit_for_bit():
    rng = np.random.default_rng(0)
    g = rng.standard_normal((5, 3)).astype(np.float32)
    got = unbroadcast(g, (3,))
    assert type(got) is np.ndarray and got.dtype == np.float32
    assert got.tobytes() == g.sum(axis=0).tobytes()
    zero_d = unbroadcast(g[0], ())
    assert type(zero_d) is np.ndarray and zero_d.shape == ()


def test_unbroadcast_of_a_node_records_a_sum():
    g = Tensor(np.ones((4, 3), np.float32), requires_grad=True)
    got = unbroadcast(g, (3,))
    assert isinstance(got, Tensor) and got.op is not None and got.op.name == "sum"
    assert got.parents == (g,)


def test_dfs_is_the_older_name_of_the_sorted_scheduler():
    """``scheduler="dfs"`` (what earlier lessons and notebooks say) still runs the sorted
    order; an unknown name is refused, naming the known ones."""
    from minigrad.engines.choose import SCHEDULERS, scheduler_name

    assert SCHEDULERS == ("sorted", "ready-queue")
    assert scheduler_name("dfs") == scheduler_name("sorted") == "sorted"
    a = Value(2.0)
    (a * a).backward(scheduler="dfs")
    assert a.grad == 4.0
    with pytest.raises(ValueError, match="'sorted', 'ready-queue'"):
        scheduler_name("bfs")
