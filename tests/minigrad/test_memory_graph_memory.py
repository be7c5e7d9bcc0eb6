"""graph_memory: per-node data / grad / saved bytes, and release after backward."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad import graph_memory
from minigrad.memory import format_bytes


def _graph():
    x = minigrad.Tensor(np.ones((4, 8), np.float32), requires_grad=True, name="x")
    w = minigrad.Tensor(np.ones((8, 2), np.float32), requires_grad=True, name="w")
    return x, w, (x @ w).tanh().sum()


def test_report_before_and_after_backward():
    x, w, loss = _graph()
    m = graph_memory(loss)
    assert [n.op for n in m.nodes] == ["leaf", "leaf", "matmul", "tanh", "sum"]
    by_op = {n.op: n for n in m.nodes}
    assert by_op["matmul"].saved_bytes == 4 * 8 * 4 + 8 * 2 * 4 and by_op["matmul"].saved_count == 2
    assert by_op["tanh"].saved_bytes == 4 * 2 * 4
    assert m.data_bytes == (32 + 16 + 8 + 8 + 1) * 4
    assert m.grad_bytes == 0
    assert m.saved_bytes > 0
    assert m.saved_only_bytes == 0  # matmul and tanh save arrays the graph holds anyway
    loss.backward()
    after = graph_memory(loss)
    assert after.saved_bytes == 0 and all(n.released for n in after.nodes if n.op != "leaf")
    assert after.grad_bytes > 0


def test_retain_graph_keeps_saved():
    _, _, loss = _graph()
    loss.backward(retain_graph=True)
    assert graph_memory(loss).saved_bytes > 0


def test_saved_only_bytes_counts_extra_buffers():
    x = minigrad.Tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
    m = graph_memory(x.max(axis=1))  # max saves a (2, 3) share mask nobody else holds
    assert m.saved_only_bytes == 6 * 4


def test_table_is_deterministic():
    _, _, loss = _graph()
    text = str(graph_memory(loss))
    lines = text.splitlines()
    assert lines[0].split() == ["id", "op", "name", "shape", "data", "grad", "saved"]
    assert "matmul" in text and "total: data 260 B, grad 0 B" in lines[-1]
    loss.backward()
    assert "released" in str(graph_memory(loss))
    assert repr(graph_memory(loss)).startswith("<GraphMemory 5 nodes")


def test_value_graphs():
    a = minigrad.Value(2.0)
    b = (a * a).tanh()
    m = graph_memory(b)
    assert m.data_bytes == 3 * 8 and m.nodes[0].shape is None


def test_format_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(4 * 1024**2) == "4.0 MiB"
