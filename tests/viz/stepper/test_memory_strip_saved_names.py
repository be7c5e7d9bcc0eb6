"""The memory strip's words name a freed value that is no node's own by what its op's rule
calls it (``max (#2)'s saved share``), not ``value``."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad.memory import format_bytes
from viz.stepper.stepper import step_through


def test_a_freed_value_of_its_own_is_named_by_the_rule():
    x = minigrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    s = step_through(lambda x: (x.max(axis=1) * 2.0).sum(), x, memory=True)
    said = []
    for k, fr in enumerate(s.frames.frames):
        for node, size in s.memory.freed[k]:
            if node.op.name == "max":
                said.append(fr.text)
                assert (f"freed max ({s.frames.name(node)})'s saved share: "
                        f"{format_bytes(size)}") in fr.text
    assert len(said) == 1 and "saved value" not in said[0]
