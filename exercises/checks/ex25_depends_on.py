"""Checks for exercise 25: the parameters a torch loss depends on, read from
``next_functions``, on a small model with traps (an unused parameter holding the same
numbers as a used one, a detached one, a frozen one, an input leaf that is no
parameter), a chain deeper than Python's recursion limit, and a loss with no graph."""

from __future__ import annotations

from ._support import call, fail, fmt
from ._torch import chain, nodes_of, require_torch

DEPTH = 3000  # Nodes: three times Python's default recursion limit


def _model_graph(torch):
    """A loss from a dict of parameters, and which of them backward reaches."""
    g = torch.Generator().manual_seed(25)

    def param(*shape, zero=False, grad=True):
        t = torch.zeros(*shape) if zero else torch.randn(*shape, generator=g)
        return t.requires_grad_(grad)

    params = {
        "head.bias": param(3, zero=True),
        "spare.bias": param(3, zero=True),        # unused: the same numbers as head.bias
        "embed.weight": param(10, 4),
        "block.weight": param(4, 6),
        "block.bias": param(6),
        "frozen.weight": param(6, 6, grad=False),  # used, but needs no gradient
        "temperature": param(()),                  # used only detached
        "head.weight": param(6, 3),
        "spare.weight": param(6, 3),               # unused
    }
    tokens = torch.tensor([1, 4, 4, 7, 2])
    extra = torch.randn(5, 6, generator=g).requires_grad_()  # an input leaf, not a parameter
    h = params["embed.weight"][tokens]
    h = torch.tanh(h @ params["block.weight"] + params["block.bias"])
    h = h @ params["frozen.weight"] + extra
    h = h / (params["temperature"].detach().abs() + 1.0)
    logits = h @ params["head.weight"] + params["head.bias"]
    loss = (logits * logits).mean()
    return loss, params, extra


def _reached(loss, params) -> list:
    leaves = {id(n.variable) for n in nodes_of(loss.grad_fn) if hasattr(n, "variable")}
    return [name for name, t in params.items() if id(t) in leaves]


def _error_hint(exc: Exception, no_graph: bool) -> str | None:
    text = str(exc)
    if no_graph and isinstance(exc, AttributeError) and "NoneType" in text:
        return ("loss.grad_fn is None when the loss was computed with no graph "
                "(torch.no_grad()): then it depends on no parameter, return []")
    if isinstance(exc, AttributeError) and "NoneType" in text:
        return ("next_functions holds (None, 0) for an input that needs no gradient (the "
                "data, a frozen or detached tensor): skip those pairs")
    if isinstance(exc, KeyError):
        return ("a leaf that is not in params (an input made with requires_grad=True) "
                "is left out: look names up with params' tensors, not the leaves")
    if isinstance(exc, RuntimeError) and "ambiguous" in text:
        return ("`tensor in a_list` and `==` compare tensors number by number: keep the "
                "leaves' id(tensor) in a set and test id(p) in it (identity)")
    return None


def _run(depends_on, loss, params, context, no_graph=False):
    return call(depends_on, "depends_on", {"loss": loss, "params": params},
                hint_on_error=lambda exc: _error_hint(exc, no_graph), context=context)


def _compare(got, expected, params, context):
    if isinstance(got, tuple):
        got = list(got)
    if not isinstance(got, list):
        fail(f"{context} returned {fmt(got)}, expected the list {expected}",
             "return a list of names (the keys of params)")
    if not all(isinstance(n, str) for n in got):
        fail(f"{context} returned {len(got)} items that are not all names: expected "
             f"{expected}", "return the names (the keys of params), not the tensors")
    if got == expected:
        return
    extra = [n for n in got if n not in expected]
    missing = [n for n in expected if n not in got]
    message = f"{context} returned {got}, expected {expected}"
    if not extra and not missing:
        if len(got) != len(set(got)):
            fail(message, "each name once: a parameter used twice is still one dependency")
        fail(message, "list the names in the order of params (their order in the dict), "
                      "not in the order the walk found them")
    if extra:
        if all(any(_same_numbers(params[n], params[m]) for m in expected) for n in extra):
            fail(message + f" ({extra} not reached)",
                 "compare tensors by identity (id(t), or `is`), not by value: "
                 f"{extra[0]!r} holds the same numbers as a parameter the loss uses")
        if all(params[n].requires_grad for n in extra):
            fail(message + f" ({extra} not reached)",
                 "requires_grad says a tensor could get a gradient; only the leaves the "
                 "graph reaches will (a detached or unused parameter gets none): walk "
                 "next_functions from loss.grad_fn and collect AccumulateGrad's .variable")
        fail(message + f" ({extra} not reached)")
    fail(message + f" (missing {missing})",
         "follow next_functions all the way down: the parameters' AccumulateGrad Nodes sit "
         "several Nodes below the loss, not only among loss.grad_fn's own inputs")


def _same_numbers(a, b) -> bool:
    return a.shape == b.shape and bool((a.detach() == b.detach()).all())


def check_depends_on(depends_on):
    torch = require_torch("ex25")
    loss, params, _ = _model_graph(torch)
    expected = _reached(loss, params)
    context = "depends_on(loss, params) on a small model's loss"
    _compare(_run(depends_on, loss, params, context), expected, params, context)

    w = torch.linspace(-1.0, 1.0, 4).requires_grad_()
    deep = chain(DEPTH, w * 0.5).sum()
    context = f"depends_on(loss, {{'w': w}}) on a chain of {DEPTH} tanh Nodes"
    _compare(_run(depends_on, deep, {"w": w}, context), ["w"], {"w": w}, context)

    with torch.no_grad():
        flat = (params["head.weight"] * 2.0).sum()
    context = "depends_on(loss, params) on a loss computed under torch.no_grad()"
    _compare(_run(depends_on, flat, params, context, no_graph=True), [], params, context)
