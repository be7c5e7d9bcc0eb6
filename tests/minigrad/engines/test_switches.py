"""engines.switches: the counts ``choose`` reads, kept by the features they belong to (a
gradient hook, a packed saved record, an in-place change), and back to where they were
when the feature is gone."""

from __future__ import annotations

import gc

import numpy as np

from minigrad import Tensor
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.engines.switches import SWITCHES


def test_a_hooked_node_counts_while_it_lives():
    before = SWITCHES.hooked_nodes
    x = Tensor(np.ones(3), requires_grad=True)
    x.register_hook(lambda g: g)
    x.register_hook(lambda g: 2 * g)
    assert SWITCHES.hooked_nodes == before + 1  # a node, not a hook
    del x
    gc.collect()
    assert SWITCHES.hooked_nodes == before


def test_a_packed_record_counts_while_it_lives():
    before = SWITCHES.packed_records
    x = Tensor(np.ones(3), requires_grad=True)
    with saved_tensors_hooks(lambda a: a, lambda a: a):
        y = x * x
    assert SWITCHES.packed_records > before
    del y
    gc.collect()
    assert SWITCHES.packed_records == before


def test_an_in_place_change_stamps_a_newer_change():
    x = Tensor(np.ones(3))
    before = SWITCHES.latest_inplace_change
    x += 1
    assert SWITCHES.latest_inplace_change > before
