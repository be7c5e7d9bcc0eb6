"""nn.scope: which module made which graph node."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad import Tensor, nn
from tests.minigrad.nn.test_module import Net, images


# --- scopes -------------------------------------------------------------------------------
def test_scopes_tag_nodes_with_the_module_path():
    net = Net().eval()
    with minigrad.record() as tape, nn.record_scopes() as scopes:
        loss = F.cross_entropy(net(images()), np.array([0, 1, 2, 0]))
    ops = {n.op.name: scopes.get(n) for n in tape.nodes if n.op is not None}
    assert ops == {"conv2d": "conv", "batch_norm_eval": "bn", "relu": None,
                   "max_pool2d": "pool", "flatten": "head.0", "linear": "head.2",
                   "cross_entropy": None}
    assert scopes.get(loss) is None
    assert scopes.get(net.conv.weight) == "conv"
    assert scopes.param_names[net.head[2].weight.id] == "head.2.weight"
    assert scopes.modules["head.2"].kind == "Linear"
    assert scopes.modules["head.2"].title == "head.2: Linear"
    assert scopes.modules[""].kind == "Net"
    clusters = scopes.clusters()
    assert list(clusters)[0] == "conv" and net.conv.weight.id in clusters["conv"]
    assert nn.ScopeMap.parents_of("head.2") == ["head"]


def test_explicit_scopes_nest_and_unwind():
    assert nn.current_scope() is None
    with nn.scope("block") as name:
        assert name == "block" and nn.current_scope() == "block"
        with nn.scope("inner"):
            assert nn.current_scope() == "block.inner"
    assert nn.current_scope() is None
    lin = nn.Linear(2, 2)
    x = Tensor(np.ones((1, 2), np.float32))
    with nn.record_scopes() as scopes:
        with nn.scope("block"):
            out = lin(x)
            extra = out * 2
    assert scopes.get(out) == "block" and scopes.get(extra) == "block"
    with pytest.raises(RuntimeError), nn.record_scopes(), nn.scope("s"):
        raise RuntimeError("boom")
    assert nn.current_scope() is None


def test_scopes_cost_nothing_without_a_recorder():
    net = nn.Sequential(nn.Linear(2, 2))
    with nn.record_scopes() as scopes:
        pass
    net(Tensor(np.ones((1, 2), np.float32)))
    assert len(scopes) == 0 and nn.current_scope() is None
