"""Checks for exercise 26: the largest saved tensor behind a torch loss, on graphs where
counting elements and counting bytes disagree (float64 beside float32), where the
largest is a result rather than an input (``_saved_result``), deeper than Python's
recursion limit, after ``backward()`` freed everything, and with no graph at all."""

from __future__ import annotations

from ._support import call, fail, fmt
from ._torch import chain, nodes_of, require_torch

DEPTH = 3000  # Nodes: three times Python's default recursion limit


def _saved(torch, loss) -> list:
    """``(node name, attribute, nbytes, numel)`` of every saved tensor that can be read."""
    found = []
    for node in nodes_of(loss.grad_fn):
        for attribute in dir(node):
            if not attribute.startswith("_saved_"):
                continue
            try:
                value = getattr(node, attribute)
            except RuntimeError:
                continue
            if isinstance(value, torch.Tensor):
                found.append((node.name(), attribute, value.numel() * value.element_size(),
                              value.numel()))
    return found


def _graphs(torch):
    """``(description, loss)`` pairs, each loss made afresh from seeded leaves."""
    g = torch.Generator().manual_seed(26)

    def leaf(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g, dtype=dtype).requires_grad_()

    a, b = leaf(200, 30), leaf(50, 70, dtype=torch.float64)
    c, d = leaf(8, 16), leaf(16, 4)
    mixed = a.exp().sum() + b.sin().sum().float() + (c @ d).relu().sum()
    u, v = leaf(100), leaf(100)
    outer = torch.tanh(u.unsqueeze(1) * v.unsqueeze(0)).sum()
    w = leaf(1000)
    deep = chain(DEPTH, w.exp().sum(0, keepdim=True) * 1e-3).sum()
    return [("a loss mixing float32 and float64 tensors", mixed),
            ("tanh(u[:, None] * v[None, :]).sum(), u and v of 100 numbers", outer),
            (f"a chain of {DEPTH} tanh Nodes over exp(w).sum(), w of 1,000 numbers", deep)]


def _error_hint(exc: Exception, after_backward: bool, no_graph: bool) -> str | None:
    if after_backward and isinstance(exc, RuntimeError):
        return ("after backward() without retain_graph=True every saved tensor is freed, and "
                "reading it raises RuntimeError: catch it (try/except around getattr) and "
                "skip that attribute")
    if no_graph and isinstance(exc, AttributeError) and "NoneType" in str(exc):
        return "loss.grad_fn is None for a loss computed under torch.no_grad(): return None"
    if isinstance(exc, AttributeError) and "NoneType" in str(exc):
        return ("next_functions holds (None, 0) for an input that needs no gradient: skip "
                "those pairs")
    return None


def _run(biggest_saved, loss, context, after_backward=False, no_graph=False):
    return call(biggest_saved, "biggest_saved", {"loss": loss},
                hint_on_error=lambda exc: _error_hint(exc, after_backward, no_graph),
                context=context)


def _compare(got, saved, context):
    best = max((s[2] for s in saved), default=None)
    winners = sorted({s[:3] for s in saved if s[2] == best})
    want = "None" if best is None else (fmt(winners[0]) + (" (or another of the same size)"
                                                            if len(winners) > 1 else ""))
    if best is None:
        if got is not None:
            fail(f"{context} returned {fmt(got)}, expected None: no saved tensor can be read",
                 "after backward() without retain_graph=True every saved tensor is freed: "
                 "skip what raises RuntimeError, and return None when nothing is left")
        return
    message = f"{context} returned {fmt(got)}, expected {want}"
    if got is None:
        fail(message, "walk the whole graph, from loss.grad_fn through next_functions, and "
                      "read every Node's _saved_* attributes")
    if not (isinstance(got, (tuple, list)) and len(got) == 3):
        fail(message, "return a tuple (node.name(), attribute, nbytes)")
    name, attribute, nbytes = got
    if not isinstance(name, str):
        fail(message, "the first item is the Node's name, a str: node.name(), not the Node")
    if not isinstance(attribute, str):
        fail(message, "the second item is the attribute's name, a str such as '_saved_self'")
    if isinstance(nbytes, bool) or not isinstance(nbytes, int):
        fail(message, "the bytes are an int: value.numel() * value.element_size()")
    if tuple(got) in winners:
        return
    if not attribute.startswith("_saved_") and (name, "_saved_" + attribute, nbytes) in winners:
        fail(message, "give the attribute's name as dir() lists it, '_saved_" + attribute
             + "', not without its prefix")
    most_elements = max(s[3] for s in saved)
    if any(s[:2] == (name, attribute) and s[3] == most_elements for s in saved) or \
            nbytes == most_elements:
        fail(message, "count bytes, not elements: nbytes = value.numel() * "
                      "value.element_size() (a float64 takes 8 bytes, a float32 4)")
    if (name, attribute) == winners[0][:2]:
        fail(message, "the bytes are value.numel() * value.element_size()")
    fail(message, "read every attribute whose name starts with _saved_ on every Node: "
                  "tanh keeps its output (_saved_result), mm its second factor "
                  "(_saved_mat2), not only _saved_self and _saved_other")


def check_biggest_saved(biggest_saved):
    torch = require_torch("ex26")
    for description, loss in _graphs(torch):
        context = f"biggest_saved(loss) on {description}"
        _compare(_run(biggest_saved, loss, context), _saved(torch, loss), context)

    description, loss = _graphs(torch)[1]
    loss.backward()
    context = f"biggest_saved(loss) on {description}, after loss.backward()"
    _compare(_run(biggest_saved, loss, context, after_backward=True), _saved(torch, loss),
             context)

    with torch.no_grad():
        flat = torch.ones(3).exp().sum()
    context = "biggest_saved(loss) on a loss computed under torch.no_grad()"
    _compare(_run(biggest_saved, flat, context, no_graph=True), [], context)
